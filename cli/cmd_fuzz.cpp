// dlfuzz fuzz [--time 10m | --programs N] [--runners ...] [--jobs J] [--seed S] [--db dlfuzz.db]
//             [--policy FILE] [--ops a,b] [--corpus DIR]
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>

#include "cli/campaign.h"
#include "cli/commands.h"
#include "cli/load.h"
#include "cli/options.h"
#include "cli/policy_options.h"
#include "oracles/evaluate.h"
#include "runners/executor.h"
#include "runners/runner.h"

namespace dlfuzz::cli {

const char* kDefaultFuzzRunners = "ts,ts-nnc,ts-legacy,frozen,static,inductor,aot-eager";
// With the default runners, one PyTorch 2.x program in 4 also runs through
// fake-crossref (meta kernels and decompositions against eager, ~0.25 s a
// program where a compile takes seconds): what torch.compile traces with.
// And one in 8 through inductor-freezing (CPU inference as deployed: a
// compile of its own, alone, where batching it beside inductor cost 40% of
// the PyTorch 2.x programs of a 4-minute campaign; inference programs only),
// and one in 16 through inductor-autotune (max-autotune's benchmarking of
// C++ GEMM templates takes 5-20 s where a program has a matmul it tunes),
// and one in 16 through inductor-ca (a training program's backward, its
// hooks included, compiled by Compiled Autograd: ~5 s a program), and one in
// 8 through inductor-knobs (four Inductor config knobs off their defaults: a
// compile of its own), one in 2 through vmap (the program under torch.func.vmap,
// ~0.2 s eagerly; about a quarter of inference programs are vmappable) and one
// in 8 through inductor-vmap (that compiled), one in 2 through jvp (forward-mode
// AD against reverse mode twice, eagerly: ~0.1 s) and one in 8 through
// inductor-jvp (the jvp call compiled), one in 4 through jacfwd (jvp
// under vmap over a batch of tangents, eagerly). jvp2 and inductor-jvp2
// (jvp of jvp) are not sampled by default until their cost in this
// campaign is measured (a first comparison was the cold first batch's
// variance: 2 or 15 programs through PyTorch 2.x in 2 minutes either way);
// ask for them with --sampled or --runners.
// And torch.export as deployment uses it, on inference programs: one in 8
// through export-decomp, export-serde and export-dynamic (~2 s each: export's
// tracing, its core ATen decompositions, the .pt2 round trip, symbolic sizes
// called at two batch sizes; no compile), one in 64 through aoti and one in
// 64 through aoti-dynamic (AOTInductor builds a package: ~17 s cold).
const char* kDefaultSampled =
    "fake-crossref:4,inductor-freezing:8,inductor-autotune:16,inductor-ca:16,inductor-knobs:8,vmap:2,inductor-vmap:8,"
    "jvp:2,inductor-jvp:8,jacfwd:4,export-decomp:8,export-serde:8,export-dynamic:8,aoti:64,aoti-dynamic:64";

void add_fuzz(CLI::App& app, std::function<int()>* action) {
  auto* cmd = app.add_subcommand("fuzz", "Run a fuzzing campaign; findings go to the SQLite store as they are found");
  struct Opts {
    std::string time, runners = kDefaultFuzzRunners, db = "dlfuzz.db", worlds = "1", backend = "gloo", device = "cpu",
                      ranks = "threads";
    int64_t programs = 0;
    int jobs = 2, timeout = 30, batch = 16;
    uint64_t seed = 1;
    bool no_progress = false, no_recheck = false;
    double reduce = 0;
    int reduce_findings = 3;
    std::string envs, policy, ops, corpus, target = "auto", sampled;
    bool perf = false;
    double perf_threshold = 0.10;
    double native_share = 0.25;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--time", o->time, "time budget: 90s, 10m, 2h");
  cmd->add_option("--programs", o->programs, "number of programs")->check(CLI::NonNegativeNumber);
  auto* runners_opt =
      cmd->add_option("--runners", o->runners,
                      "runners under test; references (eager, eager64, py-eager, py-eager64) are added as needed")
          ->capture_default_str();
  cmd->add_option("--jobs", o->jobs,
                  "parallel lanes (one is the PyTorch 2.x lane when its runners are chosen, all when only they are)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--batch", o->batch,
                  "programs a PyTorch 2.x lane compiles as one function (a finding is judged again on its program "
                  "alone); 1: each alone")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--native-share", o->native_share,
                  "with --time and runners of both kinds: the share of a core the LibTorch lane keeps (it pauses "
                  "between programs; every job runs PyTorch 2.x); 1: one PyTorch 2.x lane, no pauses")
      ->check(CLI::Range(0.01, 1.0))
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "first seed")->capture_default_str();
  cmd->add_option("--world", o->worlds, "ranks per program, e.g. 2,4: programs take the listed world sizes in turn")
      ->capture_default_str();
  add_rank_options(cmd, o->backend, o->ranks);
  cmd->add_option("--device", o->device, "where programs run: cpu or cuda (needs a CUDA LibTorch: DLFUZZ_TORCH=pip)")
      ->check(CLI::IsMember({"cpu", "cuda"}))
      ->capture_default_str();
  cmd->add_option("--db", o->db, "SQLite bug store")->capture_default_str();
  cmd->add_option("--timeout", o->timeout, "seconds one runner may take on one program")->capture_default_str();
  cmd->add_flag("--no-progress", o->no_progress, "no live progress line");
  cmd->add_flag("--no-recheck", o->no_recheck, "do not rerun findings to mark flaky ones");
  cmd->add_option("--envs", o->envs,
                  "run each runner on these environments, oldest first (`dlfuzz envs`), with the version oracle "
                  "comparing them: regressions and fixes between releases");
  cmd->add_option("--reduce", o->reduce,
                  "after the campaign, reduce each new bug for up to this many seconds (into DB.reduced/)");
  cmd->add_option("--reduce-findings", o->reduce_findings,
                  "with --reduce: findings reduced per new bug (its example and others of other programs); a bug "
                  "whose findings reduce to other op sets is split")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  cmd->add_option("--corpus", o->corpus,
                  "seed programs: every .dlf under DIR (recursively, e.g. corpus/); half the programs are mutants "
                  "of them, the rest generated");
  cmd->add_option("--sampled", o->sampled,
                  std::string("RUNNER:N[,RUNNER:N]: also run RUNNER on one PyTorch 2.x program in N, alone ") +
                      "(default with the default runners: " + kDefaultSampled + "; 'none': no runner)");
  add_perf_options(cmd, o->perf, o->perf_threshold);
  add_strict_options(cmd);
  add_policy_options(cmd, o->policy, o->ops, o->target);
  cmd->callback([o, action, runners_opt] {
    *action = [o, runners_opt]() -> int {
      CampaignOptions c;
      if (runners_opt->count() == 0) {
        // The defaults are what this installation has: `static` needs its
        // headers at build time, the PyTorch 2.x runners need .venv.
        bool python = !default_executor_options().python.empty();
        if (!python)
          std::cerr << "dlfuzz fuzz: no PyTorch 2.x in .venv (scripts/setup.sh installs it): fuzzing LibTorch only\n";
        std::vector<std::string> keep;
        for (const auto& name : CLI::detail::split(kDefaultFuzzRunners, ','))
          if (runner_spec(name).worker() == WorkerKind::python ? python : make_runner(name) != nullptr)
            keep.push_back(name);
        o->runners = fmt::format("{}", fmt::join(keep, ","));
        if (o->sampled.empty() && python) o->sampled = kDefaultSampled;
      }
      if (!o->sampled.empty() && o->sampled != "none") {
        for (const auto& item : CLI::detail::split(o->sampled, ',')) {
          auto colon = item.rfind(':');
          CampaignOptions::Sampled s{item.substr(0, colon), 0};
          try {
            s.every = colon == std::string::npos ? 0 : std::stoi(item.substr(colon + 1));
          } catch (const std::exception&) {
            s.every = 0;
          }
          if (s.every < 1 || !check_runner_names("fuzz", {s.runner})) {
            std::cerr << "dlfuzz fuzz: --sampled '" << item << "' is not RUNNER:N with a known runner and N >= 1\n";
            return kExitUsage;
          }
          c.sampled.push_back(s);
        }
      }
      if (!o->time.empty()) {
        c.seconds = parse_duration(o->time);
        if (c.seconds < 0) {
          std::cerr << "dlfuzz fuzz: --time '" << o->time << "' is not a duration (90s, 10m, 2h)\n";
          return kExitUsage;
        }
      }
      c.programs = o->programs;
      if (c.seconds <= 0 && c.programs <= 0) c.seconds = 60;
      c.runners = CLI::detail::split(o->runners, ',');
      if (!check_runner_names("fuzz", c.runners)) return kExitUsage;
      c.worlds = parse_worlds(o->worlds);
      if (c.worlds.empty()) {
        std::cerr << "dlfuzz fuzz: --world '" << o->worlds << "' is not a list of world sizes from 1 to 8\n";
        return kExitUsage;
      }
      c.backend = o->backend;
      c.rank_processes = o->ranks == "processes";
      c.device = o->device;
      c.jobs = o->jobs;
      c.batch = o->batch;
      c.native_share = o->native_share;
      c.seed = o->seed;
      c.db = o->db;
      c.timeout_ms = o->timeout * 1000;
      c.progress = !o->no_progress;
      c.recheck = !o->no_recheck;
      c.reduce_seconds = o->reduce;
      c.reduce_findings = o->reduce_findings;
      c.perf = o->perf;
      c.perf_options.threshold = o->perf_threshold;
      if (!o->envs.empty()) c.envs = CLI::detail::split(o->envs, ',');
      if (!check_env_names("fuzz", c.envs)) return kExitUsage;
      if (!read_policy("fuzz", o->policy, o->ops, c.policy)) return kExitUsage;
      c.target = o->target;
      if (!o->corpus.empty()) {
        // Before the store is opened: a malformed seed writes nothing.
        CorpusLoad corpus = load_corpus(o->corpus);
        if (!corpus.ok()) {
          std::cerr << "dlfuzz fuzz: --corpus: " << corpus.error << "\n";
          return kExitUsage;
        }
        c.corpus = std::move(corpus.entries);
      }
      return run_campaign(c);
    };
  });
}

}  // namespace dlfuzz::cli
