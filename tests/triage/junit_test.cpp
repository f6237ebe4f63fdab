// The JUnit writer: well-formed, escaped, counts that match the cases.
#include <gtest/gtest.h>

#include "triage/junit.h"

namespace dlfuzz {

TEST(JUnit, CountsCasesAndFailuresAndEscapes) {
  JUnitSuite s{"dlfuzz gate", "2026-11-30T05:00:00Z", {{"candidate", "ts-nnc+plugin:/x<y>.so"}}, {}};
  s.cases.push_back({"dlfuzz.gate.correctness", "seed 1", 0.5});
  JUnitCase bad{"dlfuzz.gate.correctness", "seed 2", 0.25, true, "numeric", "a \"quoted\" & <tagged> message",
                "detail\nline\x01two"};
  s.cases.push_back(bad);
  std::string x = junit_xml(s);
  EXPECT_EQ(x.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>", 0), 0u);
  EXPECT_NE(
      x.find("<testsuite name=\"dlfuzz gate\" tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"0\" time=\"0.750\""),
      std::string::npos)
      << x;
  EXPECT_NE(x.find("value=\"ts-nnc+plugin:/x&lt;y&gt;.so\""), std::string::npos) << x;
  EXPECT_NE(x.find("message=\"a &quot;quoted&quot; &amp; &lt;tagged&gt; message\""), std::string::npos) << x;
  EXPECT_NE(x.find("detail\nline?two</failure>"), std::string::npos) << "control characters are not XML";
  EXPECT_NE(x.find("<testcase classname=\"dlfuzz.gate.correctness\" name=\"seed 1\" time=\"0.500\"/>"),
            std::string::npos);
}

}  // namespace dlfuzz
