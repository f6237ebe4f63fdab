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
    torch::jit::Module m = program_module(p, src);
    torch::jit::StaticModuleOptions opts;
    opts.enable_out_variant = true;
    opts.optimize_memory = true;
    smod = std::make_unique<torch::jit::StaticModule>(m, /*is_frozen=*/false, opts);
  } catch (...) {
    return compile_failure(name());
  }
  DriveOptions opt;
  opt.warmup = cfg.warmup;
  return drive_program(p, name(), opt, [&](const std::vector<at::Tensor>& inputs) {
    std::vector<c10::IValue> args;
    for (size_t i : src.forward_args) args.push_back(inputs[i]);
    // Static Runtime reuses its output buffers across calls: copy them out.
    return tuple_tensors((*smod)(args), true);
  });
}

}  // namespace dlfuzz
