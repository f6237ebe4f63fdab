#include "oracles/precision_casts.h"

#include <algorithm>

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

bool explainable(const Finding& f) {
  return f.oracle == "numeric" && !f.flaky && f.test_runner == "inductor" && f.first_op.empty();
}

// Does inductor-emulate agree with the reference where inductor did not?
bool gone_when_emulated(Executor& ex, const Program& p) {
  RunnerSpec spec = runner_spec("inductor-emulate");
  auto r = ex.run(p, {spec.reference(p), spec.fp64_reference(p), "inductor-emulate"});
  const RunResult &ref = r.at(0), &fp64 = r.at(1), &test = r.at(2);
  return ref.ok() && test.ok() && !check_numeric(ref, test, fp64.ok() ? &fp64 : nullptr, numeric_options_for(&p));
}
}  // namespace

void explain_precision_casts(Executor& ex, const Program& p, std::vector<Finding>& findings) {
  if (p.plan.world != 1 || std::none_of(findings.begin(), findings.end(), explainable)) return;
  if (!computes_half_floats(p) || !gone_when_emulated(ex, p)) return;
  for (auto& f : findings) {
    if (!explainable(f)) continue;
    f.first_op = kInductorFloat32Intermediates;
    f.first_op_detail =
        "gone with torch._inductor.config.emulate_precision_casts=True: Inductor keeps the float16/bfloat16 "
        "intermediates of a fused chain in float32 where eager rounds each (by design)";
  }
}

}  // namespace dlfuzz
