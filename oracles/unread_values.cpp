#include "oracles/unread_values.h"

#include "generator/verify.h"
#include "oracles/numeric_oracle.h"
#include "reducers/rewrite.h"
#include "runners/runner_spec.h"

namespace dlfuzz {

std::optional<Program> cut_to_the_loss(const Program& p) {
  if (!p.is_training()) return std::nullopt;
  Program q = p;
  q.body.yields = {p.train->loss};
  reduce::remove_dead_nodes(q);
  reduce::tidy(q);
  if (q.count_nodes() == p.count_nodes() && p.body.yields == std::vector<int>{p.train->loss}) return std::nullopt;
  if (!verify(q).empty()) return std::nullopt;
  return q;
}

void explain_unread_values(Executor& ex, const Program& p, std::vector<Finding>& findings) {
  if (p.plan.world != 1) return;
  std::optional<Program> cut;
  bool tried = false;
  for (auto& f : findings) {
    // An output of a later step differs when a step before updated a param
    // with such a gradient.
    bool later_output = f.stage == "output" && p.train && p.train->steps > 1;
    if (f.oracle != "numeric" || f.flaky || (f.stage != "grad" && f.stage != "param" && !later_output)) continue;
    auto spec = parse_runner(f.test_runner);
    if (!spec || spec->worker() != WorkerKind::python) continue;
    if (!tried) cut = cut_to_the_loss(p), tried = true;
    if (!cut) return;
    std::vector<std::string> runners = {spec->reference(*cut), spec->fp64_reference(*cut), f.test_runner};
    auto r = ex.run(*cut, runners);
    const RunResult &ref = r.at(0), &fp64 = r.at(1), &test = r.at(2);
    if (!ref.ok() || !test.ok()) continue;
    if (check_numeric(ref, test, fp64.ok() ? &fp64 : nullptr, numeric_options_for(&*cut))) continue;
    if (later_output) {
      // One step: the outputs come before any update, so what differs is a
      // gradient or the param it updated, not an output.
      Program one = p;
      one.train->steps = 1;
      auto r1 = ex.run(one, runners);
      if (!r1.at(0).ok() || !r1.at(2).ok()) continue;
      auto f1 = check_numeric(r1.at(0), r1.at(2), r1.at(1).ok() ? &r1.at(1) : nullptr, numeric_options_for(&one));
      if (!f1 || (f1->stage != "grad" && f1->stage != "param")) continue;
    }
    f.first_op = kUnreadByTheLoss;
    f.first_op_detail =
        std::string(later_output ? "an output after a param update whose gradient is " : "") +
        "gone when the program is cut to what its loss reads: the gradient comes from values the loss does not read "
        "(AOTAutograd's zero tangents for unread outputs, pytorch#131794)";
  }
}

}  // namespace dlfuzz
