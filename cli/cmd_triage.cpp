// dlfuzz triage list|show|report|export|merge|retest|bisect|rejected --db DB
#include <fmt/format.h>
#include <stdlib.h>

#include <fstream>
#include <iostream>

#include "cli/commands.h"
#include "oracles/oracle_table.h"
#include "cli/output_file.h"
#include "generator/dlf.h"
#include "oracles/evaluate.h"
#include "generator/emit.h"
#include "triage/html_report.h"
#include "triage/merge.h"
#include "triage/pass_bisect.h"
#include "triage/perf_report.h"
#include "triage/report.h"

namespace dlfuzz::cli {

namespace {
struct Opts {
  std::string db = "dlfuzz.db", status, kind, out;
  int64_t id = -1;
  bool json = false, all = false;
  std::vector<std::string> shards;
  int timeout = 60;
  std::string envs;  // retest --env A,B
  double fail_above = 1e-3;  // bisect: the repro's max abs diff that still shows the bug
};

int with_store(const Opts& o, const std::function<int(Store&)>& f) {
  try {
    Store s(o.db);
    return f(s);
  } catch (const StoreError& e) {
    std::cerr << "dlfuzz triage: " << e.what() << "\n";
    return kExitUsage;
  }
}

int list(Store& s, const Opts& o) {
  std::cout << fmt::format("{:>5} {:<9} {:>6}  {:<20} {}\n", "id", "status", "hits", "last seen", "title");
  int hidden = 0;
  for (const auto& b : s.bugs()) {
    if (!o.status.empty() && b.status != o.status) continue;
    if (!o.kind.empty() && b.kind != o.kind) continue;
    if (b.duplicate_of && !o.all) {
      ++hidden;
      continue;
    }
    std::string dup = b.duplicate_of ? fmt::format(" [duplicate of {}]", b.duplicate_of) : "";
    if (b.split_from) dup += fmt::format(" [split from {}]", b.split_from);
    std::string layer = b.layer.empty() ? "" : " {" + b.layer + (b.compiler_pass.empty() ? "" : ": " + b.compiler_pass) + "}";
    std::cout << fmt::format("{:>5} {:<9} {:>6}  {:<20} {}{}{}\n", b.id, b.status, b.hits, b.last_seen, b.title, layer,
                             dup);
  }
  if (hidden) std::cout << fmt::format("({} duplicates of listed bugs not shown; --all shows them)\n", hidden);
  return kExitOk;
}

// Why the eager reference rejected programs (Store::rejections); with an id,
// that reason's first program as .dlf text, to run or emit as a repro.
int rejected(Store& s, const Opts& o) {
  auto rows = s.rejections();
  if (o.id >= 0) {
    for (const auto& r : rows)
      if (r.id == o.id) {
        if (o.out.empty()) std::cout << r.example;
        else if (!write_output("dlfuzz triage rejected", o.out, r.example)) return kExitCannotWrite;
        return kExitOk;
      }
    std::cerr << "dlfuzz triage: no rejection " << o.id << " in " << o.db << "\n";
    return kExitUsage;
  }
  std::cout << fmt::format("{:>5} {:>6}  {:<20} {:<14} {}\n", "id", "hits", "last seen", "reference", "reason");
  for (const auto& r : rows)
    std::cout << fmt::format("{:>5} {:>6}  {:<20} {:<14} {}\n", r.id, r.hits, r.last_seen, r.reference, r.reason);
  return kExitOk;
}

// The bug o.id, or a message naming the store.
std::optional<BugDetail> find_bug(Store& s, const Opts& o) {
  auto d = load_bug(s, o.id);
  if (!d) std::cerr << "dlfuzz triage: no bug " << o.id << " in " << o.db << "\n";
  return d;
}

int show(Store& s, const Opts& o) {
  auto d = find_bug(s, o);
  if (!d) return kExitUsage;
  std::cout << fmt::format(
      "bug {}: {}\nstatus {}, {} hits ({} findings), first {}, last {}{}\nsignature {}\n{} vs {} at {}: {}\n"
      "versions: {}\n{}{}\n{} program:\n{}",
      d->bug.id, d->bug.title, d->bug.status, d->bug.hits, d->findings, d->bug.first_seen, d->bug.last_seen,
      d->bug.duplicate_of ? fmt::format(", duplicate of bug {}", d->bug.duplicate_of)
      : d->bug.split_from ? fmt::format(", split from bug {}", d->bug.split_from)
                          : "",
      d->bug.full_signature(),
      d->test_runner, d->ref_runner, d->stage, d->detail, d->versions,
      d->bug.layer.empty() ? "" : "layer: " + d->bug.layer + "\n" +
                                      (d->bug.compiler_pass.empty() ? "" : "pass: " + d->bug.compiler_pass + "\n"),
      d->affects.empty() ? "" : d->affects + "\n",
      d->reduced ? "reduced" : "example", d->program);
  std::cout << performance_markdown(d->evidence, d->ref_runner, d->test_runner);
  if (!d->first_divergence.empty()) std::cout << "first diverging op: " << d->first_divergence << "\n";
  std::cout << ablation_markdown(d->ablation);
  return kExitOk;
}

int report(Store& s, const Opts& o) {
  auto d = find_bug(s, o);
  if (!d) return kExitUsage;
  std::string md = markdown_report(*d, o.db);
  if (o.out.empty()) std::cout << md;
  else if (!write_output("dlfuzz triage report", o.out, md)) return kExitCannotWrite;
  return kExitOk;
}

// Replays every bug on each environment and records which it affects.
// A stored bug's program, loaded leniently: written by an older dlfuzz, its
// types are recomputed by today's rules (ParseMode::repair). Says per bug why
// one cannot be retested instead of failing the whole run.
std::optional<std::pair<BugDetail, Program>> retest_load(Store& s, const BugRow& b) {
  auto d = load_bug(s, b.id);
  if (!d) {
    std::cout << fmt::format("bug {:>4}: skipped (no finding or program stored for it)\n", b.id);
    return std::nullopt;
  }
  ParseResult pr = parse_program(d->program, fmt::format("bug:{}", b.id), ParseMode::repair);
  if (!pr.ok()) {
    std::cout << fmt::format("bug {:>4}: skipped (its program no longer loads: {})\n", b.id, pr.error->str());
    return std::nullopt;
  }
  if (pr.repaired) std::cout << fmt::format("bug {:>4}: program repaired (types recomputed by today's rules)\n", b.id);
  return std::make_pair(std::move(*d), std::move(pr.program));
}

int retest_envs(Store& s, const Opts& o, const std::vector<std::string>& envs) {
  ExecutorOptions eo = default_executor_options();
  eo.timeout_ms = o.timeout * 1000;
  Executor ex(eo);
  int checked = 0;
  for (const auto& b : s.bugs()) {
    auto loaded = retest_load(s, b);
    if (!loaded) continue;
    auto& [d, program] = *loaded;
    if (d.oracle == "version") continue;  // a version bug is about two environments already
    auto spec = parse_runner(d.test_runner);
    if (!spec) {
      std::cout << fmt::format("bug {:>4}: skipped (unknown runner {})\n", b.id, d.test_runner);
      continue;
    }
    spec->env.clear();
    for (const auto& env : envs) {
      std::string runner = spec->name() + "@" + env;
      if (!parse_runner(runner)) continue;  // the other worker kind: not this bug's PyTorch
      Evaluation ev = evaluate(ex, program, {runner}, false);
      bool affected = false;
      for (const auto& f : ev.findings)
        affected |= signature_without_runners(f.signature()) == signature_without_runners(base_signature(b.signature));
      // The version the environment ran; a crashed runner reports none, its reference does.
      std::string version;
      for (const auto& r : ev.results)
        if ((r.runner == runner || version.empty()) && !r.versions.empty()) version = r.versions;
      if (!ev.reference_failures.empty()) version += " (program invalid there)";
      s.record_env_check(b.id, env, version, affected);
      ++checked;
    }
    std::cout << fmt::format("bug {:>4}: {} ({})\n", b.id, affects_line(s.env_checks(b.id)), b.title);
  }
  std::cout << fmt::format("{} checks recorded\n", checked);
  return kExitOk;
}

// Replays every open bug against this build: fixed, or still failing.
int retest(Store& s, const Opts& o) {
  oracle_settings().strict_zeros = true;  // signed-zero bugs replay too; numeric ones are judged first
  if (!o.envs.empty()) return retest_envs(s, o, CLI::detail::split(o.envs, ','));
  ExecutorOptions eo = default_executor_options();
  eo.timeout_ms = o.timeout * 1000;
  Executor ex(eo);
  int still = 0, fixed = 0, skipped = 0;
  for (const auto& b : s.bugs()) {
    if (b.status == "fixed" || b.status == "wontfix") continue;
    auto loaded = retest_load(s, b);
    if (!loaded) {
      ++skipped;
      continue;
    }
    Evaluation ev = evaluate(ex, loaded->second, {loaded->first.test_runner}, false);
    bool reproduces = false;
    for (const auto& f : ev.findings) reproduces |= f.signature() == base_signature(b.signature);
    std::string status = reproduces ? b.status : "fixed";
    if (!reproduces) s.db().prepare("UPDATE bugs SET status = 'fixed' WHERE id = ?").bind(1, b.id).run();
    (reproduces ? still : fixed)++;
    std::cout << fmt::format("bug {:>4}: {} ({})\n", b.id, reproduces ? "still failing" : "fixed", b.title);
  }
  std::cout << fmt::format("{} still failing, {} fixed{}\n", still, fixed,
                           skipped ? fmt::format(", {} could not be retested", skipped) : "");
  return still ? kExitFinding : kExitOk;
}
// Names the pass inside a bug's layer and records it (triage/pass_bisect.h):
// PyTorch's compiler_bisector for a torch.compile bug, the JIT's optimization
// limiter for a ts-nnc bug.
int bisect(Store& s, const Opts& o) {
  auto d = find_bug(s, o);
  if (!d) return kExitUsage;
  if (std::string why = why_not_bisectable(d->test_runner, d->oracle); !why.empty()) {
    std::cerr << fmt::format("dlfuzz triage bisect: bug {}: {}\n", o.id, why);
    return kExitUsage;
  }
  ParseResult pr = parse_program(d->program, fmt::format("bug:{}", o.id), ParseMode::repair);
  if (!pr.ok()) {
    std::cerr << "dlfuzz triage bisect: the bug's program no longer loads: " << pr.error->str() << "\n";
    return kExitUsage;
  }
  ExecutorOptions eo = default_executor_options();
  eo.timeout_ms = o.timeout * 1000;
  std::cout << fmt::format("bug {}: bisecting (each step runs or compiles the program again: seconds for NNC, "
                           "minutes for torch.compile)\n",
                           o.id);
  PassBisection b = bisect_pass(eo, pr.program, d->test_runner, base_signature(d->bug.signature), o.fail_above);
  if (b.pass.empty()) {
    std::cout << fmt::format("bug {}: not bisected: {}\n", o.id, b.error);
    return kExitFinding;
  }
  s.record_compiler_pass(o.id, b.pass);
  std::cout << fmt::format("bug {}: pass: {}\n", o.id, b.pass);
  return kExitOk;
}
}  // namespace

void add_triage(CLI::App& app, std::function<int()>* action) {
  auto* cmd = app.add_subcommand("triage", "Bug store: list, show, report, export, merge, retest, bisect, rejected");
  cmd->require_subcommand(1);
  auto o = std::make_shared<Opts>();
  auto db = [&](CLI::App* c) { c->add_option("--db", o->db, "bug store")->capture_default_str(); };
  auto* l = cmd->add_subcommand("list", "One line per bug");
  db(l);
  l->add_option("--status", o->status, "only bugs with this status");
  l->add_option("--kind", o->kind, "only bugs of this kind")->check(CLI::IsMember({"correctness", "performance"}));
  l->add_flag("--all", o->all, "also bugs marked as duplicates of others");
  l->callback([o, action] { *action = [o] { return with_store(*o, [&](Store& s) { return list(s, *o); }); }; });
  auto* sh = cmd->add_subcommand("show", "A bug with its finding and program");
  db(sh);
  sh->add_option("id", o->id, "bug id")->required();
  sh->callback([o, action] { *action = [o] { return with_store(*o, [&](Store& s) { return show(s, *o); }); }; });
  auto* rj = cmd->add_subcommand(
      "rejected",
      "Why the eager reference rejected programs (generator gaps, or bugs of eager); ID: the first program");
  db(rj);
  rj->add_option("id", o->id, "a rejection's id: print its first program (.dlf)");
  rj->add_option("-o,--out", o->out, "with an id: write the program to this file");
  rj->callback([o, action] { *action = [o] { return with_store(*o, [&](Store& s) { return rejected(s, *o); }); }; });
  auto* rp = cmd->add_subcommand("report", "A Markdown bug report (environment, Python repro, expected vs actual)");
  db(rp);
  rp->add_option("id", o->id, "bug id")->required();
  rp->add_option("-o,--out", o->out, "file; default stdout");
  rp->callback([o, action] { *action = [o] { return with_store(*o, [&](Store& s) { return report(s, *o); }); }; });
  auto* ex = cmd->add_subcommand("export", "The bugs as JSON");
  db(ex);
  ex->add_flag("--json", o->json, "JSON (the only format)");
  ex->callback([o, action] {
    *action = [o] {
      return with_store(*o, [&](Store& s) {
        std::cout << export_json_text(s) << "\n";
        return kExitOk;
      });
    };
  });
  auto* mg = cmd->add_subcommand("merge", "Fold shard stores into --db, deduplicating bugs by signature");
  db(mg);
  mg->add_option("shards", o->shards, "shard databases")->required();
  mg->callback([o, action] {
    *action = [o] {
      return with_store(*o, [&](Store& s) {
        for (const auto& shard : o->shards) {
          MergeStats m = merge_store(s, shard);
          std::cout << fmt::format(
              "{}: {} campaigns, {} programs, {} findings, {} new bugs, {} merged into existing, {} rejection reasons\n",
              shard, m.campaigns, m.programs, m.findings, m.new_bugs, m.merged_bugs, m.rejections);
        }
        return kExitOk;
      });
    };
  });
  auto* ht = cmd->add_subcommand("html", "A self-contained HTML page: bug table, findings and throughput over time");
  db(ht);
  ht->add_option("-o,--out", o->out, "file")->required();
  ht->callback([o, action] {
    *action = [o] {
      return with_store(*o, [&](Store& s) {
        if (!write_output("dlfuzz triage html", o->out, html_report(s))) return kExitCannotWrite;
        std::cout << "wrote " << o->out << "\n";
        return kExitOk;
      });
    };
  });
  auto* rt = cmd->add_subcommand("retest", "Replay every open bug against this build; mark fixed ones");
  db(rt);
  rt->add_option("--timeout", o->timeout, "seconds per runner")->capture_default_str();
  rt->add_option("--env", o->envs,
                 "replay every bug on each of these environments (`dlfuzz envs`) and record which it affects, "
                 "instead of marking fixed ones");
  rt->callback([o, action] { *action = [o] { return with_store(*o, [&](Store& s) { return retest(s, *o); }); }; });
  auto* bi = cmd->add_subcommand(
      "bisect",
      "Name the pass a bug is in, stored with it: a torch.compile bug's (PyTorch's compiler_bisector on its repro), "
      "a ts-nnc bug's fusion decision (PYTORCH_JIT_OPT_LIMIT)");
  db(bi);
  bi->add_option("id", o->id, "bug id")->required();
  bi->add_option("--fail-above", o->fail_above, "the repro's max abs diff that still shows the bug")
      ->capture_default_str();
  bi->callback([o, action] { *action = [o] { return with_store(*o, [&](Store& s) { return bisect(s, *o); }); }; });
}

}  // namespace dlfuzz::cli
