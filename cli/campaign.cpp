#include "cli/campaign.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <set>
#include <thread>

#include "cli/lanes.h"
#include "cli/policy_options.h"
#include "cli/python_env_check.h"
#include "generator/dlf.h"
#include "generator/generator.h"
#include "oracles/evaluate.h"
#include "reducers/subprocess.h"
#include "runners/runner.h"
#include "triage/bug_split.h"
#include "triage/store.h"

namespace dlfuzz {

namespace {
std::atomic<bool> g_stop{false};
std::atomic<bool> g_native_done{false};  // the Python lane follows the native lanes
void on_signal(int) { g_stop = true; }

struct Shared {
  std::mutex mu;  // guards the store and the counters below
  Store* store;
  int64_t campaign;
  int64_t programs = 0, findings = 0, invalid = 0, flaky = 0, python_programs = 0, mutants = 0;
  std::set<int64_t> bugs, new_bugs;
  std::map<std::string, int64_t> reference_errors;
  std::map<std::string, int> perf_confirmed;  // by confirmation_key
  // What the timing oracle cost: stage-1 candidates, those confirmed in fresh
  // workers or not, those skipped (their kind confirmed often enough), and
  // the seconds spent on candidates (stage 1's second look included).
  int64_t perf_candidates = 0, perf_timed = 0, perf_found = 0, perf_skipped = 0;
  double perf_seconds = 0;
  // Where the lanes' seconds went: whole batches (prefetch), and programs
  // evaluated alone: a batch's finding judged again with recheck and
  // attribution, or a program that never joined a batch.
  double batch_seconds = 0, alone_seconds = 0;
  int64_t batches = 0, judged_alone = 0;
  // CampaignOptions::sampled, per runner: the programs it ran and its seconds.
  std::map<std::string, std::pair<int64_t, double>> sampled;
  std::string store_error;  // the store could not be written (disk full, read-only): the campaign stops
};

// Exit code of a campaign stopped because its store could not be written
// (README: exit codes); what it committed before stays readable.
constexpr int kExitStoreFailed = 3;  // cli::kExitCannotWrite

using Clock = std::chrono::steady_clock;

// One lane: its own executor (workers) and its own stream of seeds. A lane
// counts the campaign's programs (the native lanes, or the Python lane when it
// is alone) and, running PyTorch 2.x's runners, the programs through them.
// A lane that keeps `share` of a core waits after each program (pause_after),
// cut short by the deadline or a stop.
void pause_for_share(double share, Clock::duration busy, Clock::time_point deadline) {
  double secs = pause_after(std::chrono::duration<double>(busy).count(), share);
  if (secs <= 0) return;
  auto until = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(secs));
  while (!g_stop && Clock::now() < std::min(until, deadline)) std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

void lane(const CampaignOptions& opt, const std::vector<std::string>& runners, bool counts_programs, bool python_lane,
          std::atomic<int64_t>& next_index, Shared& sh, Clock::time_point deadline, double share = 1) {
  ExecutorOptions eo = default_executor_options();
  eo.timeout_ms = opt.timeout_ms;
  eo.backend = opt.backend;
  eo.rank_processes = opt.rank_processes;
  if (opt.perf) eo.timed_calls = opt.perf_options.timed_calls;
  Executor ex(eo);
  // --target torch2 writes ops and dtypes LibTorch 1.13 lacks (view(dtype),
  // uint16, rms_norm): the C++ runners of a 1.13 build keep torch1.13
  // programs, as under auto (given torch2 programs, ts, ts-nnc, ts-legacy and
  // frozen stored "exception at compile" for 4% of a campaign's programs).
  bool native_on_113 = !python_lane && torch_version_string().rfind("torch 1.", 0) == 0;
  GenPolicy base =
      cli::with_target(opt.policy, native_on_113 && opt.target == "torch2" ? "auto" : opt.target, python_lane);
  base.device = opt.device;
  // The PyTorch 2.x lane takes `batch` programs at a time and runs their
  // compiled runners as one function; a finding from such a batch is judged
  // again on its program alone, which says whether it is that program's.
  // With --perf, programs run alone: a batch's call time is not one program's.
  int batch = python_lane && opt.envs.empty() && !opt.perf ? std::max(1, opt.batch) : 1;
  std::deque<std::pair<int64_t, CampaignProgram>> queue;
  Clock::duration last_busy{0};
  while (!g_stop) {
    pause_for_share(share, last_busy, deadline);
    // At the deadline a batch already run is still judged (its results are
    // here; only a finding would need more runs, and such a program is left).
    const bool past_deadline = opt.seconds > 0 && Clock::now() >= deadline;
    if (past_deadline && (queue.empty() || !ex.prefetched(queue.front().second.program))) break;
    if (!counts_programs && g_native_done) break;
    if (queue.empty()) {
      std::vector<Program> programs;
      for (int k = 0; k < batch; ++k) {
        int64_t i = next_index++;
        if (opt.programs > 0 && i >= opt.programs) break;
        uint64_t seed = opt.seed + static_cast<uint64_t>(i);
        queue.emplace_back(i, campaign_program(base, opt.worlds[i % opt.worlds.size()], opt.corpus, seed));
        programs.push_back(queue.back().second.program);
      }
      if (queue.empty()) break;
      if (programs.size() > 1) {
        const auto prefetch_began = Clock::now();
        ex.prefetch(programs, runners);
        std::lock_guard<std::mutex> lock(sh.mu);
        sh.batch_seconds += std::chrono::duration<double>(Clock::now() - prefetch_began).count();
        ++sh.batches;
      }
    }
    const auto began = Clock::now();
    Program p = std::move(queue.front().second.program);
    std::string origin = std::move(queue.front().second.origin);
    uint64_t seed = opt.seed + static_cast<uint64_t>(queue.front().first);
    queue.pop_front();
    Evaluation ev;
    bool alone = true;
    auto alone_began = Clock::now();
    if (!opt.envs.empty()) {
      ev = evaluate_versions(ex, p, runners, opt.envs, opt.recheck);
    } else if (ex.prefetched(p)) {
      ev = evaluate(ex, p, runners, false);
      ex.forget(p);
      alone = !ev.findings.empty();
      if (alone && past_deadline) continue;
      alone_began = Clock::now();
      if (alone) ev = evaluate(ex, p, runners, opt.recheck);
    } else {
      ev = evaluate(ex, p, runners, opt.recheck);
    }
    if (python_lane && alone) {
      std::lock_guard<std::mutex> lock(sh.mu);
      sh.alone_seconds += std::chrono::duration<double>(Clock::now() - alone_began).count();
      ++sh.judged_alone;
    }
    for (const auto& s : opt.sampled) {
      if (!python_lane || p.plan.world != 1 || (seed - opt.seed) % s.every != 0 || !ev.reference_failures.empty())
        continue;
      const auto sampled_began = Clock::now();
      Evaluation side = evaluate(ex, p, {s.runner}, opt.recheck);
      ev.findings.insert(ev.findings.end(), side.findings.begin(), side.findings.end());
      if (side.results.empty()) continue;  // not a program it takes (inductor-freezing: inference only)
      std::lock_guard<std::mutex> lock(sh.mu);
      auto& [programs, seconds] = sh.sampled[s.runner];
      ++programs;
      seconds += std::chrono::duration<double>(Clock::now() - sampled_began).count();
    }
    if (opt.perf) {
      // Confirming costs two fresh workers: a runner's kind of slowness seen
      // confirmed often enough is not confirmed again (its bug has examples).
      auto wanted = [&](const PerfCandidate& c) {
        std::lock_guard<std::mutex> lock(sh.mu);
        ++sh.perf_candidates;
        bool want = sh.perf_confirmed[confirmation_key(c)] < opt.perf_options.max_confirmations;
        ++(want ? sh.perf_timed : sh.perf_skipped);
        return want;
      };
      const auto perf_began = Clock::now();
      auto found = performance_findings(eo, p, ev.results, opt.perf_options, wanted, &ex);
      std::lock_guard<std::mutex> lock(sh.mu);
      sh.perf_seconds += std::chrono::duration<double>(Clock::now() - perf_began).count();
      for (auto& f : found) {
        ++sh.perf_confirmed[confirmation_key(f)];
        ++sh.perf_found;
        ev.findings.push_back(f);
      }
    }
    last_busy = Clock::now() - began;
    std::lock_guard<std::mutex> lock(sh.mu);
    if (counts_programs) ++sh.programs;
    if (counts_programs && !origin.empty()) ++sh.mutants;
    if (python_lane) ++sh.python_programs;
    if (ev.findings.empty() && ev.reference_failures.empty()) continue;
    try {
      // A mutant's stored text says which corpus program it came from.
      std::string text = origin.empty() ? print_program(p) : "# mutant of " + origin + "\n" + print_program(p);
      for (const auto& e : ev.reference_failures) {
        ++sh.invalid;
        std::string reason = normalize_error(e.error);
        sh.reference_errors[e.runner + ": " + reason]++;
        sh.store->add_rejection(e.runner, reason, text, seed, p.count_nodes());
      }
      if (ev.findings.empty()) continue;
      std::string hash = sh.store->add_program(text, seed, p.count_nodes());
      for (const auto& f : ev.findings) {
        bool is_new = false;
        int64_t bug = sh.store->add_finding(sh.campaign, hash, f, ev.versions, &is_new);
        ++sh.findings;
        sh.flaky += f.flaky;
        sh.bugs.insert(bug);
        if (is_new) sh.new_bugs.insert(bug);
      }
    } catch (const StoreError& e) {
      if (sh.store_error.empty()) sh.store_error = e.what();
      g_stop = true;
    }
  }
}
// Each new bug reduced into DB.reduced/: its example, then up to
// reduce_findings - 1 more of its findings (reduce_more_findings).
void reduce_new_bugs(const CampaignOptions& opt, const std::set<int64_t>& bugs) {
  std::string dir = opt.db + ".reduced";
  std::filesystem::create_directories(dir);
  for (int64_t id : bugs) {
    if (g_stop) break;
    std::string out = fmt::format("{}/bug{}.dlf", dir, id);
    bool ok = reduce_bug(opt.db, id, opt.reduce_seconds, out);
    std::cout << fmt::format("  reduce bug {}: {}\n", id, ok ? out : "did not reproduce (flaky?)") << std::flush;
    if (ok && opt.reduce_findings > 1)
      reduce_more_findings(opt.db, id, opt.reduce_seconds, opt.reduce_findings - 1, dir, [] { return !g_stop; });
  }
}
}  // namespace

bool reduce_stored(const std::string& db, const std::string& target, double seconds, const std::string& out) {
  std::string exe = default_executor_options().dlfuzz_binary;
  return run_argv({exe, "reduce", target, "--db", db, "--max-time", fmt::format("{}", seconds), "-o", out},
                  ChildOutput::no_stderr) == 0;
}

bool reduce_bug(const std::string& db, int64_t id, double seconds, const std::string& out) {
  return reduce_stored(db, fmt::format("bug:{}", id), seconds, out);
}

void reduce_more_findings(const std::string& db, int64_t bug, double seconds, int more, const std::string& dir,
                          const std::function<bool()>& go_on) {
  try {
    Store store(db);
    for (int64_t f : findings_to_reduce(store, bug, more)) {
      if (!go_on()) break;
      std::string out = fmt::format("{}/finding{}.dlf", dir, f);
      bool ok = reduce_stored(db, fmt::format("finding:{}", f), seconds, out);
      std::cout << fmt::format("    its finding {}: {}\n", f, ok ? out : "did not reproduce") << std::flush;
    }
    for (int64_t split : split_by_reduced_ops(store, bug))
      std::cout << fmt::format("    bug {} split off: findings of bug {} that reduce to unrelated ops\n", split, bug);
  } catch (const StoreError& e) {
    std::cout << fmt::format("    bug {}: its findings not reduced: {}\n", bug, e.what());
  }
}

int run_campaign(const CampaignOptions& opt) {
  std::unique_ptr<Store> store;
  try {
    store = std::make_unique<Store>(opt.db);
  } catch (const StoreReadOnly& e) {
    std::cerr << "dlfuzz fuzz: cannot write the store: " << e.what() << "\n";
    return kExitStoreFailed;
  } catch (const StoreError& e) {
    std::cerr << "dlfuzz fuzz: " << e.what() << "\n";
    return 2;
  }
  std::vector<std::string> native, python;
  for (const auto& r : opt.runners) (runner_spec(r).worker() == WorkerKind::python ? python : native).push_back(r);
  ExecutorOptions eo = default_executor_options();
  if (!python.empty() && eo.python.empty()) {
    std::cerr << "dlfuzz fuzz: runners " << fmt::format("{}", fmt::join(python, ","))
              << " need PyTorch 2.x: no .venv/bin/python (run scripts/setup.sh) and no $DLFUZZ_PYTHON\n";
    return 2;
  }
  nlohmann::json config = {{"runners", opt.runners}, {"jobs", opt.jobs},         {"seed", opt.seed},
                           {"seconds", opt.seconds}, {"programs", opt.programs}, {"timeout_ms", opt.timeout_ms}};
  if (!opt.envs.empty()) config["envs"] = opt.envs;
  if (opt.perf) config["perf_threshold"] = opt.perf_options.threshold;
  if (!opt.corpus.empty()) config["corpus_programs"] = opt.corpus.size();
  // What Inductor gets in a plain process of this install: stored with the
  // campaign, its warnings printed before and after.
  nlohmann::json python_env = nlohmann::json::object();
  if (!python.empty()) {
    python_env = cli::check_python_env(eo);
    config["python_environment"] = python_env;
    if (python_env.contains("error"))
      std::cerr << "dlfuzz fuzz: the environment check did not run: " << python_env["error"].get<std::string>() << "\n";
    for (const auto& w : python_env.value("warnings", nlohmann::json::array()))
      std::cerr << "dlfuzz fuzz: warning: " << w.get<std::string>() << "\n";
  }
  Shared sh;
  sh.store = store.get();
  try {
    sh.campaign = store->begin_campaign(config.dump(), "");
  } catch (const StoreError& e) {
    std::cerr << "dlfuzz fuzz: cannot write the store: " << e.what() << "\n";
    return kExitStoreFailed;
  }
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);

  auto start = Clock::now();
  auto deadline = start + std::chrono::milliseconds(static_cast<int64_t>(opt.seconds * 1000));
  // Native runners take the programs; PyTorch 2.x's compilers, seconds per
  // program, get lanes of their own over the same seeds (cli/lanes.h).
  const LaneSplit split = split_lanes(!native.empty(), !python.empty(), opt.jobs, opt.seconds > 0, opt.native_share);
  const int python_lanes = split.python, native_lanes = split.native;
  std::atomic<int64_t> native_next{0}, python_next{0};
  std::atomic<int> lanes_done{0};
  std::vector<std::thread> threads;
  auto start_lane = [&](const std::vector<std::string>& runners, bool counts, std::atomic<int64_t>& next) {
    threads.emplace_back([&, counts] {
      lane(opt, runners, counts, true, next, sh, deadline);
      ++lanes_done;
    });
  };
  std::atomic<int> native_running{native_lanes};
  for (int i = 0; i < native_lanes; ++i)
    threads.emplace_back([&] {
      lane(opt, native, true, false, native_next, sh, deadline, split.native_share);
      if (--native_running == 0) g_native_done = true;
      ++lanes_done;
    });
  for (int i = 0; i < python_lanes; ++i) start_lane(python, native_lanes == 0, python_next);

  std::thread progress([&] {
    auto last_sample = Clock::now();
    while (lanes_done < static_cast<int>(threads.size())) {
      {
        std::lock_guard<std::mutex> lock(sh.mu);
        double secs = std::chrono::duration<double>(Clock::now() - start).count();
        if (opt.progress)
          std::cerr << fmt::format("\r[{:6.0f}s] {} programs ({:.1f}/s){} | {} findings, {} unique bugs ({} new)   ",
                                   secs, sh.programs, sh.programs / std::max(secs, 1e-9),
                                   python.empty() ? "" : fmt::format(", {} through PyTorch 2.x", sh.python_programs),
                                   sh.findings, sh.bugs.size(), sh.new_bugs.size())
                    << std::flush;
        if (Clock::now() - last_sample > std::chrono::seconds(10) && sh.store_error.empty()) {
          try {
            store->sample_throughput(sh.campaign, sh.programs, sh.findings, sh.bugs.size(), sample_resources(opt.db));
          } catch (const StoreError& e) {
            sh.store_error = e.what();
            g_stop = true;
          }
          last_sample = Clock::now();
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
  });
  for (auto& t : threads) t.join();
  progress.join();
  double secs = std::chrono::duration<double>(Clock::now() - start).count();
  if (sh.store_error.empty()) {
    try {
      store->sample_throughput(sh.campaign, sh.programs, sh.findings, sh.bugs.size(), sample_resources(opt.db));
      store->end_campaign(sh.campaign, sh.programs, sh.findings);
    } catch (const StoreError& e) {
      sh.store_error = e.what();
    }
  }
  if (!sh.store_error.empty()) {
    std::cerr << fmt::format(
        "\ndlfuzz fuzz: stopped after {} programs: cannot write the store (disk full? not writable?): {}\n"
        "  the {} findings committed before are kept in {}\n",
        sh.programs, sh.store_error, sh.findings, opt.db);
    return kExitStoreFailed;
  }

  std::cerr << "\n";
  std::cout << fmt::format("dlfuzz fuzz: {} programs in {:.0f} s ({:.1f}/s), runners {}\n", sh.programs, secs,
                           sh.programs / std::max(secs, 1e-9), fmt::join(opt.runners, ","));
  if (!python.empty()) {
    std::cout << fmt::format("  {} of them through PyTorch 2.x's compilers\n", sh.python_programs);
    if (sh.batches)
      std::cout << fmt::format(
          "  PyTorch 2.x lanes: {:.0f} s in {} batches, {:.0f} s on {} programs alone (a "
          "batch's finding judged again, or a program that joins no batch)\n",
          sh.batch_seconds, sh.batches, sh.alone_seconds, sh.judged_alone);
    for (const auto& s : opt.sampled)
      if (auto it = sh.sampled.find(s.runner); it != sh.sampled.end())
        std::cout << fmt::format("  {} on {} of them (one in {}, the ones it takes): {:.0f} s\n", s.runner,
                                 it->second.first, s.every, it->second.second);
  }
  for (const auto& w : python_env.value("warnings", nlohmann::json::array()))
    std::cout << "  environment: " << w.get<std::string>() << "\n";
  if (!opt.corpus.empty())
    std::cout << fmt::format("  {} of them mutants of the {} corpus programs\n", sh.mutants, opt.corpus.size());
  std::cout << fmt::format("  {} findings ({} flaky), {} unique bugs, {} new to {}\n", sh.findings, sh.flaky,
                           sh.bugs.size(), sh.new_bugs.size(), opt.db);
  if (sh.invalid) {
    std::cout << fmt::format(
        "  {} programs the eager reference itself rejected (generator gaps, or bugs of eager: `dlfuzz triage "
        "rejected --db {}` lists the reasons, each with a program)\n",
        sh.invalid, opt.db);
    // The most common reasons, so a gap (or a broken device) shows at once.
    std::vector<std::pair<int64_t, std::string>> reasons;
    for (const auto& [error, n] : sh.reference_errors) reasons.emplace_back(n, error);
    std::sort(reasons.begin(), reasons.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    for (size_t i = 0; i < std::min<size_t>(reasons.size(), 5); ++i)
      std::cout << fmt::format("    x{:<5} {}\n", reasons[i].first, reasons[i].second.substr(0, 160));
  }
  if (opt.perf)
    std::cout << fmt::format(
        "  timings: {} candidates after stage 1, {} timed in fresh workers ({} confirmed), {} skipped (their kind "
        "confirmed {} times already); {:.0f} s of the lanes' time on candidates\n",
        sh.perf_candidates, sh.perf_timed, sh.perf_found, sh.perf_skipped, opt.perf_options.max_confirmations,
        sh.perf_seconds);
  for (const auto& b : store->bugs())
    if (sh.bugs.count(b.id))
      std::cout << fmt::format("  bug {:>4} x{:<4} {}{}\n", b.id, b.hits, b.title,
                               sh.new_bugs.count(b.id) ? "  [new]" : "");
  if (sh.bugs.size())
    std::cout << fmt::format(
        "  replay one: sqlite3 {} \"SELECT text FROM programs WHERE hash=(SELECT example_program "
        "FROM bugs WHERE id=N)\" > bug.dlf && dlfuzz run bug.dlf --runners <runner>\n",
        opt.db);
  if (opt.reduce_seconds > 0 && !sh.new_bugs.empty()) reduce_new_bugs(opt, sh.new_bugs);
  return sh.findings ? 1 : 0;
}

}  // namespace dlfuzz
