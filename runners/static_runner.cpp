#include "runners/static_runner.h"

#include <torch/csrc/jit/runtime/static/impl.h>
#include <torch/script.h>

#include "generator/emit.h"
#include "runners/frozen_runner.h"
#include "runners/input_builder.h"
#include "runners/program_driver.h"

namespace dlfuzz {

RunResult StaticRunner::run(const Program& p, const RunConfig& cfg) {
  std::unique_ptr<torch::jit::StaticModule> smod;
  FrozenModuleSource src;
  try {
    src = frozen_module_source(p);
    torch::jit::Module m("DlfuzzProgram");
    for (size_t i : src.param_inputs)
      m.register_parameter(py_name(p, p.inputs[i].value), build_input(p, i, false), /*is_buffer=*/false);
    m.define(src.source);
    m.eval();
    torch::jit::StaticModuleOptions opts;
    opts.enable_out_variant = true;
    opts.optimize_memory = true;
    smod = std::make_unique<torch::jit::StaticModule>(m, /*is_frozen=*/false, opts);
  } catch (...) {
    RunResult r;
    r.runner = name();
    r.versions = torch_version_string();
    r.stage = Stage::compile;
    record_exception(r);
    return r;
  }
  DriveOptions opt;
  opt.warmup = cfg.warmup;
  return drive_program(p, name(), opt, [&](const std::vector<at::Tensor>& inputs) {
    std::vector<c10::IValue> args;
    for (size_t i : src.forward_args) args.push_back(inputs[i]);
    c10::IValue out = (*smod)(args);
    std::vector<at::Tensor> outs;
    // Static Runtime reuses its output buffers across calls: copy them out.
    for (const auto& e : out.toTupleRef().elements()) outs.push_back(e.toTensor().clone());
    return outs;
  });
}

}  // namespace dlfuzz
