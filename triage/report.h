// Bug reports a developer can paste into a tracker: title, environment, the
// minimal Python repro, expected vs actual, the reduced .dlf and the replay
// command. Also the JSON export of the store.
#pragma once
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "triage/store.h"

namespace dlfuzz {

struct BugDetail {
  BugRow bug;
  std::string program;  // the reduced program's text when there is one, else the example's
  bool reduced = false;
  std::string oracle, ref_runner, test_runner, stage, detail, versions, host;
  int64_t findings = 0;
  std::string affects;      // "affects: ... / not in: ..." from `triage retest --env`; "" when unchecked
  nlohmann::json evidence;  // a performance bug's (triage/perf_report.h); null otherwise
  nlohmann::json ablation;  // the layer ladder's verdicts (Finding::ablation); null when none ran
  std::string first_divergence;  // Store::bug_first_divergence; "" when not located
};

std::optional<BugDetail> load_bug(Store& store, int64_t id);
std::string markdown_report(const BugDetail& d, const std::string& db_path);
// The "Ablation" section: one column per rung of the layer ladder (eager /
// aot_eager / decomp / inductor), pass or fail; "" without verdicts.
std::string ablation_markdown(const nlohmann::json& ablation);
nlohmann::json export_json(Store& store);
// export_json as text (`triage export`). A store's texts are whatever a
// compiler printed, cut anywhere (a title keeps 80 bytes of the error): bytes
// that are not UTF-8 become U+FFFD instead of failing the export.
std::string export_json_text(Store& store);

}  // namespace dlfuzz
