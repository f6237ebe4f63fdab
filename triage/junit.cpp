#include "triage/junit.h"

#include <fmt/format.h>

namespace dlfuzz {

namespace {
// Escaped for attributes and text; control characters other than tab and
// newline are not allowed in XML 1.0 at all, so they become '?'.
std::string xml(const std::string& s) {
  std::string o;
  for (unsigned char c : s) {
    switch (c) {
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '&': o += "&amp;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&apos;"; break;
      default: o += (c < 0x20 && c != '\n' && c != '\t') ? '?' : static_cast<char>(c);
    }
  }
  return o;
}
}  // namespace

std::string junit_xml(const JUnitSuite& suite) {
  int failures = 0;
  double seconds = 0;
  for (const auto& c : suite.cases) {
    failures += c.failed;
    seconds += c.seconds;
  }
  std::string s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  s += fmt::format("<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" time=\"{:.3f}\">\n",
                   xml(suite.name), suite.cases.size(), failures, seconds);
  s += fmt::format(
      "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\" time=\"{:.3f}\" "
      "timestamp=\"{}\">\n",
      xml(suite.name), suite.cases.size(), failures, seconds, xml(suite.timestamp));
  if (!suite.properties.empty()) {
    s += "    <properties>\n";
    for (const auto& [k, v] : suite.properties)
      s += fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", xml(k), xml(v));
    s += "    </properties>\n";
  }
  for (const auto& c : suite.cases) {
    s += fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3f}\"", xml(c.classname), xml(c.name),
                     c.seconds);
    if (!c.failed) {
      s += "/>\n";
      continue;
    }
    s += fmt::format(">\n      <failure type=\"{}\" message=\"{}\">{}</failure>\n    </testcase>\n",
                     xml(c.failure_type), xml(c.failure_message), xml(c.failure_text));
  }
  return s + "  </testsuite>\n</testsuites>\n";
}

}  // namespace dlfuzz
