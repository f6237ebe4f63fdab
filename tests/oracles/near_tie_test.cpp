// A comparison's flip explained by its operands' rounding (near_tie.h), on
// hand-made host tensors.
#include <gtest/gtest.h>

#include <map>

#include "oracles/near_tie.h"
#include "tests/oracles/host_tensors.h"

namespace dlfuzz {

namespace {
using test::make_tensor;
HostTensor bools(Shape shape, const std::vector<uint8_t>& v) { return make_tensor(DType::b8, std::move(shape), v); }
HostTensor f32(Shape shape, const std::vector<float>& v) { return make_tensor(DType::f32, std::move(shape), v); }

Node comparison(const std::string& op, ArgValue a, ArgValue b) {
  Node n;
  n.op = op;
  n.args = {{"self", std::move(a)}, {"other", std::move(b)}};
  n.outputs = {3};
  return n;
}

OperandLookup values(const std::map<int, HostTensor>& v) {
  return [v](int id) -> const HostTensor* {
    auto it = v.find(id);
    return it == v.end() ? nullptr : &it->second;
  };
}
}  // namespace

// lt(a, b) with a and b one rounding apart in the two runs: each run's result
// is right for its own operands.
TEST(NearTie, EachRunComparingItsOwnRoundedOperandsIsATie) {
  Node lt = comparison("lt", ValueRef{1}, ValueRef{2});
  std::map<int, HostTensor> eager = {{1, f32({2}, {1.0f, 2.0f})}, {2, f32({2}, {1.0000001f, 2.0f})}};
  std::map<int, HostTensor> compiled = {{1, f32({2}, {1.0000002f, 2.0f})}, {2, f32({2}, {1.0000001f, 2.0f})}};
  EXPECT_TRUE(follows_from_operands(lt, bools({2}, {1, 0}), values(eager)));
  EXPECT_TRUE(follows_from_operands(lt, bools({2}, {0, 0}), values(compiled)));
}

// A miscompiled comparison gives a result its own operands do not.
TEST(NearTie, AResultItsOperandsDoNotGiveIsNotATie) {
  Node le = comparison("le", ValueRef{1}, ValueRef{2});
  std::map<int, HostTensor> run = {{1, f32({2}, {1.0f, 2.0f})}, {2, f32({2}, {1.0f, 2.0f})}};
  EXPECT_FALSE(follows_from_operands(le, bools({2}, {1, 0}), values(run)));  // le(2, 2) is true
  EXPECT_FALSE(follows_from_operands(le, bools({2}, {1, 1}), values({})));   // operands unknown
  EXPECT_FALSE(follows_from_operands(comparison("add", ValueRef{1}, ValueRef{2}), bools({2}, {1, 1}), values(run)));
}

// A number operand, and a tensor broadcast to the result ([2,1] against [3]).
TEST(NearTie, NumbersAndBroadcastOperands) {
  std::map<int, HostTensor> run = {{1, f32({2, 1}, {0.5f, 3.0f})}};
  EXPECT_TRUE(follows_from_operands(comparison("gt", ValueRef{1}, 1.0), bools({2, 1}, {0, 1}), values(run)));
  run[2] = f32({3}, {0.0f, 1.0f, 4.0f});
  EXPECT_TRUE(follows_from_operands(comparison("ge", ValueRef{1}, ValueRef{2}), bools({2, 3}, {1, 0, 0, 1, 1, 0}),
                                    values(run)));
  EXPECT_FALSE(follows_from_operands(comparison("ge", ValueRef{1}, ValueRef{2}), bools({2, 3}, {1, 1, 0, 1, 1, 0}),
                                     values(run)));
}

}  // namespace dlfuzz
