#include "triage/escape.h"

#include <algorithm>
#include <cstring>

namespace dlfuzz {

namespace {
size_t longest_backtick_run(const std::string& s) {
  size_t best = 0, run = 0;
  for (char c : s) {
    run = c == '`' ? run + 1 : 0;
    best = std::max(best, run);
  }
  return best;
}

std::string one_line(const std::string& s) {
  std::string o = s;
  std::replace(o.begin(), o.end(), '\n', ' ');
  std::replace(o.begin(), o.end(), '\r', ' ');
  return o;
}

// The length of the well-formed UTF-8 sequence at s[i], or 0 (RFC 3629: no
// overlong forms, no surrogates, nothing above U+10FFFF).
size_t utf8_length(const std::string& s, size_t i) {
  auto byte = [&](size_t k) { return k < s.size() ? static_cast<unsigned char>(s[k]) : 0u; };
  unsigned c = byte(i);
  auto cont = [&](size_t k) { return (byte(k) & 0xC0) == 0x80; };
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return cont(i + 1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    unsigned c1 = byte(i + 1);
    if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 > 0x9F)) return 0;
    return cont(i + 1) && cont(i + 2) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    unsigned c1 = byte(i + 1);
    if ((c == 0xF0 && c1 < 0x90) || (c == 0xF4 && c1 > 0x8F)) return 0;
    return cont(i + 1) && cont(i + 2) && cont(i + 3) ? 4 : 0;
  }
  return 0;
}
}  // namespace

std::string md_text(const std::string& s) {
  // Mid-line, these are what can start markup: emphasis, code, links, raw
  // HTML, entities, tables, strikethrough. ('.', '-', '+' only matter at the
  // start of a line, and a line here starts with dlfuzz's own text.)
  static const char* kSpecial = "\\`*_[]<>|~&#";
  std::string o;
  for (char c : one_line(s)) {
    if (c != '\0' && std::strchr(kSpecial, c)) o += '\\';
    o += c;
  }
  return o;
}

std::string md_code(const std::string& s) {
  std::string body = one_line(s), fence(longest_backtick_run(body) + 1, '`');
  // A span that starts or ends with a backtick needs a space inside its fence.
  bool pad = !body.empty() && (body.front() == '`' || body.back() == '`');
  return fence + (pad ? " " : "") + body + (pad ? " " : "") + fence;
}

std::string md_block(const std::string& s, const std::string& lang) {
  std::string fence(std::max<size_t>(3, longest_backtick_run(s) + 1), '`');
  std::string body = s.empty() || s.back() == '\n' ? s : s + "\n";
  return fence + lang + "\n" + body + fence + "\n";
}

std::string html_text(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '&': o += "&amp;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&#39;"; break;
      default: o += c;
    }
  }
  return o;
}

std::string xml_text(const std::string& s) {
  std::string o;
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t n = utf8_length(s, i);
    if (n == 0) {
      o += '?';
      ++i;
      continue;
    }
    if (n > 1) {
      // U+FFFE and U+FFFF are not XML characters either.
      bool nonchar = n == 3 && c == 0xEF && static_cast<unsigned char>(s[i + 1]) == 0xBF &&
                     static_cast<unsigned char>(s[i + 2]) >= 0xBE;
      o += nonchar ? std::string("?") : s.substr(i, n);
      i += n;
      continue;
    }
    switch (c) {
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '&': o += "&amp;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&apos;"; break;
      default: o += (c < 0x20 && c != '\n' && c != '\t' && c != '\r') ? '?' : static_cast<char>(c);
    }
    ++i;
  }
  return o;
}

}  // namespace dlfuzz
