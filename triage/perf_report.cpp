#include "triage/perf_report.h"

#include <fmt/format.h>

#include <map>

#include "triage/escape.h"

namespace dlfuzz {

namespace {

double num(const nlohmann::json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_number() ? j[key].get<double>() : 0;
}

// name -> (self ms per call, calls per call) of a profile's hottest rows.
std::map<std::string, std::pair<double, double>> rows(const nlohmann::json& profile) {
  std::map<std::string, std::pair<double, double>> out;
  if (!profile.is_object() || !profile.contains("ops") || !profile["ops"].is_array()) return out;
  for (const auto& r : profile["ops"])
    if (r.is_array() && r.size() >= 3 && r[0].is_string() && r[1].is_number() && r[2].is_number())
      out[r[0].get<std::string>()] = {r[1].get<double>(), r[2].get<double>()};
  return out;
}

// A Markdown table cell: one line, pipes and markup escaped (kernel names are
// a compiler's text).
std::string cell(const std::string& s) { return md_text(s); }

// The evidence is read back from a store, which may be damaged or foreign:
// a field of the wrong type is treated as missing.
std::string text(const nlohmann::json& j, const char* key, const std::string& otherwise) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : otherwise;
}

}  // namespace

std::string performance_summary(const nlohmann::json& e) {
  if (!e.is_object() || !e.contains("first")) return "";
  const auto& a = e["first"];
  return fmt::format("{:.2f}x (95% CI {:.2f}-{:.2f}, {:.0f} pairs; {:.2f}x again in a fresh process)", num(a, "ratio"),
                     num(a, "ci_low"), num(a, "ci_high"), num(a, "pairs"),
                     num(e.value("second", nlohmann::json::object()), "ratio"));
}

std::string performance_markdown(const nlohmann::json& e, const std::string& ref_runner,
                                 const std::string& test_runner) {
  if (!e.is_object()) return "";
  std::string s = "## Performance\n\n";
  s += fmt::format("{} takes {} the time of {} per steady-state call (after warm-up; compilation excluded), ",
                   md_code(test_runner), performance_summary(e), md_code(ref_runner));
  const auto& a = e.value("first", nlohmann::json::object());
  s += fmt::format("median {:.4f} ms vs {:.4f} ms; kind: {}; threshold +{:.0f}%.\n\n", num(a, "test_median_ms"),
                   num(a, "ref_median_ms"), md_text(text(e, "kind", "slower")), num(e, "threshold") * 100);
  if (e.contains("counters") && e["counters"].is_object() && !e["counters"].empty()) {
    s += "Compiler counters:";
    for (const auto& [k, v] : e["counters"].items())
      s += fmt::format(" {}={}", md_text(k), md_text(v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)));
    s += "\n\n";
  }
  auto ref = rows(e.value("ref_profile", nlohmann::json::object()));
  auto test = rows(e.value("test_profile", nlohmann::json::object()));
  if (!ref.empty() || !test.empty()) {
    s += fmt::format("Profile diff (self time per call, ms; hottest first by {}):\n\n", md_code(test_runner));
    s += fmt::format("| op or kernel | {} | {} | calls ({}) |\n|---|---:|---:|---:|\n", cell(ref_runner),
                     cell(test_runner), cell(test_runner));
    std::vector<std::pair<double, std::string>> order;
    for (const auto& [k, v] : test) order.push_back({-v.first, k});
    for (const auto& [k, v] : ref)
      if (!test.count(k)) order.push_back({1 + v.first, k});  // the reference's own ops after
    std::sort(order.begin(), order.end());
    for (const auto& [_, k] : order) {
      auto r = ref.find(k), t = test.find(k);
      s +=
          fmt::format("| {} | {} | {} | {} |\n", cell(k), r == ref.end() ? "-" : fmt::format("{:.4f}", r->second.first),
                      t == test.end() ? "-" : fmt::format("{:.4f}", t->second.first),
                      t == test.end() ? "-" : fmt::format("{:g}", t->second.second));
    }
    s += "\n";
    // The profiler slows small ops (each is recorded): its calls next to the
    // timed medians say how far the rows above are inflated.
    double ref_call = num(e.value("ref_profile", nlohmann::json::object()), "call_ms");
    double test_call = num(e.value("test_profile", nlohmann::json::object()), "call_ms");
    if (ref_call > 0 && test_call > 0)
      s += fmt::format(
          "Profiled calls, the profiler's cost included: {} {:.4f} ms, {} {:.4f} ms per call (timed: {:.4f} ms, "
          "{:.4f} ms).\n\n",
          md_code(ref_runner), ref_call, md_code(test_runner), test_call, num(a, "ref_median_ms"),
          num(a, "test_median_ms"));
  }
  for (const char* side : {"ref_profile", "test_profile"})
    if (e.contains(side) && !text(e[side], "trace", "").empty())
      s += fmt::format("Chrome trace ({}): {}\n", side, md_code(text(e[side], "trace", "")));
  return s + "\n";
}

}  // namespace dlfuzz
