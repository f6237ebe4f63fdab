#include "cli/evaluate.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include "oracles/numeric_oracle.h"
#include "oracles/rank_oracle.h"
#include "oracles/status_oracle.h"

#ifndef DLFUZZ_SOURCE_DIR
#define DLFUZZ_SOURCE_DIR "."
#endif

namespace dlfuzz {

namespace {
std::optional<Finding> judge(const RunResult& ref, const RunResult* fp64, const RunResult& test) {
  if (auto f = check_status(ref, test)) return f;
  if (auto f = check_rank_consistency(test)) return f;
  return check_numeric(ref, test, fp64 && fp64->ok() ? fp64 : nullptr);
}
}  // namespace

ExecutorOptions default_executor_options() {
  ExecutorOptions o;
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  o.dlfuzz_binary = n > 0 ? std::string(buf, n) : "dlfuzz";
  std::string python = std::getenv("DLFUZZ_PYTHON") ? std::getenv("DLFUZZ_PYTHON") : "";
  if (python.empty() && std::filesystem::exists(std::string(DLFUZZ_SOURCE_DIR) + "/.venv/bin/python"))
    python = std::string(DLFUZZ_SOURCE_DIR) + "/.venv/bin/python";
  o.python = python;
  o.python_worker = std::string(DLFUZZ_SOURCE_DIR) + "/runners/python/worker.py";
  return o;
}

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
  for (const auto& t : wanted) {
    if (!runner_supports(t, p)) {
      ev.skipped.push_back(t);
      continue;
    }
    tests.push_back(t);
    for (const auto& ref : {reference_of(t, p), fp64_reference_of(t, p)})
      if (std::find(order.begin(), order.end(), ref) == order.end()) order.push_back(ref);
  }
  if (!tests.empty())
    for (const auto& ref : cross) order.push_back(ref);
  size_t n_refs = order.size();
  order.insert(order.end(), tests.begin(), tests.end());
  if (tests.empty()) return ev;
  ev.results = ex.run(p, order);
  std::map<std::string, const RunResult*> by_name;
  for (const auto& r : ev.results) by_name.emplace(r.runner, &r);
  std::set<std::string> versions;
  for (const auto& r : ev.results)
    if (!r.versions.empty()) versions.insert(r.versions);
  for (const auto& v : versions) ev.versions += (ev.versions.empty() ? "" : "; ") + v;
  for (size_t i = 0; i < n_refs; ++i)
    if (!ev.results[i].ok() && ev.results[i].runner == reference_of(ev.results[i].runner, p))
      ev.reference_failures.push_back(ev.results[i].runner + ": " + ev.results[i].error.substr(0, 200));
  for (size_t i = n_refs; i < ev.results.size(); ++i) {
    const RunResult& test = ev.results[i];
    const RunResult* ref = by_name[reference_of(test.runner, p)];
    const RunResult* fp64 = by_name[fp64_reference_of(test.runner, p)];
    if (!ref || !ref->ok()) continue;  // the program is invalid for this PyTorch, not a finding
    auto f = judge(*ref, fp64, test);
    if (!f && !cross.empty()) {  // same device agrees: then CPU eager, arbitrated in float64
      ref = by_name[cross[0]], fp64 = by_name[cross[1]];
      if (ref && ref->ok()) f = judge(*ref, fp64, test);
    }
    if (!f) continue;
    if (recheck) {
      // The reference reruns too: a reference that reads uninitialised memory
      // (LibTorch 1.13's baddbmm with beta=0) differs between runs, and that
      // finding is flaky, not the test runner's bug.
      auto again = ex.run(p, {ref->runner, test.runner});
      const RunResult& ref2 = again.at(0).ok() ? again.at(0) : *ref;
      auto f2 = judge(ref2, fp64, again.at(1));
      if (!f2 || f2->signature() != f->signature()) f->flaky = true;
    }
    ev.findings.push_back(*f);
  }
  return ev;
}

}  // namespace dlfuzz
