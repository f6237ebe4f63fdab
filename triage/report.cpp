#include "triage/report.h"

#include <fmt/format.h>

#include "generator/dlf.h"
#include "generator/emit.h"
#include "runners/runner_spec.h"
#include "triage/escape.h"
#include "triage/perf_report.h"

namespace dlfuzz {

std::optional<BugDetail> load_bug(Store& store, int64_t id) {
  BugDetail d;
  bool found = false;
  for (const auto& b : store.bugs())
    if (b.id == id) d.bug = b, found = true;
  if (!found) return std::nullopt;
  auto q = store.db().prepare(
      "SELECT f.oracle, f.ref_runner, f.test_runner, f.stage, f.detail, f.versions, c.host, "
      "(SELECT count(*) FROM findings WHERE bug_id = ?1), "
      "coalesce((SELECT text FROM programs WHERE hash = b.reduced_program), p.text), b.reduced_program IS NOT NULL "
      "FROM bugs b JOIN findings f ON f.bug_id = b.id LEFT JOIN campaigns c ON c.id = f.campaign_id "
      "JOIN programs p ON p.hash = b.example_program WHERE b.id = ?1 ORDER BY f.id LIMIT 1");
  q.bind(1, id);
  if (!q.step()) return std::nullopt;
  d.oracle = q.column_text(0);
  d.ref_runner = q.column_text(1);
  d.test_runner = q.column_text(2);
  d.stage = q.column_text(3);
  d.detail = q.column_text(4);
  d.versions = q.column_text(5);
  d.host = q.column_text(6);
  d.findings = q.column_int(7);
  d.program = q.column_text(8);
  d.reduced = q.column_int(9) != 0;
  d.affects = affects_line(store.env_checks(id));
  d.evidence = store.bug_evidence(id);
  d.ablation = store.bug_ablation(id);
  d.first_divergence = store.bug_first_divergence(id);
  return d;
}

std::string ablation_markdown(const nlohmann::json& ablation) {
  if (!ablation.is_array() || ablation.empty()) return "";
  std::string head = "|", rule = "|", row = "|";
  // From the store, which may be foreign or damaged: a field of the wrong type reads as "?".
  auto text = [](const nlohmann::json& r, const char* key) {
    return r.is_object() && r.contains(key) && r[key].is_string() ? md_text(r[key].get<std::string>()) : "?";
  };
  for (const auto& r : ablation) {
    // A rung that drew a config (inductor-knob-N) names it under its own name.
    bool config = r.is_object() && r.contains("config") && r["config"].is_string();
    head += fmt::format(" {}{} |", text(r, "rung"), config ? " (" + text(r, "config") + ")" : "");
    rule += " --- |";
    row += fmt::format(" {} |", text(r, "verdict"));
  }
  return "## Ablation\n\nThe program through the paths below the one under test, one layer more each "
         "(torch.compile: Dynamo alone, +AOTAutograd, +decompositions, +Inductor; TorchScript: no optimization, "
         "+graph passes, +the profiling executor, +NNC, freezing and its folding, optimize_for_inference, or "
         "Static Runtime's interpreter, out variants and memory planner; Inductor's config knobs one at a "
         "time); the first that fails names the layer.\n\n" +
         head + "\n" + rule + "\n" + row + "\n\n";
}

std::string markdown_report(const BugDetail& d, const std::string& db_path) {
  std::string repro;
  ParseResult pr = parse_program(d.program, "bug");
  if (pr.ok()) repro = emit_python(pr.program);
  auto spec = parse_runner(d.test_runner);
  std::string backend = spec ? spec->row->repro_backend : "script";
  // Every field below may hold what a compiler printed or a foreign store
  // holds: escaped (triage/escape.h), so it shows as text in a tracker.
  std::string s;
  s += fmt::format("# {}\n\n", md_text(d.bug.title));
  s +=
      fmt::format("dlfuzz bug {} ({}), seen {} times from {} to {}; signature {}.\n\n", d.bug.id, md_text(d.bug.status),
                  d.bug.hits, md_text(d.bug.first_seen), md_text(d.bug.last_seen), md_code(d.bug.signature));
  s += "## Environment\n\n";
  s += fmt::format("- versions: {}\n- host: {}\n- path under test: {} (compared with {})\n", md_text(d.versions),
                   md_text(d.host), md_code(d.test_runner), md_code(d.ref_runner));
  if (!d.affects.empty()) s += fmt::format("- {}\n", md_text(d.affects));
  if (!d.bug.layer.empty()) s += fmt::format("- layer: {}\n", md_text(d.bug.layer));
  if (!d.bug.compiler_pass.empty())
    s += fmt::format("- pass (`dlfuzz triage bisect`): {}\n", md_text(d.bug.compiler_pass));
  if (d.bug.split_from)
    s += fmt::format("- split from bug {}: its findings reduce to ops that bug's do not share\n", d.bug.split_from);
  s += "\n";
  s += "## Expected vs actual\n\n";
  if (d.bug.kind == "performance")
    s += fmt::format("Expected: {} is not slower than eager PyTorch ({}).\n\nActual ({}):", md_code(d.test_runner),
                     md_code(d.ref_runner), md_text(d.stage));
  else
    s += fmt::format("Expected: {} agrees with eager PyTorch ({}).\n\nActual ({} oracle, at {}):",
                     md_code(d.test_runner), md_code(d.ref_runner), md_text(d.oracle), md_text(d.stage));
  // A traceback keeps its lines in a code block; one line stays prose.
  s += d.detail.find('\n') == std::string::npos ? " " + md_text(d.detail) + "\n\n" : "\n\n" + md_block(d.detail) + "\n";
  if (!d.first_divergence.empty())
    s += fmt::format("First diverging op (every intermediate value compared): {}\n\n", md_code(d.first_divergence));
  s += performance_markdown(d.evidence, d.ref_runner, d.test_runner);
  s += ablation_markdown(d.ablation);
  s += fmt::format("## Minimal repro ({} program)\n\n", d.reduced ? "reduced" : "unreduced");
  s += fmt::format("Run with {}:\n\n{}\n", md_code("python3 repro.py --backend " + backend), md_block(repro, "python"));
  s += "## dlfuzz program\n\n" + md_block(d.program) + "\n";
  s += fmt::format("Replay: {} (the program above saved as bug.dlf); from the store: {}\n",
                   md_code("dlfuzz run bug.dlf --runners " + d.test_runner),
                   md_code(fmt::format("sqlite3 {} \"SELECT text FROM programs WHERE hash=(SELECT "
                                       "coalesce(reduced_program, example_program) FROM bugs WHERE id={})\" > bug.dlf",
                                       db_path, d.bug.id)));
  return s;
}

nlohmann::json export_json(Store& store) {
  nlohmann::json out = {{"schema_version", kSchemaVersion}, {"bugs", nlohmann::json::array()}};
  for (const auto& b : store.bugs()) {
    nlohmann::json j = {{"id", b.id},
                        {"signature", b.signature},
                        {"status", b.status},
                        {"title", b.title},
                        {"kind", b.kind},
                        {"first_seen", b.first_seen},
                        {"last_seen", b.last_seen},
                        {"hits", b.hits},
                        {"example_program", b.example_program},
                        {"reduced_ops", b.reduced_ops},
                        {"duplicate_of", b.duplicate_of},
                        {"layer", b.layer},
                        {"compiler_pass", b.compiler_pass},
                        {"split_from", b.split_from}};
    out["bugs"].push_back(j);
  }
  out["programs"] = store.count("programs");
  out["findings"] = store.count("findings");
  out["campaigns"] = store.count("campaigns");
  return out;
}

std::string export_json_text(Store& store) {
  return export_json(store).dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace dlfuzz
