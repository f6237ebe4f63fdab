#include "triage/report.h"

#include <fmt/format.h>

#include "generator/dlf.h"
#include "generator/emit.h"
#include "runners/runner_spec.h"
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
  return d;
}

std::string ablation_markdown(const nlohmann::json& ablation) {
  if (!ablation.is_array() || ablation.empty()) return "";
  std::string head = "|", rule = "|", row = "|";
  for (const auto& r : ablation) {
    head += fmt::format(" {} |", r.value("rung", "?"));
    rule += " --- |";
    row += fmt::format(" {} |", r.value("verdict", "?"));
  }
  return "## Ablation\n\nThe program through torch.compile's backends, one layer more each (Dynamo alone, "
         "+AOTAutograd, +decompositions, +Inductor); the first that fails names the layer.\n\n" +
         head + "\n" + rule + "\n" + row + "\n\n";
}

std::string markdown_report(const BugDetail& d, const std::string& db_path) {
  std::string repro;
  ParseResult pr = parse_program(d.program, "bug");
  if (pr.ok()) repro = emit_python(pr.program);
  auto spec = parse_runner(d.test_runner);
  std::string backend = spec ? spec->row->repro_backend : "script";
  std::string s;
  s += fmt::format("# {}\n\n", d.bug.title);
  s += fmt::format("dlfuzz bug {} ({}), seen {} times from {} to {}; signature `{}`.\n\n", d.bug.id, d.bug.status,
                   d.bug.hits, d.bug.first_seen, d.bug.last_seen, d.bug.signature);
  s += "## Environment\n\n";
  s += fmt::format("- versions: {}\n- host: {}\n- path under test: `{}` (compared with `{}`)\n", d.versions, d.host,
                   d.test_runner, d.ref_runner);
  if (!d.affects.empty()) s += fmt::format("- {}\n", d.affects);
  if (!d.bug.layer.empty()) s += fmt::format("- layer: {}\n", d.bug.layer);
  s += "\n";
  s += "## Expected vs actual\n\n";
  if (d.bug.kind == "performance")
    s += fmt::format("Expected: `{}` is not slower than eager PyTorch (`{}`).\n\nActual ({}): {}\n\n", d.test_runner,
                     d.ref_runner, d.stage, d.detail);
  else
    s += fmt::format("Expected: `{}` agrees with eager PyTorch (`{}`).\n\nActual ({} oracle, at {}): {}\n\n",
                     d.test_runner, d.ref_runner, d.oracle, d.stage, d.detail);
  s += performance_markdown(d.evidence, d.ref_runner, d.test_runner);
  s += ablation_markdown(d.ablation);
  s += fmt::format("## Minimal repro ({} program)\n\n", d.reduced ? "reduced" : "unreduced");
  s += fmt::format("Run with `python3 repro.py --backend {}`:\n\n```python\n{}```\n\n", backend, repro);
  s += "## dlfuzz program\n\n```\n" + d.program + "```\n\n";
  s += fmt::format(
      "Replay: `dlfuzz run bug.dlf --runners {}` (the program above saved as bug.dlf); "
      "from the store: `sqlite3 {} \"SELECT text FROM programs WHERE hash=(SELECT coalesce(reduced_program, "
      "example_program) FROM bugs WHERE id={}\" > bug.dlf`\n",
      d.test_runner, db_path, d.bug.id);
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
                        {"layer", b.layer}};
    out["bugs"].push_back(j);
  }
  out["programs"] = store.count("programs");
  out["findings"] = store.count("findings");
  out["campaigns"] = store.count("campaigns");
  return out;
}

}  // namespace dlfuzz
