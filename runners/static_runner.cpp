#include "runners/static_runner.h"

#include <torch/csrc/jit/runtime/static/impl.h>
#include <torch/script.h>

#include "generator/emit.h"
#include "runners/frozen_runner.h"
#include "runners/input_builder.h"
#include "runners/program_driver.h"

namespace dlfuzz {

RunResult StaticRunner::run(const Program& p, const RunConfig& cfg) {
  return run_module_program(
      p, name(), cfg,
      [steps = steps_](torch::jit::Module& m) -> ModuleForward {
        torch::jit::StaticModuleOptions opts;
        opts.enable_out_variant = steps.out_variants;
        opts.use_copy_variants = steps.out_variants;
        opts.use_maybe_copy_variants = steps.out_variants;
        opts.optimize_memory = steps.out_variants && steps.memory_planner;
        auto smod = std::make_shared<torch::jit::StaticModule>(m, /*is_frozen=*/false, opts);
        return [smod](std::vector<c10::IValue> args) { return (*smod)(std::move(args)); };
      },
      // Static Runtime reuses its output buffers across calls: copy them out.
      /*copy_outputs=*/true);
}

}  // namespace dlfuzz
