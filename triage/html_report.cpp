#include "triage/html_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "triage/escape.h"
#include "triage/perf_report.h"
#include "triage/store.h"

namespace dlfuzz {

namespace {
struct Series {
  std::string name, color;
  std::vector<double> y;
};

// A line chart over sample index (samples are taken every 10 s); the x axis
// runs from the first sample to the last.
std::string svg_chart(const std::string& title, const std::vector<Series>& series) {
  const double w = 400, h = 200, pad = 36;
  size_t n = 0;
  double ymax = 1;
  for (const auto& s : series) {
    n = std::max(n, s.y.size());
    for (double v : s.y) ymax = std::max(ymax, v);
  }
  std::string out = fmt::format(
      "<figure><figcaption>{}</figcaption><svg width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\" "
      "aria-label=\"{}\"><rect x=\"{}\" y=\"8\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#999\"/>"
      "<text x=\"4\" y=\"16\" font-size=\"11\">{:.0f}</text><text x=\"4\" y=\"{}\" font-size=\"11\">0</text>",
      html_text(title), w, h, w, h, html_text(title), pad, w - pad - 8, h - pad - 8, ymax, h - pad);
  for (const auto& s : series) {
    std::string pts;
    for (size_t i = 0; i < s.y.size(); ++i) {
      double x = pad + (n > 1 ? (w - pad - 8) * i / double(n - 1) : 0);
      double y = 8 + (h - pad - 8) * (1 - s.y[i] / ymax);
      pts += fmt::format("{:.1f},{:.1f} ", x, y);
    }
    out += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"/>", pts, s.color);
  }
  double lx = pad;
  for (const auto& s : series) {
    out += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"12\" fill=\"{}\">{}</text>", lx, h - 8, s.color,
                       html_text(s.name));
    lx += 140;
  }
  return out + "</svg></figure>\n";
}
}  // namespace

std::string html_report(Store& store) {
  Series findings{"findings", "#c0392b", {}}, bugs{"unique bugs", "#2c3e50", {}}, rate{"programs/s", "#27ae60", {}};
  Series campaign_mb{"campaign RSS", "#8e44ad", {}}, workers_mb{"workers' RSS", "#d35400", {}};
  Series fds{"open fds", "#16a085", {}}, workers{"workers", "#7f8c8d", {}}, store_mb{"store MB", "#2980b9", {}};
  {
    // Rows from before schema 6 have no resource columns: they read as 0.
    auto q = store.db().prepare(
        "SELECT campaign_id, programs, findings, unique_bugs, coalesce(campaign_rss_kb, 0), coalesce(workers_rss_kb, 0),"
        " coalesce(workers, 0), coalesce(open_fds, 0), coalesce(store_bytes, 0) FROM throughput ORDER BY rowid");
    int64_t prev_campaign = -1, prev_programs = 0;
    while (q.step()) {
      findings.y.push_back(double(q.column_int(2)));
      bugs.y.push_back(double(q.column_int(3)));
      campaign_mb.y.push_back(double(q.column_int(4)) / 1024);
      workers_mb.y.push_back(double(q.column_int(5)) / 1024);
      workers.y.push_back(double(q.column_int(6)));
      fds.y.push_back(double(q.column_int(7)));
      store_mb.y.push_back(double(q.column_int(8)) / (1024 * 1024));
      int64_t programs = q.column_int(1);
      if (q.column_int(0) != prev_campaign) prev_programs = 0;
      rate.y.push_back(std::max<double>(0, double(programs - prev_programs) / 10.0));
      prev_campaign = q.column_int(0);
      prev_programs = programs;
    }
  }
  std::string s =
      "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>dlfuzz bugs</title><style>"
      "body{font-family:sans-serif;margin:24px;color:#222}table{border-collapse:collapse}"
      "td,th{border:1px solid #ccc;padding:4px 8px;font-size:13px;text-align:left}th{background:#eee}"
      "td:nth-child(4),td:nth-child(5){white-space:nowrap}"
      "figure{display:inline-block;margin:8px 24px 8px 0}figcaption{font-weight:bold}</style></head><body>\n";
  s += fmt::format("<h1>dlfuzz: {} bugs, {} findings, {} programs stored, {} campaigns</h1>\n", store.bugs().size(),
                   store.count("findings"), store.count("programs"), store.count("campaigns"));
  s += svg_chart("Findings over time", {findings});
  s += svg_chart("Unique bugs over time", {bugs});
  s += svg_chart("Throughput over time", {rate});
  // A long campaign's health: what grows here without bound is a leak.
  s += svg_chart("Memory over time (MB)", {campaign_mb, workers_mb});
  s += svg_chart("Open files and workers over time", {fds, workers});
  s += svg_chart("Store size over time (MB)", {store_mb});
  // Wrong results and slowdowns apart: a performance bug's table says by how
  // much (triage/perf_report.h).
  for (const char* kind : {"correctness", "performance"}) {
    bool perf = std::string(kind) == "performance";
    std::string rows;
    for (const auto& b : store.bugs()) {
      if ((b.kind == "performance") != perf) continue;
      std::string status = b.duplicate_of ? fmt::format("{} (dup of {})", b.status, b.duplicate_of) : b.status;
      std::string last = perf ? performance_summary(store.bug_evidence(b.id)) : affects_line(store.env_checks(b.id));
      if (b.split_from) status += fmt::format(" (split from {})", b.split_from);
      std::string where = b.compiler_pass.empty() ? b.layer : b.layer + " / " + b.compiler_pass;
      rows += fmt::format(
          "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
          "</tr>\n",
          b.id, html_text(status), b.hits, html_text(b.first_seen), html_text(b.last_seen), html_text(b.title),
          html_text(where), html_text(b.reduced_ops), html_text(last));
    }
    if (perf && rows.empty()) continue;
    s += fmt::format(
        "<h2>{} bugs</h2><table><tr><th>id</th><th>status</th><th>hits</th><th>first seen</th><th>last seen</th>"
        "<th>title</th><th>layer / pass</th><th>reduced ops</th><th>{}</th></tr>\n{}</table>\n",
        perf ? "Performance" : "Correctness", perf ? "slowdown" : "versions", rows);
  }
  return s + "</body></html>\n";
}

}  // namespace dlfuzz
