// Table-driven checks of op type rules: a node's arguments in, the output
// types (joined by ';') or "error" out. Shared by the ops_*_test.cpp files.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "generator/op_spec.h"

namespace dlfuzz {

struct InferCase {
  std::string op;
  std::vector<Arg> args;
  std::string want;  // the outputs' type_str joined by ';', or "error"
};

inline ArgValue V(int id) { return ValueRef{id}; }

inline void check_infer(const Program& p, const std::vector<InferCase>& cases) {
  for (const auto& c : cases) {
    const OpSpec* s = find_op(c.op);
    ASSERT_NE(s, nullptr) << c.op;
    Node n;
    n.op = c.op;
    n.args = c.args;
    std::vector<TensorType> out;
    std::string err = s->infer(p, n, out);
    std::string got;
    for (const auto& t : out) got += (got.empty() ? "" : ";") + type_str(t);
    if (!err.empty()) got = "error";
    EXPECT_EQ(got, c.want) << "case " << (&c - &cases[0]) << " (" << c.op << "): " << err;
  }
}

}  // namespace dlfuzz
