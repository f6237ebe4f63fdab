// What tests that build programs from .dlf text share: parse it, failing the
// test (not aborting it) when the text does not parse.
#pragma once
#include <gtest/gtest.h>

#include <string>

#include "generator/dlf.h"

namespace dlfuzz::test {

inline Program parse(const std::string& text, const std::string& name = "test.dlf") {
  ParseResult r = parse_program(text, name);
  EXPECT_TRUE(r.ok()) << (r.error ? r.error->str() : "");
  return r.program;
}

// The parse or verify error of `text` ("file:line:col: message"), or "" when it parses.
inline std::string parse_error(const std::string& text) {
  ParseResult r = parse_program(text);
  return r.ok() ? "" : r.error->str();
}

}  // namespace dlfuzz::test
