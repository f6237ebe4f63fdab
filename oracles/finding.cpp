#include "oracles/finding.h"

#include <algorithm>
#include <regex>

namespace dlfuzz {

namespace {
// TorchScript wraps the real error after a traceback; keep the line that says
// what failed ("RuntimeError: ..."), not the generic first one.
std::string key_line(const std::string& text) {
  std::string first = text.substr(0, text.find('\n'));
  if (text.find("The following operation failed in the TorchScript interpreter") == std::string::npos) return first;
  size_t end = text.find_last_not_of("\n ");
  if (end == std::string::npos) return first;
  size_t start = text.rfind('\n', end);
  return text.substr(start == std::string::npos ? 0 : start + 1,
                     end - (start == std::string::npos ? 0 : start + 1) + 1);
}
}  // namespace

std::string normalize_error(const std::string& text) {
  std::string s = key_line(text);
  static const std::regex hex("0x[0-9a-fA-F]+");
  static const std::regex path("(/[A-Za-z0-9_.+-]+)+");
  // dtype names: the same kernel bug shows up for every dtype it is fed.
  static const std::regex dtype_name(
      "\\b(CPU|CUDA)?(Float|Double|Half|BFloat16|Long|Int|Short|Char|Byte|Bool|ComplexFloat|ComplexDouble)(Type)?\\b");
  static const std::regex dtype_word("\\b(float|double|half|bfloat16|u?int(8|16|32|64)|float(16|32|64))\\b");
  static const std::regex dtype_after("\\b(dtype |torch\\.)(long|int|short|char|byte|bool)\\b");
  static const std::regex num("-?[0-9]+(\\.[0-9]+)?(e[-+]?[0-9]+)?");
  static const std::regex shape_list("\\[N(, N)*\\]");  // shapes of any rank
  static const std::regex shape_tuple("\\(N(, N)+\\)");
  static const std::regex space("\\s+");
  // An FX node printed in the message ("Failed serializing node flex_attention
  // in graph: %flex_attention : [...] = call_function[...](args = (%einsum,
  // ...))"): its arguments name the program's values, not the failure.
  static const std::regex fx_args("\\(args = .*");
  s = std::regex_replace(s, fx_args, "(args = ...)");
  s = std::regex_replace(s, hex, "ADDR");
  s = std::regex_replace(s, path, "PATH");
  s = std::regex_replace(s, dtype_name, "$1DTYPE$3");
  s = std::regex_replace(s, dtype_word, "DTYPE");
  s = std::regex_replace(s, dtype_after, "$1DTYPE");
  s = std::regex_replace(s, num, "N");
  s = std::regex_replace(s, shape_list, "[N...]");
  s = std::regex_replace(s, shape_tuple, "(N...)");
  s = std::regex_replace(s, space, " ");
  if (s.size() > 200) s.resize(200);
  return s;
}

std::string signature_without_ranks(const std::string& signature) {
  // oracle|ref|test|stage|error: the ref is the second field.
  size_t ref_start = signature.find('|');
  size_t ref_end = ref_start == std::string::npos ? std::string::npos : signature.find('|', ref_start + 1);
  std::string s = signature;
  if (ref_end != std::string::npos && ref_end - ref_start > 2 && s.compare(ref_end - 2, 2, "@1") == 0)
    s.erase(ref_end - 2, 2);
  static const std::regex rank_prefix("rank N: ");
  return std::regex_replace(s, rank_prefix, "");
}

std::string signature_without_runners(const std::string& signature) {
  // oracle|ref|test|stage|error: drop the second and third fields.
  size_t ref = signature.find('|');
  size_t test = ref == std::string::npos ? ref : signature.find('|', ref + 1);
  size_t stage = test == std::string::npos ? test : signature.find('|', test + 1);
  if (stage == std::string::npos) return signature;
  return signature.substr(0, ref) + signature.substr(stage);
}

std::string Finding::signature() const {
  return oracle + "|" + ref_runner + "|" + test_runner + "|" + stage + "|" + error_text;
}

std::string Finding::bug_signature() const {
  std::string s = signature();
  if (!ablation.is_null() && !layer.empty()) s += "|layer=" + layer;
  if (!first_op.empty()) s += "|first=" + first_op;
  return s;
}

std::string base_signature(const std::string& bug_signature) {
  size_t cut = std::min({bug_signature.find("|layer="), bug_signature.find("|first="), bug_signature.find("|ops=")});
  return cut == std::string::npos ? bug_signature : bug_signature.substr(0, cut);
}

}  // namespace dlfuzz
