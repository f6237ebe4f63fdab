// dlfuzz's reducer against plain ddmin over nodes, on the same findings, side
// by side: oracle queries, wall time, final size, signature drift.
//   build/bench/bench_reduce DB [MAX_BUGS] [MAX_SECONDS_EACH]
// DB is a campaign's bug store. "Plain ddmin" is the classic minimizer: ddmin
// over the node list only (no fan-in cut, no other passes), interesting while
// the runner under test still shows *a* finding (any signature) — drift is
// counted when its result no longer shows the original signature.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>

#include "generator/dlf.h"
#include "oracles/evaluate.h"
#include "reducers/delta.h"
#include "triage/store.h"

using namespace dlfuzz;

namespace {
struct Row {
  int queries = 0, nodes = 0;
  double seconds = 0;
  bool drift = false;
};

bool shows(Executor& ex, const Program& p, const std::string& runner, const std::string& signature) {
  Evaluation ev = evaluate(ex, p, {runner}, false);
  for (const auto& f : ev.findings)
    if (signature.empty() || f.signature() == signature) return true;
  return false;
}

Row reduce_with(Executor& ex, const Program& p, const std::string& runner, const std::string& sig, bool ours,
                double max_seconds) {
  ReduceOptions opt;
  opt.max_time_seconds = max_seconds;
  if (!ours) {
    opt.passes = {"nodes"};
    opt.fan_in = false;
  }
  ReduceStats s;
  std::string want = ours ? sig : "";  // plain ddmin accepts any finding
  Program out = reduce_program(
      p, [&](const Program& c) { return !c.body.yields.empty() && shows(ex, c, runner, want); }, opt, &s);
  Row r;
  r.queries = s.queries;
  r.seconds = s.seconds;
  r.nodes = s.final_nodes;
  r.drift = !shows(ex, out, runner, sig);
  return r;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: bench_reduce DB [MAX_BUGS] [MAX_SECONDS_EACH]\n";
    return 2;
  }
  int max_bugs = argc > 2 ? std::atoi(argv[2]) : 1000;
  double max_seconds = argc > 3 ? std::atof(argv[3]) : 60;
  Store store(argv[1]);
  ExecutorOptions eo = default_executor_options();
  eo.dlfuzz_binary = DLFUZZ_BINARY;
  eo.timeout_ms = 30000;
  Executor ex(eo);
  auto st = store.db().prepare(
      "SELECT b.id, b.signature, p.text, (SELECT test_runner FROM findings WHERE bug_id = b.id LIMIT 1) "
      "FROM bugs b JOIN programs p ON p.hash = b.example_program ORDER BY b.id");
  std::cout << "| bug | runner | start nodes | ours: queries | ours: s | ours: nodes | ours: drift | ddmin: queries | "
               "ddmin: s | ddmin: nodes | ddmin: drift |\n|---|---|---|---|---|---|---|---|---|---|---|\n";
  int n = 0;
  Row tot_a, tot_b;
  int drift_a = 0, drift_b = 0;
  std::vector<int> sizes_a, sizes_b;
  while (st.step() && n < max_bugs) {
    std::string runner = st.column_text(3);
    if (runner_spec(runner).worker() == WorkerKind::python)
      continue;  // seconds per query: left to the note's separate runs
    ParseResult pr = parse_program(st.column_text(2));
    if (!pr.ok()) continue;
    std::string sig = st.column_text(1);
    if (!shows(ex, pr.program, runner, sig)) continue;  // flaky: not reproducible now
    Row a = reduce_with(ex, pr.program, runner, sig, true, max_seconds);
    Row b = reduce_with(ex, pr.program, runner, sig, false, max_seconds);
    std::cout << fmt::format("| {} | {} | {} | {} | {:.1f} | {} | {} | {} | {:.1f} | {} | {} |\n", st.column_int(0),
                             runner, pr.program.count_nodes(), a.queries, a.seconds, a.nodes, a.drift ? "yes" : "no",
                             b.queries, b.seconds, b.nodes, b.drift ? "yes" : "no")
              << std::flush;
    tot_a.queries += a.queries, tot_a.seconds += a.seconds, drift_a += a.drift, sizes_a.push_back(a.nodes);
    tot_b.queries += b.queries, tot_b.seconds += b.seconds, drift_b += b.drift, sizes_b.push_back(b.nodes);
    ++n;
  }
  auto median = [](std::vector<int> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  std::cout << fmt::format(
      "\n{} bugs. ours: {} queries, {:.1f} s, median {} nodes, {} drifted. "
      "plain ddmin: {} queries, {:.1f} s, median {} nodes, {} drifted.\n",
      n, tot_a.queries, tot_a.seconds, median(sizes_a), drift_a, tot_b.queries, tot_b.seconds, median(sizes_b),
      drift_b);
  return 0;
}
