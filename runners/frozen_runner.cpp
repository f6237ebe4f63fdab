#include "runners/frozen_runner.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <torch/jit.h>
#include <torch/script.h>

#include "generator/emit.h"
#include "runners/input_builder.h"
#include "runners/program_driver.h"
#include "runners/ts_resolver.h"

namespace dlfuzz {

FrozenModuleSource frozen_module_source(const Program& p) {
  FrozenModuleSource m;
  m.source = emit_function(p, "program", true, /*method=*/true);
  std::vector<std::string> fwd_params = {"self"}, call_args;
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    std::string name = py_name(p, p.inputs[i].value);
    if (p.inputs[i].kind == InputKind::param) {
      m.param_inputs.push_back(i);
      call_args.push_back("self." + name);
    } else {
      m.forward_args.push_back(i);
      fwd_params.push_back(name + ": torch.Tensor");
      call_args.push_back(name);
    }
  }
  m.source += fmt::format("def forward({}):\n    return self.program({})\n", fmt::join(fwd_params, ", "),
                          fmt::join(call_args, ", "));
  return m;
}

torch::jit::Module program_module(const Program& p, const FrozenModuleSource& src) {
  torch::jit::Module m("DlfuzzProgram");
  for (size_t i : src.param_inputs)
    m.register_parameter(py_name(p, p.inputs[i].value), build_input(p, i, false), /*is_buffer=*/false);
  m.define(src.source, ts_resolver());
  m.eval();
  return m;
}

std::vector<at::Tensor> tuple_tensors(const c10::IValue& out, bool copy) {
  std::vector<at::Tensor> outs;
  for (const auto& e : out.toTupleRef().elements()) outs.push_back(copy ? e.toTensor().clone() : e.toTensor());
  return outs;
}

RunResult run_module_program(const Program& p, const std::string& runner, const RunConfig& cfg,
                             const std::function<ModuleForward(torch::jit::Module&)>& compile, bool copy_outputs) {
  ModuleForward forward;
  FrozenModuleSource src;
  try {
    src = frozen_module_source(p);
    torch::jit::Module m = program_module(p, src);
    forward = compile(m);
  } catch (...) {
    return compile_failure(runner);
  }
  DriveOptions opt;
  opt.warmup = cfg.warmup;
  opt.timed_calls = cfg.timed_calls;
  opt.profile_dir = cfg.profile_dir;
  return drive_program(p, runner, opt, [&](const std::vector<at::Tensor>& inputs) {
    std::vector<c10::IValue> args;
    for (size_t i : src.forward_args) args.push_back(inputs[i]);
    return tuple_tensors(forward(std::move(args)), copy_outputs);
  });
}

RunResult FrozenRunner::run(const Program& p, const RunConfig& cfg) {
  return run_module_program(
      p, name(), cfg,
      [steps = steps_](torch::jit::Module& m) -> ModuleForward {
        torch::jit::Module f = torch::jit::freeze(m, c10::nullopt, steps.fold_numerics);
        auto frozen = std::make_shared<torch::jit::Module>(steps.optimize_for_inference ? torch::jit::optimize_for_inference(f) : f);
        return [frozen](std::vector<c10::IValue> args) { return frozen->forward(std::move(args)); };
      },
      /*copy_outputs=*/false);
}

}  // namespace dlfuzz
