#include "oracles/finding.h"

#include <regex>

namespace dlfuzz {

std::string normalize_error(const std::string& text) {
  std::string s = text.substr(0, text.find('\n'));
  static const std::regex hex("0x[0-9a-fA-F]+");
  static const std::regex path("(/[A-Za-z0-9_.+-]+)+");
  static const std::regex num("-?[0-9]+(\\.[0-9]+)?(e[-+]?[0-9]+)?");
  static const std::regex space("\\s+");
  s = std::regex_replace(s, hex, "ADDR");
  s = std::regex_replace(s, path, "PATH");
  s = std::regex_replace(s, num, "N");
  s = std::regex_replace(s, space, " ");
  if (s.size() > 200) s.resize(200);
  return s;
}

std::string Finding::signature() const {
  return oracle + "|" + ref_runner + "|" + test_runner + "|" + stage + "|" + error_text;
}

}  // namespace dlfuzz
