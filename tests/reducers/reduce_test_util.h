// Helpers for the reducer tests: .dlf text in, reduced .dlf text out, and the
// small predicates the golden cases use as interestingness tests.
#pragma once
#include <gtest/gtest.h>

#include <string>

#include "generator/dlf.h"
#include "generator/op_spec.h"
#include "reducers/delta.h"

namespace dlfuzz::testing {

inline const std::string kInferHead = "dlfuzz 1 seed=0 policy=0 mode=infer device=cpu world=1 plan=none\n";
inline const std::string kInferOut =
    "dlfuzz 1 seed=0 policy=0000000000000000 mode=infer device=cpu world=1 plan=none\n";

inline Program parse_or_die(const std::string& text) {
  ParseResult r = parse_program(text, "test.dlf");
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error->str()) << "\n" << text;
  return r.program;
}

// Runs the named passes only (no fan-in cut unless asked) and prints the result.
inline std::string reduce_text(const std::string& text, std::vector<std::string> passes, const Interesting& test,
                               ReduceStats* stats = nullptr, bool fan_in = false) {
  ReduceOptions opt;
  opt.passes = std::move(passes);
  opt.fan_in = fan_in;
  return print_program(reduce_program(parse_or_die(text), test, opt, stats));
}

inline int count_op(const Program& p, const std::string& op) {
  int k = 0;
  for_each_node(p.body, [&](const Node& n) { k += n.op == op; });
  return k;
}
inline bool has_op(const Program& p, const std::string& op) { return count_op(p, op) > 0; }

// A coarse sign analysis: can value `v` hold a negative number?
inline bool may_be_negative(const Program& p, int v) {
  if (const InputDecl* in = p.input_of(v)) {
    if (in->init == Init::zeros || in->init == Init::ones) return false;
    return in->init == Init::normal || in->lo < 0;
  }
  bool negative = true;
  for_each_node(p.body, [&](const Node& n) {
    for (int o : n.outputs)
      if (o == v && (n.op == "abs" || n.op == "relu" || n.op == "exp" || n.op == "sigmoid")) negative = false;
  });
  return negative;
}

// "The program still contains a frac node whose input may be negative."
inline bool frac_of_negative(const Program& p) {
  bool found = false;
  for_each_node(p.body, [&](const Node& n) {
    if (n.op == "frac") found = found || may_be_negative(p, node_inputs(n).at(0));
  });
  return found;
}

}  // namespace dlfuzz::testing
