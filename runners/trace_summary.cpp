#include "runners/trace_summary.h"

#include <algorithm>
#include <map>
#include <vector>

namespace dlfuzz {

namespace {
struct Event {
  std::string name;
  double ts = 0, dur = 0;  // microseconds
};
}  // namespace

nlohmann::json summarize_chrome_trace(const std::string& trace_json, int calls, size_t top) {
  nlohmann::json out = {{"ops", nlohmann::json::array()}};
  nlohmann::json j = nlohmann::json::parse(trace_json, nullptr, false);
  if (j.is_object() && j.contains("traceEvents")) j = j["traceEvents"];
  if (!j.is_array() || calls <= 0) return out;
  std::map<std::string, std::vector<Event>> by_thread;
  for (const auto& e : j) {
    if (!e.is_object() || e.value("ph", "") != "X" || !e.contains("name") || !e["name"].is_string()) continue;
    if (!e.contains("ts") || !e["ts"].is_number() || !e.contains("dur") || !e["dur"].is_number()) continue;
    std::string tid = e.contains("tid") ? e["tid"].dump() : "";
    by_thread[tid].push_back({e["name"].get<std::string>(), e["ts"].get<double>(), e["dur"].get<double>()});
  }
  std::map<std::string, std::pair<double, int>> self;  // name -> (self us, count)
  for (auto& [_, events] : by_thread) {
    // Outer events first where two start together: they enclose the others.
    std::sort(events.begin(), events.end(),
              [](const Event& a, const Event& b) { return a.ts != b.ts ? a.ts < b.ts : a.dur > b.dur; });
    std::vector<size_t> open;  // enclosing events, innermost last
    std::vector<double> child(events.size(), 0);
    for (size_t i = 0; i < events.size(); ++i) {
      while (!open.empty() && events[open.back()].ts + events[open.back()].dur <= events[i].ts) open.pop_back();
      if (!open.empty()) child[open.back()] += events[i].dur;
      open.push_back(i);
    }
    for (size_t i = 0; i < events.size(); ++i) {
      auto& s = self[events[i].name];
      s.first += std::max(0.0, events[i].dur - child[i]);
      s.second += 1;
    }
  }
  std::vector<std::pair<double, std::string>> order;
  for (const auto& [name, s] : self) order.push_back({-s.first, name});
  std::sort(order.begin(), order.end());
  for (size_t k = 0; k < order.size() && k < top; ++k) {
    const auto& s = self[order[k].second];
    if (s.first <= 0) break;
    out["ops"].push_back({order[k].second, s.first / 1000.0 / calls, s.second / calls});
  }
  return out;
}

}  // namespace dlfuzz
