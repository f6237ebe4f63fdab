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

}  // namespace dlfuzz::test
