#include "oracles/layer_ladder.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>

#include "oracles/evaluate.h"

namespace dlfuzz {

namespace {
// The Python runners whose path runs up a ladder, which ladder, and how
// many of its rungs lie below them (rungs at and above a runner's own are
// not rerun: its own finding is the verdict of its rung).
struct LadderOf {
  size_t below;
  bool dynamic;
};
const std::map<std::string, LadderOf>& ladder_runners() {
  static const std::map<std::string, LadderOf> m = {{"aot-eager", {1, false}},
                                                    {"inductor", {3, false}},
                                                    {"inductor-dynamic", {3, true}},
                                                    {"fault-inductor-lowering", {3, false}}};
  return m;
}

std::string in_env(const std::string& runner, const RunnerSpec& spec) {
  return spec.env.empty() ? runner : runner + "@" + spec.env;
}

bool same_finding(const Finding& a, const Finding& b) { return a.oracle == b.oracle && a.stage == b.stage; }

// Runners whose path adds passes to another runner's: the runners below,
// lowest first, each stopping before one group of passes, and the layer a
// finding none of them shows is put on. A ts-nnc finding that ts shows too
// is the profiling executor's, not NNC's; one ts-noopt shows is the
// frontend's or an op's, whatever executor runs it. inductor-train (program
// and optimizer step compiled) climbs torch.compile's ladder and then the
// step compiled alone: what none of them shows is the two together;
// inductor-freezing climbs it to plain Inductor: what that does not show is
// freezing's; inductor-autotune climbs on to inductor-freezing: what that does
// not show is max-autotune's; inductor-ca climbs to plain Inductor: what that
// does not show is Compiled Autograd's; inductor-knobs climbs to plain
// Inductor and then each of its four knobs alone: the first that shows it
// names the knob (the rung's `config`), what none shows is the knobs
// together; inductor-vmap climbs through vmap (eager batching rules) and
// plain Inductor: what neither shows is the compiled vmap's; inductor-jvp
// climbs through jvp (eager forward-mode AD) and plain Inductor: what neither
// shows is the compiled jvp's; jacfwd climbs to jvp: what that does not
// show is vmap's batching of the forward formulas; inductor-jvp2 climbs
// through jvp2 (eager nested forward mode) and plain Inductor: what neither
// shows is the compiled nested jvp's. export-decomp and export-serde climb
// to export: what that does not show is the core ATen decompositions' or the
// .pt2 round trip's; aoti climbs export and export-decomp and
// then Inductor through torch.compile: what none shows is AOTInductor's.
// export-dynamic climbs to export (static shapes), aoti-dynamic to
// export-dynamic and aoti: what neither shows is AOTInductor's symbolic sizes'.
struct RunnerLadder {
  std::vector<std::string> below;
  std::string own_layer;
};
const std::map<std::string, RunnerLadder>& runner_ladders() {
  static const std::map<std::string, RunnerLadder> m = {
      {"ts", {{"ts-noopt", "ts-simple"}, "TorchScript profiling executor"}},
      {"ts-nnc", {{"ts-noopt", "ts-simple", "ts"}, "TorchScript NNC fuser"}},
      {"ts-legacy", {{"ts-noopt"}, "TorchScript legacy executor"}},
      {"frozen", {{"ts-noopt", "ts", "frozen-plain", "frozen-fold"}, "TorchScript optimize_for_inference"}},
      {"static", {{"ts-noopt", "static-noout", "static-noplan"}, "Static Runtime memory planner"}},
      {"inductor-freezing",
       {{"dynamo-eager", "aot-eager", "aot-decomp", "inductor"},
        "Inductor freezing (params folded as constants, weights prepacked)"}},
      {"inductor-autotune",
       {{"dynamo-eager", "aot-eager", "aot-decomp", "inductor", "inductor-freezing"},
        "Inductor max-autotune (C++ GEMM templates)"}},
      {"inductor-ca",
       {{"dynamo-eager", "aot-eager", "aot-decomp", "inductor"}, "Compiled Autograd (backward traced at run time)"}},
      {"inductor-knobs",
       {{"dynamo-eager", "aot-eager", "aot-decomp", "inductor", "inductor-knob-1", "inductor-knob-2", "inductor-knob-3",
         "inductor-knob-4"},
        "Inductor config knobs (together)"}},
      {"inductor-vmap", {{"vmap", "inductor"}, "torch.compile of vmap"}},
      {"inductor-jvp", {{"jvp", "inductor"}, "torch.compile of jvp"}},
      {"jacfwd", {{"jvp"}, "forward-mode AD under vmap (jacfwd)"}},
      {"inductor-jvp2", {{"jvp2", "inductor"}, "torch.compile of jvp of jvp"}},
      {"export-decomp", {{"export"}, "torch.export decompositions (core ATen)"}},
      {"export-serde", {{"export"}, "torch.export serialization"}},
      {"aoti", {{"export", "export-decomp", "inductor"}, "AOTInductor"}},
      {"export-dynamic", {{"export"}, "torch.export dynamic shapes"}},
      {"aoti-dynamic", {{"export-dynamic", "aoti"}, "AOTInductor dynamic shapes"}},
      {"inductor-train",
       {{"dynamo-eager", "aot-eager", "aot-decomp", "inductor", "inductor-step"},
        "Inductor (program and optimizer step together)"}},
  };
  return m;
}

// The ladder of a finding of a runner above: its runner's, and for a runner
// with a plugin (TorchScript runners only), its base runner's ladder with the
// base itself as the top rung below the plugin's passes. nullopt: no ladder.
std::optional<RunnerLadder> runner_ladder_of(const Finding& f) {
  auto spec = parse_runner(f.test_runner);
  if (!spec || spec->on_cpu || spec->one_process || f.kind != FindingKind::correctness) return std::nullopt;
  auto it = runner_ladders().find(spec->row->name);
  if (spec->plugin.empty()) {
    if (it == runner_ladders().end()) return std::nullopt;
    return it->second;
  }
  RunnerLadder l;
  if (it != runner_ladders().end()) l.below = it->second.below;
  l.below.push_back(spec->row->name);
  l.own_layer = "plugin pass " + std::filesystem::path(spec->plugin).stem().string();
  return l;
}
}  // namespace

const std::vector<LadderRung>& layer_ladder(bool dynamic) {
  static const std::vector<LadderRung> rungs = {
      {"eager", "dynamo-eager", "Dynamo"},
      {"aot_eager", "aot-eager", "AOTAutograd"},
      {"decomp", "aot-decomp", "AOTAutograd decompositions"},
      {"inductor", "inductor", "Inductor"},
  };
  static const std::vector<LadderRung> dynamic_rungs = {
      {"eager", "dynamo-eager-dynamic", "Dynamo"},
      {"aot_eager", "aot-eager-dynamic", "AOTAutograd"},
      {"decomp", "aot-decomp-dynamic", "AOTAutograd decompositions"},
      {"inductor", "inductor-dynamic", "Inductor"},
  };
  return dynamic ? dynamic_rungs : rungs;
}

bool ladder_applies(const std::string& test_runner) {
  auto spec = parse_runner(test_runner);
  return spec && spec->worker() == WorkerKind::python && spec->plugin.empty() && !spec->on_cpu &&
         ladder_runners().count(spec->row->name);
}

void attribute_layers(Executor& ex, const Program& p, std::vector<Finding>& findings) {
  std::vector<std::string> wanted;  // every rung below some ladder finding, once
  auto want = [&](const std::string& r) {
    if (std::find(wanted.begin(), wanted.end(), r) == wanted.end()) wanted.push_back(r);
  };
  for (auto& f : findings) {
    auto spec = parse_runner(f.test_runner);
    if (!spec) continue;
    f.layer = spec->row->layer;
    if (auto ladder = runner_ladder_of(f))
      for (const auto& r : ladder->below) want(in_env(r, *spec));
    if (!ladder_applies(f.test_runner) || f.kind != FindingKind::correctness) continue;
    LadderOf of = ladder_runners().at(spec->row->name);
    const auto& rungs = layer_ladder(of.dynamic);
    for (size_t i = 0; i < of.below; ++i) want(in_env(rungs[i].runner, *spec));
  }
  if (wanted.empty()) return;
  // Without recheck: no ladder inside the ladder. Each rung is judged against
  // py-eager (arbitrated by py-eager64), as the finding was.
  Evaluation ev = evaluate(ex, p, wanted, false);
  auto verdict_of = [&](const Finding& f, const std::string& runner) -> std::string {
    bool ran = std::find(ev.skipped.begin(), ev.skipped.end(), runner) == ev.skipped.end();
    bool shows = std::any_of(ev.findings.begin(), ev.findings.end(),
                             [&](const Finding& g) { return g.test_runner == runner && same_finding(f, g); });
    return !ran ? "not run" : shows ? "fail" : "pass";
  };
  // The config a rung drew (inductor-knob-N: its knob), from its result.
  auto config_of = [&](const std::string& runner) -> std::string {
    for (const auto& r : ev.results)
      if (r.runner == runner) return r.config;
    return "";
  };
  for (auto& f : findings) {
    if (auto ladder = runner_ladder_of(f)) {
      auto spec = parse_runner(f.test_runner);
      f.ablation = nlohmann::json::array();
      std::string first;
      for (const auto& r : ladder->below) {
        std::string runner = in_env(r, *spec), verdict = verdict_of(f, runner), config = config_of(runner);
        if (verdict == "fail" && first.empty())
          first = find_runner_row(r)->layer + (config.empty() ? "" : " " + config);
        nlohmann::json rung = {{"rung", r}, {"runner", runner}, {"verdict", verdict}};
        if (!config.empty()) rung["config"] = config;
        f.ablation.push_back(rung);
      }
      f.ablation.push_back({{"rung", spec->name()}, {"runner", f.test_runner}, {"verdict", "fail"}});
      f.layer = first.empty() ? ladder->own_layer : first;
      continue;
    }
    if (!ladder_applies(f.test_runner) || f.kind != FindingKind::correctness) continue;
    auto spec = parse_runner(f.test_runner);
    LadderOf of = ladder_runners().at(spec->row->name);
    const auto& rungs = layer_ladder(of.dynamic);
    size_t below = of.below;
    f.ablation = nlohmann::json::array();
    std::string first;
    for (size_t i = 0; i < rungs.size(); ++i) {
      std::string runner = in_env(rungs[i].runner, *spec), verdict;
      if (i < below) {
        verdict = verdict_of(f, runner);
      } else {
        verdict = i == below ? "fail" : "not run";  // its own rung: the finding itself
      }
      if (verdict == "fail" && first.empty()) first = rungs[i].layer;
      f.ablation.push_back({{"rung", rungs[i].rung}, {"runner", runner}, {"verdict", verdict}});
    }
    if (!first.empty()) f.layer = first;
  }
}

}  // namespace dlfuzz
