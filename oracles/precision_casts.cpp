#include "oracles/precision_casts.h"

#include "oracles/numeric_oracle.h"
#include "oracles/precision_flow.h"
#include "runners/runner_spec.h"

namespace dlfuzz {

namespace {
bool computes_half_floats(const Program& p) {
  for (const auto& v : precision_flow(p).values)
    if (v) return true;
  return false;
}
}  // namespace

void explain_precision_casts(Executor& ex, const Program& p, std::vector<Finding>& findings) {
  if (p.plan.world != 1) return;
  bool ran = false, gone = false;
  for (auto& f : findings) {
    if (f.oracle != "numeric" || f.flaky || f.test_runner != "inductor" || !f.first_op.empty()) continue;
    if (!ran) {
      ran = true;
      if (!computes_half_floats(p)) return;
      RunnerSpec spec = runner_spec("inductor-emulate");
      auto r = ex.run(p, {spec.reference(p), spec.fp64_reference(p), "inductor-emulate"});
      const RunResult &ref = r.at(0), &fp64 = r.at(1), &test = r.at(2);
      gone = ref.ok() && test.ok() && !check_numeric(ref, test, fp64.ok() ? &fp64 : nullptr, numeric_options_for(&p));
    }
    if (!gone) return;
    f.first_op = kInductorFloat32Intermediates;
    f.first_op_detail =
        "gone with torch._inductor.config.emulate_precision_casts=True: Inductor keeps the float16/bfloat16 "
        "intermediates of a fused chain in float32 where eager rounds each (by design)";
  }
}

}  // namespace dlfuzz
