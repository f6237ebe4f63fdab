// dlfuzz reduce FILE [-o OUT] | reduce bug:ID --db DB | reduce finding:ID --db DB
// Shrinks a program while it shows the SAME finding signature as the original
// (oracle, runner pair, stage, normalized error), or while `--test CMD FILE`
// exits 0. Writes the reduced .dlf, its Python repro and a Markdown summary.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/campaign.h"
#include "cli/commands.h"
#include "oracles/oracle_table.h"
#include "cli/output_file.h"
#include "cli/load.h"
#include "generator/dlf.h"
#include "generator/emit.h"
#include "generator/summary.h"
#include "oracles/evaluate.h"
#include "oracles/perf_oracle.h"
#include "reducers/delta.h"
#include "reducers/pass.h"
#include "reducers/subprocess.h"
#include "runners/runner.h"
#include "triage/bug_split.h"
#include "triage/store.h"

namespace dlfuzz::cli {

namespace {
namespace fs = std::filesystem;

struct Opts {
  std::string target, out, db, test_cmd, runners, passes;
  double max_time = 300;
  int jobs = 1, timeout = 30;
  int findings = 1;  // bug:ID --findings K: K-1 more of its findings, and a split where they differ
  bool list_passes = false;
};

// The bug to reduce, from a file or from the store.
struct Target {
  Program program;
  std::string signature;  // "" with --test
  std::vector<std::string> runners;
  int64_t bug_id = -1;
  int64_t finding_id = -1;  // finding:ID
};

// bug:ID (its example finding) or finding:ID, from the store.
std::optional<Target> load_stored_target(const Opts& o) {
  Target t;
  Store store(o.db);
  const bool bug = o.target.rfind("bug:", 0) == 0;
  int64_t id = std::atoll(o.target.c_str() + (bug ? 4 : 8));
  auto st = store.db().prepare(
      bug ? "SELECT b.signature, p.text, f.test_runner FROM bugs b JOIN programs p ON p.hash = b.example_program "
            "JOIN findings f ON f.bug_id = b.id WHERE b.id = ? LIMIT 1"
          : "SELECT f.signature, p.text, f.test_runner FROM findings f JOIN programs p ON p.hash = f.program_hash "
            "WHERE f.id = ?");
  st.bind(1, id);
  if (!st.step()) {
    std::cerr << fmt::format("dlfuzz reduce: no {} {} in {}\n", bug ? "bug" : "finding", id, o.db);
    return std::nullopt;
  }
  (bug ? t.bug_id : t.finding_id) = id;
  t.signature = base_signature(st.column_text(0));  // candidates are judged without the ladder
  if (t.signature.rfind("signed-zero|", 0) == 0) oracle_settings().strict_zeros = true;
  ParseResult r = parse_program(st.column_text(1), o.target);
  if (!r.ok()) {
    std::cerr << "dlfuzz reduce: " << r.error->str() << "\n";
    return std::nullopt;
  }
  t.program = r.program;
  t.runners = {st.column_text(2)};
  return t;
}

std::optional<Target> load_target(const Opts& o, Executor& ex) {
  Target t;
  if (o.target.rfind("bug:", 0) == 0 || o.target.rfind("finding:", 0) == 0) {
    if (o.db.empty()) {
      std::cerr << "dlfuzz reduce: " << o.target << " needs --db\n";
      return std::nullopt;
    }
    return load_stored_target(o);
  }
  auto p = load_or_report(o.target);
  if (!p) return std::nullopt;
  t.program = *p;
  t.runners = CLI::detail::split(o.runners.empty() ? "ts,ts-nnc,ts-legacy,frozen" : o.runners, ',');
  if (!o.test_cmd.empty()) return t;
  Evaluation ev = evaluate(ex, t.program, t.runners, false);
  if (ev.findings.empty()) {
    std::cerr << "dlfuzz reduce: " << o.target << " shows no finding with runners "
              << fmt::format("{}", fmt::join(t.runners, ",")) << ": nothing to reduce\n";
    return std::nullopt;
  }
  t.signature = ev.findings.front().signature();
  t.runners = {ev.findings.front().test_runner};
  return t;
}

bool run_test_command(const std::string& cmd, const Program& p) {
  fs::path tmp = fs::temp_directory_path() / fmt::format("dlfuzz_reduce_{}.dlf", getpid());
  // A candidate that cannot be written is not interesting: the test never saw it.
  return write_output("dlfuzz reduce", tmp.string(), print_program(p)) && run_user_test(cmd, tmp.string());
}

// The reduced .dlf, its Python repro and a Markdown summary beside it; the
// .dlf's path, or "" when one of them cannot be written.
std::string write_outputs(const Opts& o, const Target& t, const Program& reduced, const ReduceStats& s) {
  std::string base = o.out;
  if (base.empty())
    base = t.bug_id >= 0       ? fmt::format("bug{}.reduced.dlf", t.bug_id)
           : t.finding_id >= 0 ? fmt::format("finding{}.reduced.dlf", t.finding_id)
                               : fs::path(o.target).replace_extension("").string() + ".reduced.dlf";
  std::string stem = base.size() > 4 && base.substr(base.size() - 4) == ".dlf" ? base.substr(0, base.size() - 4) : base;
  std::string md = fmt::format("# dlfuzz reduction of {}\n\n", o.target);
  if (!t.signature.empty()) md += fmt::format("- signature: `{}`\n", t.signature);
  else md += fmt::format("- interesting: `{} FILE` exits 0\n", o.test_cmd);
  md += fmt::format("- runner under test: {}\n", fmt::join(t.runners, ", "));
  md += fmt::format("- nodes: {} -> {}; {} oracle queries, {} cache hits, {} rounds, {:.1f} s{}\n", s.start_nodes,
                    s.final_nodes, s.queries, s.cache_hits, s.rounds, s.seconds,
                    s.budget_exhausted ? " (stopped by the budget)" : "");
  md += fmt::format("- replay: `dlfuzz run {} --runners {}`\n- repro: `python3 {}.py`\n\n```\n{}```\n", base,
                    fmt::join(t.runners, ","), stem, print_program(reduced));
  bool ok = write_output("dlfuzz reduce", base, print_program(reduced)) &&
            write_output("dlfuzz reduce", stem + ".py", emit_python(reduced)) &&
            write_output("dlfuzz reduce", stem + ".md", md);
  return ok ? base : "";
}
}  // namespace

void add_reduce(CLI::App& app, std::function<int()>* action) {
  auto* cmd = app.add_subcommand("reduce", "Shrink a program while it shows the same finding (or --test CMD succeeds)");
  auto o = std::make_shared<Opts>();
  cmd->add_option("target", o->target, ".dlf file, or bug:ID or finding:ID with --db");
  cmd->add_option("-o,--out", o->out, "reduced .dlf (the .py repro and .md summary go beside it)");
  cmd->add_option("--db", o->db, "bug store: read bug:ID, record the reduced program");
  cmd->add_option("--runners", o->runners, "runners to look for the finding with (FILE form)");
  cmd->add_option("--test", o->test_cmd, "interesting = `CMD CANDIDATE.dlf` exits 0 (instead of the same signature)");
  cmd->add_option("--findings", o->findings,
                  "with bug:ID: reduce K-1 more of its findings too (other programs), each alone, and split the bug "
                  "where they reduce to unrelated op sets")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  cmd->add_option("--passes", o->passes, "comma-separated passes (default: all, in table order)");
  cmd->add_flag("--list-passes", o->list_passes, "list the passes and exit");
  cmd->add_option("--max-time", o->max_time, "seconds")->capture_default_str();
  cmd->add_option("--jobs", o->jobs, "accepted; candidates are tested one at a time for now")->capture_default_str();
  cmd->add_option("--timeout", o->timeout, "seconds one runner may take on one candidate")->capture_default_str();
  cmd->footer("passes:\n" + reduce::reducer_passes_help());
  cmd->callback([o, action] {
    *action = [o]() -> int {
      if (o->list_passes) {
        std::cout << reduce::reducer_passes_help();
        return kExitOk;
      }
      if (o->target.empty()) {
        std::cerr << "dlfuzz reduce: a FILE, bug:ID or finding:ID is required\n";
        return kExitUsage;
      }
      ReduceOptions ropt;
      ropt.max_time_seconds = o->max_time;
      if (!o->passes.empty()) ropt.passes = CLI::detail::split(o->passes, ',');
      for (const auto& p : ropt.passes)
        if (!reduce::find_reducer_pass(p)) {
          std::cerr << "dlfuzz reduce: unknown pass '" << p << "'\n" << reduce::reducer_passes_help();
          return kExitUsage;
        }
      ExecutorOptions eo = default_executor_options();
      eo.timeout_ms = o->timeout * 1000;
      Executor ex(eo);
      std::optional<Target> t;
      try {
        t = load_target(*o, ex);
      } catch (const StoreError& e) {
        std::cerr << "dlfuzz reduce: " << e.what() << "\n";
        return kExitUsage;
      }
      if (!t) return kExitUsage;
      // A performance bug stays interesting while a fresh worker confirms the
      // same kind of slowness of the same runner (oracles/perf_oracle.h).
      ExecutorOptions perf_eo = eo;
      PerfOptions perf;
      perf_eo.timed_calls = perf.timed_calls;
      Executor perf_ex(perf_eo);
      // What the first query (the original program) showed instead, said when
      // it is not interesting: another finding, a runner's timeout or error.
      // Empty until that query ran.
      std::string first_seen;
      Interesting interesting = [&](const Program& cand) {
        if (!o->test_cmd.empty()) return run_test_command(o->test_cmd, cand);
        if (cand.body.yields.empty()) return false;
        if (is_performance_signature(t->signature)) {
          Evaluation ev = evaluate(perf_ex, cand, t->runners, false);
          for (const auto& f : performance_findings(perf_eo, cand, ev.results, perf, nullptr, &perf_ex))
            if (same_performance_bug(f.signature(), t->signature)) return true;
          return false;
        }
        Evaluation ev = evaluate(ex, cand, t->runners, false);
        if (first_seen.empty()) {
          for (const auto& f : ev.findings) first_seen += "\n  finding: " + f.signature();
          for (const auto& r : ev.results)
            if (!r.ok()) first_seen += fmt::format("\n  {}: {}", r.runner, r.error.substr(0, 200));
          if (first_seen.empty()) first_seen = "\n  no finding, every runner ok";
        }
        // The same bug, not another one; at any world size (the world pass).
        for (const auto& f : ev.findings)
          if (signature_without_ranks(f.signature()) == signature_without_ranks(t->signature)) return true;
        return false;
      };
      ReduceStats stats;
      Program reduced = reduce_program(t->program, interesting, ropt, &stats, [](const std::string& line) {
        std::cerr << "\r" << line << "          " << std::flush;
      });
      std::cerr << "\n";
      if (!stats.start_interesting) {
        std::cerr << "dlfuzz reduce: the original program is not interesting (the finding did not reproduce)\n";
        if (!first_seen.empty())
          std::cerr << fmt::format("  looking for: {}\n  the original showed:{}\n", t->signature, first_seen);
        return kExitFinding;
      }
      std::string path = write_outputs(*o, *t, reduced, stats);
      std::cout << fmt::format("reduced {} -> {} nodes in {:.1f} s ({} queries, {} cache hits): {}\n",
                               stats.start_nodes, stats.final_nodes, stats.seconds, stats.queries, stats.cache_hits,
                               path.empty() ? "not written" : path);
      if (!o->db.empty()) {
        try {
          Store store(o->db);
          std::string hash = store.add_program(print_program(reduced), reduced.seed, reduced.count_nodes());
          if (t->finding_id >= 0) record_finding_reduction(store, t->finding_id, hash, op_set(reduced));
          if (t->bug_id >= 0) {
            if (int64_t example = example_finding(store, t->bug_id))
              record_finding_reduction(store, example, hash, op_set(reduced));
            int64_t dup = store.record_reduction(t->bug_id, hash, op_set(reduced));
            if (dup)
              std::cout << fmt::format("bug {} is a duplicate of bug {} (same error and reduced op set)\n", t->bug_id,
                                       dup);
          }
        } catch (const StoreError& e) {
          std::cerr << "dlfuzz reduce: " << e.what() << "\n";
          return e.cannot_write() || dynamic_cast<const StoreReadOnly*>(&e) ? kExitCannotWrite : kExitUsage;
        }
      }
      if (t->bug_id >= 0 && o->findings > 1) {
        std::string dir = fs::path(path.empty() ? "." : path).parent_path().string();
        reduce_more_findings(o->db, t->bug_id, o->max_time, o->findings - 1, dir.empty() ? "." : dir,
                             [] { return true; });
      }
      // The store has the reduced program even when the files could not be written.
      return path.empty() ? kExitCannotWrite : kExitOk;
    };
  });
}

}  // namespace dlfuzz::cli
