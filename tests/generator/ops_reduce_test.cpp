// Type rules of the reduce, cast and ternary families: valid nodes get the
// type PyTorch gives (checked against torch 1.13 and 2.x), malformed ones an error.
#include <gtest/gtest.h>

#include "tests/generator/infer_table.h"

#include "generator/op_spec.h"

namespace dlfuzz {
namespace {

using Case = InferCase;

// Values by id: 0 f32[2,3]  1 i32[2,3]  2 bool[2,3]  3 f32[]  4 f32[0,3]  5 f64[3]
//               6 i64[2]    7 u8[3]     8 i8[3]      9 f16[2,3]
Program fixture() {
  Program p;
  const std::vector<TensorType> ts = {{DType::f32, {2, 3}}, {DType::i32, {2, 3}}, {DType::b8, {2, 3}}, {DType::f32, {}},
                                      {DType::f32, {0, 3}}, {DType::f64, {3}},    {DType::i64, {2}},   {DType::u8, {3}},
                                      {DType::i8, {3}},     {DType::f16, {2, 3}}};
  for (size_t i = 0; i < ts.size(); ++i) p.add_value("v" + std::to_string(i), ts[i]);
  return p;
}

void check(const std::vector<Case>& cases) { check_infer(fixture(), cases); }

TEST(OpsReduce, Infer) {
  check({
      {"sum", {{"self", V(0)}}, "f32[]"},
      {"sum", {{"self", V(1)}}, "i64[]"},
      {"sum", {{"self", V(2)}}, "i64[]"},
      {"sum", {{"self", V(0)}, {"dim", IntList{1}}, {"keepdim", true}}, "f32[2,1]"},
      {"sum", {{"self", V(0)}, {"dim", IntList{-1, 0}}}, "f32[]"},
      {"sum", {{"self", V(0)}, {"dim", IntList{0, -2}}}, "error"},
      {"sum", {{"self", V(0)}, {"dim", IntList{2}}}, "error"},
      {"sum", {{"self", V(0)}, {"dim", IntList{}}}, "error"},
      {"sum", {{"self", V(0)}, {"keepdim", true}}, "error"},
      {"sum", {{"self", V(1)}, {"dim", IntList{0}}, {"dtype", DType::f64}}, "f64[3]"},
      {"sum", {{"self", V(3)}, {"dim", IntList{0}}, {"keepdim", true}}, "f32[]"},
      {"sum", {{"self", V(3)}, {"dim", IntList{0, -1}}}, "error"},
      {"sum", {}, "error"},
      {"mean", {{"self", V(1)}}, "error"},
      {"mean", {{"self", V(0)}, {"dim", IntList{0}}}, "f32[3]"},
      {"prod", {{"self", V(1)}, {"dim", int64_t(0)}}, "i64[3]"},
      {"prod", {{"self", V(0)}, {"dim", IntList{0}}}, "error"},
      {"prod", {{"self", V(9)}, {"dim", int64_t(0)}}, "error"},
      {"amax", {{"self", V(0)}}, "f32[]"},
      {"amax", {{"self", V(0)}, {"dim", IntList{}}}, "f32[]"},
      {"amax", {{"self", V(4)}, {"dim", IntList{0}}}, "error"},
      {"amin", {{"self", V(4)}, {"dim", IntList{1}}}, "f32[0]"},
      {"amin", {{"self", V(2)}, {"dim", IntList{1}}, {"keepdim", true}}, "bool[2,1]"},
      {"argmax", {{"self", V(0)}, {"dim", int64_t(1)}, {"keepdim", true}}, "i64[2,1]"},
      {"argmax", {{"self", V(0)}}, "i64[]"},
      {"argmin", {{"self", V(2)}, {"dim", int64_t(0)}}, "error"},
      {"argmin", {{"self", V(0)}, {"keepdim", true}}, "error"},
      {"var", {{"self", V(0)}, {"dim", IntList{1}}, {"unbiased", false}}, "f32[2]"},
      {"var", {{"self", V(1)}}, "error"},
      {"std", {{"self", V(0)}, {"keepdim", true}}, "error"},
      {"std", {{"self", V(9)}}, "error"},
      {"logsumexp", {{"self", V(0)}}, "error"},
      {"logsumexp", {{"self", V(1)}, {"dim", IntList{1}}}, "f32[2]"},
      {"softmax", {{"self", V(0)}, {"dim", int64_t(1)}}, "f32[2,3]"},
      {"softmax", {{"self", V(0)}, {"dim", int64_t(1)}, {"dtype", DType::f64}}, "f64[2,3]"},
      {"softmax", {{"self", V(0)}, {"dim", int64_t(1)}, {"dtype", DType::i64}}, "error"},
      {"softmax", {{"self", V(0)}}, "error"},
      {"log_softmax", {{"self", V(0)}, {"dim", int64_t(-3)}}, "error"},
      {"log_softmax", {{"self", V(3)}, {"dim", int64_t(-1)}}, "f32[]"},
      {"cumsum", {{"self", V(2)}, {"dim", int64_t(0)}}, "i64[2,3]"},
      {"cumsum", {{"self", V(0)}, {"dim", IntList{0}}}, "error"},
  });
}

TEST(OpsCast, Infer) {
  check({
      {"to", {{"self", V(0)}, {"dtype", DType::i64}}, "i64[2,3]"},
      {"to", {{"self", V(2)}, {"dtype", DType::f16}, {"copy", true}}, "f16[2,3]"},
      {"to", {{"self", V(0)}}, "error"},
      {"to", {{"self", V(0)}, {"dtype", int64_t(4)}}, "error"},
      {"type_as", {{"self", V(0)}, {"other", V(6)}}, "i64[2,3]"},
      {"type_as", {{"self", V(0)}}, "error"},
  });
}

TEST(OpsTernary, Infer) {
  check({
      {"where", {{"condition", V(2)}, {"self", V(0)}, {"other", V(5)}}, "f64[2,3]"},
      {"where", {{"condition", V(2)}, {"self", V(1)}, {"other", 1.5}}, "f32[2,3]"},
      {"where", {{"condition", V(2)}, {"self", int64_t(2)}, {"other", V(1)}}, "i32[2,3]"},
      {"where", {{"condition", V(2)}, {"self", 1.0}, {"other", int64_t(2)}}, "f32[2,3]"},
      {"where", {{"condition", V(2)}, {"self", V(3)}, {"other", V(5)}}, "f64[2,3]"},
      {"where", {{"condition", V(0)}, {"self", V(0)}, {"other", V(0)}}, "error"},
      {"where", {{"condition", V(2)}, {"self", V(0)}, {"other", V(6)}}, "error"},
      {"where", {{"condition", V(2)}, {"self", V(0)}}, "error"},
      {"addcmul", {{"self", V(0)}, {"tensor1", V(1)}, {"tensor2", V(5)}}, "f64[2,3]"},
      {"addcmul", {{"self", V(1)}, {"tensor1", V(1)}, {"tensor2", V(1)}, {"value", int64_t(2)}}, "i32[2,3]"},
      {"addcmul", {{"self", V(1)}, {"tensor1", V(1)}, {"tensor2", V(1)}, {"value", 1.5}}, "error"},
      {"addcmul", {{"self", V(2)}, {"tensor1", V(2)}, {"tensor2", V(2)}}, "error"},
      {"addcmul", {{"self", V(7)}, {"tensor1", V(8)}, {"tensor2", V(8)}}, "error"},
      {"addcmul", {{"self", V(0)}, {"tensor1", V(0)}}, "error"},
      {"addcdiv", {{"self", V(0)}, {"tensor1", V(1)}, {"tensor2", V(0)}}, "error"},
      {"addcdiv", {{"self", V(0)}, {"tensor1", V(0)}, {"tensor2", V(5)}, {"value", 0.5}}, "f64[2,3]"},
      {"lerp", {{"self", V(0)}, {"end", V(0)}, {"weight", 0.5}}, "f32[2,3]"},
      {"lerp", {{"self", V(0)}, {"end", V(0)}, {"weight", V(3)}}, "f32[2,3]"},
      {"lerp", {{"self", V(0)}, {"end", V(5)}, {"weight", 0.5}}, "error"},
      {"lerp", {{"self", V(1)}, {"end", V(1)}, {"weight", 0.5}}, "error"},
      {"lerp", {{"self", V(0)}, {"end", V(0)}}, "error"},
  });
}

}  // namespace
}  // namespace dlfuzz
