#include "oracles/evaluate.h"

#include <algorithm>
#include <map>
#include <set>

#include "oracles/first_divergence.h"
#include "oracles/ill_conditioned.h"
#include "oracles/layer_ladder.h"
#include "oracles/precision_casts.h"
#include "oracles/unread_values.h"
#include "reducers/rewrite.h"

namespace dlfuzz {

namespace {
void add_once(std::vector<std::string>& v, const std::string& s) {
  if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
}
}  // namespace

Evaluation evaluate(Executor& ex, const Program& p, const std::vector<std::string>& test_runners, bool recheck) {
  Evaluation ev;
  std::vector<std::string> order, tests, wanted = test_runners;
  // Over several ranks, eager itself is under test too: its ranks against its
  // one-process run (distributed equivalence) and against each other.
  // On cuda, CUDA eager is under test too: against CPU eager.
  std::vector<std::string> cross = cross_device_references(p);
  if ((p.plan.has_one_process_reference() || !cross.empty()) &&
      std::find(wanted.begin(), wanted.end(), "eager") == wanted.end())
    wanted.insert(wanted.begin(), "eager");
  std::map<std::string, RunnerSpec> specs;
  for (const auto& t : wanted) {
    auto spec = parse_runner(t);
    if (!spec || !spec->supports(p)) {
      ev.skipped.push_back(t);
      continue;
    }
    specs.emplace(t, *spec);
    tests.push_back(t);
    add_once(order, spec->reference(p));
    add_once(order, spec->fp64_reference(p));
  }
  if (tests.empty()) return ev;
  for (const auto& ref : cross) order.push_back(ref);
  size_t n_refs = order.size();
  order.insert(order.end(), tests.begin(), tests.end());
  ev.results = ex.run(p, order);
  std::map<std::string, const RunResult*> by_name;
  for (const auto& r : ev.results) by_name.emplace(r.runner, &r);
  std::set<std::string> versions;
  for (const auto& r : ev.results)
    if (!r.versions.empty()) versions.insert(r.versions);
  for (const auto& v : versions) ev.versions += (ev.versions.empty() ? "" : "; ") + v;
  // A reference that failed (not its float64 twin, not a cross-device one).
  for (size_t i = 0; i < n_refs; ++i) {
    const RunResult& r = ev.results[i];
    auto spec = parse_runner(r.runner);
    if (!r.ok() && spec && r.runner == spec->reference(p))
      ev.reference_failures.push_back({r.runner, r.error.substr(0, 200)});
  }
  for (size_t i = n_refs; i < ev.results.size(); ++i) {
    const RunResult& test = ev.results[i];
    const RunnerSpec& spec = specs.at(test.runner);
    const RunResult* ref = by_name[spec.reference(p)];
    const RunResult* fp64 = by_name[spec.fp64_reference(p)];
    // A program the reference rejects is invalid for this PyTorch: only the
    // accepts-invalid oracle judges it; a reference that crashed or hung, none.
    if (!ref || (!ref->ok() && ref->status != RunStatus::exception)) continue;
    auto f = judge(*ref, fp64, test, &p);
    if (!f && ref->ok() && !cross.empty()) {  // same device agrees: then CPU eager, arbitrated in float64
      ref = by_name[cross[0]], fp64 = by_name[cross[1]];
      if (ref && ref->ok()) f = judge(*ref, fp64, test, &p);
    }
    if (!f) continue;
    // Eager may reject only dead code, which a compiler is free to drop
    // (TorchScript and Inductor eliminate it): accepts-invalid counts only when
    // eager rejects the program without its dead nodes too.
    if (f->oracle == "accepts") {
      Program live = p;
      reduce::remove_dead_nodes(live);
      reduce::tidy(live);
      auto live_ref = ex.run(live, {ref->runner});
      if (live_ref.at(0).ok()) continue;
    }
    if (recheck) {
      // The reference reruns too: a reference that reads uninitialised memory
      // (LibTorch 1.13's baddbmm with beta=0) differs between runs, and that
      // finding is flaky, not the test runner's bug.
      auto again = ex.run(p, {ref->runner, test.runner});
      const RunResult& ref2 = again.at(0).ok() ? again.at(0) : *ref;
      auto f2 = judge(ref2, fp64, again.at(1), &p);
      if (!f2 || f2->signature() != f->signature()) f->flaky = true;
    }
    ev.findings.push_back(*f);
  }
  // A finding worth rechecking is worth attributing; the reducer's candidates
  // (no recheck) are compared by signature only.
  if (recheck) {
    attribute_layers(ex, p, ev.findings);
    explain_unread_values(ex, p, ev.findings);
    explain_precision_casts(ex, p, ev.findings);
    explain_ill_conditioning(ex, p, ev.results, ev.findings);
    locate_first_divergence(ex, p, ev.findings);
  }
  return ev;
}

Evaluation evaluate_versions(Executor& ex, const Program& p, const std::vector<std::string>& test_runners,
                             const std::vector<std::string>& envs, bool recheck) {
  // runner -> its name on each environment ("" where it cannot run there)
  std::vector<std::vector<std::string>> names;
  std::vector<std::string> all;
  for (const auto& t : test_runners) {
    names.emplace_back();
    for (const auto& e : envs) {
      std::string n = t + "@" + e;
      names.back().push_back(parse_runner(n) ? n : "");
      if (!names.back().back().empty()) all.push_back(n);
    }
  }
  Evaluation ev = evaluate(ex, p, all, recheck);
  std::map<std::string, const RunResult*> by_name;
  for (const auto& r : ev.results) by_name.emplace(r.runner, &r);
  auto side = [&](const std::string& n) {
    VersionSide s;
    s.runner = n;
    RunnerSpec spec = runner_spec(n);
    const RunResult* ref = by_name[spec.reference(p)];
    const RunResult* test = by_name[n];
    s.reference_ok = ref && ref->ok() && test;
    s.version = ref ? ref->versions : "";
    for (const auto& f : ev.findings)
      if (f.test_runner == n) s.finding = &f;
    return s;
  };
  // A side that showed nothing may still show the finding on another run (a
  // crash that depends on the heap, a racy kernel): with recheck, that side is
  // run again, and if the other side's finding shows there too, the two
  // versions do not differ.
  auto clean_side_shows_it = [&](const VersionSide& clean, const Finding& f) {
    Evaluation again = evaluate(ex, p, {clean.runner}, false);
    for (const auto& g : again.findings)
      if (signature_without_runners(g.signature()) == signature_without_runners(f.signature())) return true;
    return false;
  };
  std::vector<Finding> version_findings;
  for (const auto& per_env : names)
    for (size_t i = 0; i + 1 < per_env.size(); ++i) {
      if (per_env[i].empty() || per_env[i + 1].empty()) continue;
      VersionSide older = side(per_env[i]), newer = side(per_env[i + 1]);
      auto f = check_version(older, newer);
      if (!f) continue;
      bool newer_bad = newer.finding != nullptr;
      const VersionSide& clean = newer_bad ? older : newer;
      const Finding& shown = newer_bad ? *newer.finding : *older.finding;
      if (recheck && clean_side_shows_it(clean, shown)) continue;
      version_findings.push_back(*f);
    }
  ev.findings.insert(ev.findings.end(), version_findings.begin(), version_findings.end());
  return ev;
}

}  // namespace dlfuzz
