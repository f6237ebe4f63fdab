// JUnit XML, the report format CI systems read (Jenkins, GitLab, GitHub
// Actions): one <testsuite> of <testcase>s, a <failure> in each that failed.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace dlfuzz {

struct JUnitCase {
  std::string classname, name;
  double seconds = 0;
  bool failed = false;
  std::string failure_type = "", failure_message = "", failure_text = "";
};

struct JUnitSuite {
  std::string name, timestamp;  // timestamp: ISO 8601
  std::vector<std::pair<std::string, std::string>> properties;
  std::vector<JUnitCase> cases;
};

std::string junit_xml(const JUnitSuite& suite);

}  // namespace dlfuzz
