#include "oracles/precision_casts.h"

#include <algorithm>
#include <map>
#include <string>

#include "oracles/numeric_oracle.h"
#include "oracles/precision_flow.h"
#include "runners/runner_spec.h"

namespace dlfuzz {

namespace {
bool computes_half_floats(const Program& p) {
  for (const auto& v : precision_flow(p).values)
    if (is_half_flow(v)) return true;
  return false;
}

// The runner that compiles as a finding's runner does, rounding as eager does.
std::string emulating(const std::string& runner) {
  if (runner == "inductor") return "inductor-emulate";
  if (runner == "inductor-dynamic") return "inductor-dynamic-emulate";
  if (runner == "inductor-knobs") return "inductor-knobs-emulate";
  if (runner == "aoti") return "aoti-emulate";
  if (runner == "aoti-dynamic") return "aoti-dynamic-emulate";
  return "";
}

bool explainable(const Finding& f) {
  return f.oracle == "numeric" && !f.flaky && !emulating(f.test_runner).empty() && f.first_op.empty();
}

// Does the emulating twin agree with the reference where the runner did not?
bool gone_when_emulated(Executor& ex, const Program& p, const std::string& runner) {
  RunnerSpec spec = runner_spec(emulating(runner));
  auto r = ex.run(p, {spec.reference(p), spec.fp64_reference(p), spec.name()});
  const RunResult &ref = r.at(0), &fp64 = r.at(1), &test = r.at(2);
  return ref.ok() && test.ok() && !check_numeric(ref, test, fp64.ok() ? &fp64 : nullptr, numeric_options_for(&p));
}
}  // namespace

void explain_precision_casts(Executor& ex, const Program& p, std::vector<Finding>& findings) {
  if (p.plan.world != 1 || std::none_of(findings.begin(), findings.end(), explainable)) return;
  if (!computes_half_floats(p)) return;
  std::map<std::string, bool> gone;  // per runner with such a finding: one run of its twin
  for (auto& f : findings) {
    if (!explainable(f)) continue;
    auto it = gone.find(f.test_runner);
    if (it == gone.end()) it = gone.emplace(f.test_runner, gone_when_emulated(ex, p, f.test_runner)).first;
    if (!it->second) continue;
    f.first_op = kInductorFloat32Intermediates;
    f.first_op_detail =
        "gone with torch._inductor.config.emulate_precision_casts=True: Inductor keeps the float16/bfloat16 "
        "intermediates of a fused chain in float32 where eager rounds each (by design)";
  }
}

}  // namespace dlfuzz
