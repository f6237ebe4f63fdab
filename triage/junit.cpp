#include "triage/junit.h"

#include <fmt/format.h>

#include "triage/escape.h"

namespace dlfuzz {

// xml_text (triage/escape.h): compiler error texts are any bytes.

std::string junit_xml(const JUnitSuite& suite) {
  int failures = 0;
  double seconds = 0;
  for (const auto& c : suite.cases) {
    failures += c.failed;
    seconds += c.seconds;
  }
  std::string s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  s += fmt::format("<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" time=\"{:.3f}\">\n",
                   xml_text(suite.name), suite.cases.size(), failures, seconds);
  s += fmt::format(
      "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\" time=\"{:.3f}\" "
      "timestamp=\"{}\">\n",
      xml_text(suite.name), suite.cases.size(), failures, seconds, xml_text(suite.timestamp));
  if (!suite.properties.empty()) {
    s += "    <properties>\n";
    for (const auto& [k, v] : suite.properties)
      s += fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", xml_text(k), xml_text(v));
    s += "    </properties>\n";
  }
  for (const auto& c : suite.cases) {
    s += fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"{:.3f}\"", xml_text(c.classname),
                     xml_text(c.name), c.seconds);
    if (!c.failed) {
      s += "/>\n";
      continue;
    }
    s += fmt::format(">\n      <failure type=\"{}\" message=\"{}\">{}</failure>\n    </testcase>\n",
                     xml_text(c.failure_type), xml_text(c.failure_message), xml_text(c.failure_text));
  }
  return s + "  </testsuite>\n</testsuites>\n";
}

}  // namespace dlfuzz
