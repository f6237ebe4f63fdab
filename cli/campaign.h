// The `dlfuzz fuzz` campaign: lanes of generate -> run (isolated) -> judge ->
// store, a live progress line, a clean stop on Ctrl-C, and a summary.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "generator/corpus.h"
#include "generator/gen_policy.h"
#include "oracles/perf_oracle.h"

namespace dlfuzz {

struct CampaignOptions {
  double seconds = 0;    // 0: no time limit
  int64_t programs = 0;  // 0: no program limit (one of the two must be set)
  std::vector<std::string> runners;
  std::vector<int> worlds = {1};  // program i has worlds[i % size] ranks
  std::string backend = "gloo";   // their process groups: gloo or nccl
  bool rank_processes = false;    // Gloo ranks as processes (TCPStore), not threads
  std::string device = "cpu";     // where programs run: cpu or cuda
  int jobs = 1;
  // Programs per request to the PyTorch 2.x lane's worker, compiled as one
  // function where they can (Executor::prefetch); 1: each alone.
  int batch = 16;
  // With a time budget and runners of both kinds: the share of a core the
  // LibTorch lane keeps. It pauses between programs (native programs take
  // milliseconds, PyTorch 2.x's compiles seconds), and every lane but it runs
  // PyTorch 2.x, what users ship. 1: one PyTorch 2.x lane, the rest native,
  // none pausing.
  double native_share = 0.25;
  uint64_t seed = 1;
  std::string db = "dlfuzz.db";
  int timeout_ms = 30000;
  bool recheck = true;
  bool progress = true;
  // After the campaign, reduce each new bug (`dlfuzz reduce bug:ID`), this many
  // seconds each; 0: no reduction.
  double reduce_seconds = 0;
  // Findings reduced per new bug (its example and others with other
  // programs); a bug whose findings reduce to other op sets is split.
  int reduce_findings = 3;
  // Environments to run each runner on, oldest first, compared by the version
  // oracle (evaluate_versions); empty: the default environment only.
  std::vector<std::string> envs;
  // The timing oracle (oracles/perf_oracle.h): off unless --perf.
  bool perf = false;
  PerfOptions perf_options;
  // The generator's policy (--policy, --ops); world and collectives per world size.
  GenPolicy policy;
  std::string target = "auto";  // --target: auto writes the Python lanes' programs for torch2
  // Seed programs (--corpus DIR): a kCorpusShare of the programs are their
  // mutants (generator/corpus.h); empty: every program is generated.
  std::vector<CorpusEntry> corpus;
  // Runners also run on one PyTorch 2.x program in `every` (world 1, alone,
  // after the lane's runners): ones that see what the lane's do not at a
  // cost the campaign would not pay for every program (the default
  // campaign's fake-crossref: meta kernels against eager; inductor-freezing:
  // a compile of its own). Empty: none.
  struct Sampled {
    std::string runner;
    int every = 0;
  };
  std::vector<Sampled> sampled;
};

// Returns the exit code: 0 no findings, 1 findings, 2 usage or store error.
int run_campaign(const CampaignOptions& opt);

// Bug `id` of the store through `dlfuzz reduce bug:ID --db`, as its own
// process: the reduced .dlf at `out` (its .py and .md beside it), the store
// records the program. False when the finding did not reproduce.
bool reduce_bug(const std::string& db, int64_t id, double seconds, const std::string& out);
// The same for any stored target `dlfuzz reduce` takes: "bug:ID", "finding:ID".
bool reduce_stored(const std::string& db, const std::string& target, double seconds, const std::string& out);

// After the bug's example is reduced: up to `more` of its other findings
// (other programs) reduced alone into `dir` while go_on() says so, then the
// bug split where they reduce to unrelated op sets (triage/bug_split.h).
void reduce_more_findings(const std::string& db, int64_t bug, double seconds, int more, const std::string& dir,
                          const std::function<bool()>& go_on);

}  // namespace dlfuzz
