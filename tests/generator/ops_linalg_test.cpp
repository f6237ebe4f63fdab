// Type rules of the linalg, conv and pool families: valid nodes get the types PyTorch gives,
// malformed ones an error. Expected types come from running each node through
// torch.ops.aten with torch 1.13 and 2.x (they agree except where noted);
// "stricter" marks nodes PyTorch accepts that these rules reject on purpose.
#include <gtest/gtest.h>

#include "tests/generator/infer_table.h"

#include "generator/op_spec.h"

namespace dlfuzz {
namespace {

using Case = InferCase;

// Values by id:
//   0 f32[2,3]  1 f32[3,4]  2 f32[3]  3 f32[4]  4 f32[5,2,3]  5 f32[5,3,4]
//   6 f32[1,3,4]  7 f64[3,4]  8 i64[2,3]  9 f16[2,3]  10 f32[]  11 f32[2,4]
//   12 f32[2,4,7]  13 f32[6,2,3]  14 f32[6]  15 f32[3,4,3]  16 f32[1,4,5,6]  17 f32[2,4,3,2]
//   18 f32[2]  19 f32[4,7]  20 f32[0,4,7]  21 f64[6,2,3]  22 f32[7,1,2,3]  23 bf16[2,4,7]
//   24 f32[3,5]  25 f32[5,4,3]  26 f32[1,4]  27 i64[3,4]  28 f32[3,1]
Program fixture() {
  Program p;
  const std::vector<TensorType> ts = {
      {DType::f32, {2, 3}},       {DType::f32, {3, 4}},       {DType::f32, {3}},          {DType::f32, {4}},
      {DType::f32, {5, 2, 3}},    {DType::f32, {5, 3, 4}},    {DType::f32, {1, 3, 4}},    {DType::f64, {3, 4}},
      {DType::i64, {2, 3}},       {DType::f16, {2, 3}},       {DType::f32, {}},           {DType::f32, {2, 4}},
      {DType::f32, {2, 4, 7}},    {DType::f32, {6, 2, 3}},    {DType::f32, {6}},          {DType::f32, {3, 4, 3}},
      {DType::f32, {1, 4, 5, 6}}, {DType::f32, {2, 4, 3, 2}}, {DType::f32, {2}},          {DType::f32, {4, 7}},
      {DType::f32, {0, 4, 7}},    {DType::f64, {6, 2, 3}},    {DType::f32, {7, 1, 2, 3}}, {DType::bf16, {2, 4, 7}},
      {DType::f32, {3, 5}},       {DType::f32, {5, 4, 3}},    {DType::f32, {1, 4}},       {DType::i64, {3, 4}},
      {DType::f32, {3, 1}},
  };
  for (size_t i = 0; i < ts.size(); ++i) p.add_value("v" + std::to_string(i), ts[i]);
  return p;
}

void check(const std::vector<Case>& cases) { check_infer(fixture(), cases); }

}  // namespace

TEST(OpsLinalg, Infer) {
  check({
      {"mm", {{"self", V(0)}, {"mat2", V(1)}}, "f32[2,4]"},
      {"mm", {{"self", V(0)}, {"mat2", V(0)}}, "error"},
      {"mm", {{"self", V(0)}, {"mat2", V(7)}}, "error"},
      {"mm", {{"self", V(2)}, {"mat2", V(1)}}, "error"},
      {"mm", {{"self", V(9)}, {"mat2", V(9)}}, "error"},
      {"mm", {{"self", V(8)}, {"mat2", V(27)}}, "error"},  // stricter: i64[2,4] (float only)
      {"matmul", {{"self", V(2)}, {"other", V(2)}}, "f32[]"},
      {"matmul", {{"self", V(2)}, {"other", V(1)}}, "f32[4]"},
      {"matmul", {{"self", V(0)}, {"other", V(2)}}, "f32[2]"},
      {"matmul", {{"self", V(0)}, {"other", V(1)}}, "f32[2,4]"},
      {"matmul", {{"self", V(4)}, {"other", V(1)}}, "f32[5,2,4]"},
      {"matmul", {{"self", V(4)}, {"other", V(2)}}, "f32[5,2]"},
      {"matmul", {{"self", V(2)}, {"other", V(5)}}, "f32[5,4]"},
      {"matmul", {{"self", V(4)}, {"other", V(5)}}, "f32[5,2,4]"},
      {"matmul", {{"self", V(4)}, {"other", V(6)}}, "f32[5,2,4]"},
      {"matmul", {{"self", V(0)}, {"other", V(6)}}, "f32[1,2,4]"},
      {"matmul", {{"self", V(10)}, {"other", V(2)}}, "error"},
      {"matmul", {{"self", V(0)}, {"other", V(0)}}, "error"},
      {"matmul", {{"self", V(0)}, {"other", V(7)}}, "error"},
      {"matmul", {{"self", V(22)}, {"other", V(5)}}, "f32[7,5,2,4]"},
      {"bmm", {{"self", V(4)}, {"mat2", V(5)}}, "f32[5,2,4]"},
      {"bmm", {{"self", V(4)}, {"mat2", V(6)}}, "error"},
      {"bmm", {{"self", V(0)}, {"mat2", V(1)}}, "error"},
      {"addmm", {{"self", V(11)}, {"mat1", V(0)}, {"mat2", V(1)}}, "f32[2,4]"},
      {"addmm", {{"self", V(3)}, {"mat1", V(0)}, {"mat2", V(1)}, {"beta", 0.5}, {"alpha", int64_t(2)}}, "f32[2,4]"},
      {"addmm", {{"self", V(10)}, {"mat1", V(0)}, {"mat2", V(1)}}, "f32[2,4]"},
      {"addmm", {{"self", V(26)}, {"mat1", V(0)}, {"mat2", V(1)}}, "f32[2,4]"},
      {"addmm", {{"self", V(2)}, {"mat1", V(0)}, {"mat2", V(1)}}, "error"},
      {"addmm", {{"self", V(6)}, {"mat1", V(0)}, {"mat2", V(1)}}, "error"},
      {"addmm", {{"self", V(11)}, {"mat1", V(0)}, {"mat2", V(0)}}, "error"},
      {"addmm", {{"self", V(11)}, {"mat1", V(0)}}, "error"},
      {"baddbmm", {{"self", V(3)}, {"batch1", V(4)}, {"batch2", V(5)}}, "f32[5,2,4]"},
      {"baddbmm", {{"self", V(6)}, {"batch1", V(4)}, {"batch2", V(5)}, {"alpha", 0.5}}, "error"},
      {"baddbmm", {{"self", V(25)}, {"batch1", V(4)}, {"batch2", V(5)}}, "error"},
      {"baddbmm", {{"self", V(11)}, {"batch1", V(4)}, {"batch2", V(5)}}, "f32[5,2,4]"},
      {"linear", {{"input", V(1)}, {"weight", V(11)}}, "f32[3,2]"},
      {"linear", {{"input", V(5)}, {"weight", V(11)}, {"bias", V(18)}}, "f32[5,3,2]"},
      {"linear", {{"input", V(3)}, {"weight", V(11)}}, "f32[2]"},
      {"linear", {{"input", V(1)}, {"weight", V(11)}, {"bias", None{}}}, "f32[3,2]"},
      {"linear", {{"input", V(10)}, {"weight", V(28)}}, "error"},
      {"linear", {{"input", V(1)}, {"weight", V(7)}}, "error"},
      {"linear", {{"input", V(1)}, {"weight", V(11)}, {"bias", V(14)}}, "error"},
      {"linear", {{"input", V(1)}, {"weight", V(3)}}, "error"},  // stricter: f32[3] (1-d weight)
      {"linear", {{"input", V(8)}, {"weight", V(8)}}, "error"},  // stricter: i64[2,2]
      {"linear",
       {{"input", V(1)}, {"weight", V(11)}, {"bias", V(10)}},
       "error"},  // stricter: f32[3,2] (bias must be [out])
      {"linear", {{"input", V(0)}, {"weight", V(11)}}, "error"},
      {"linear", {{"input", V(11)}}, "error"},
  });
}

TEST(OpsConv, Infer) {
  check({
      {"conv1d", {{"input", V(12)}, {"weight", V(15)}}, "f32[2,3,5]"},
      {"conv1d", {{"input", V(12)}, {"weight", V(13)}, {"groups", int64_t(2)}}, "f32[2,6,5]"},
      {"conv1d",
       {{"input", V(12)},
        {"weight", V(13)},
        {"bias", V(14)},
        {"stride", IntList{2}},
        {"padding", IntList{1}},
        {"dilation", IntList{2}},
        {"groups", int64_t(2)}},
       "f32[2,6,3]"},
      {"conv1d", {{"input", V(19)}, {"weight", V(15)}, {"stride", IntList{3}}}, "f32[3,2]"},
      {"conv1d", {{"input", V(12)}, {"weight", V(13)}}, "error"},
      {"conv1d", {{"input", V(12)}, {"weight", V(15)}, {"dilation", IntList{4}}}, "error"},
      {"conv1d",
       {{"input", V(12)}, {"weight", V(15)}, {"padding", IntList{1}}, {"dilation", IntList{4}}},
       "f32[2,3,1]"},
      {"conv1d", {{"input", V(12)}, {"weight", V(15)}, {"bias", V(14)}}, "error"},
      {"conv1d", {{"input", V(12)}, {"weight", V(21)}, {"groups", int64_t(2)}}, "error"},
      {"conv1d", {{"input", V(23)}, {"weight", V(15)}}, "error"},
      {"conv1d", {{"input", V(12)}, {"weight", V(15)}, {"stride", IntList{0}}}, "error"},
      {"conv1d", {{"input", V(12)}, {"weight", V(15)}, {"padding", IntList{-1}}}, "error"},
      {"conv1d", {{"input", V(12)}, {"weight", V(15)}, {"stride", IntList{1, 1}}}, "error"},
      {"conv1d", {{"input", V(12)}, {"weight", V(13)}, {"groups", int64_t(4)}}, "error"},
      {"conv1d", {{"input", V(12)}, {"weight", V(13)}, {"groups", int64_t(3)}}, "error"},
      {"conv1d", {{"input", V(16)}, {"weight", V(15)}}, "error"},
      {"conv1d", {{"input", V(20)}, {"weight", V(15)}}, "error"},  // stricter: f32[0,3,5] (zero-size input)
      {"conv2d", {{"input", V(16)}, {"weight", V(17)}}, "f32[1,2,3,5]"},
      {"conv2d",
       {{"input", V(16)},
        {"weight", V(17)},
        {"bias", V(18)},
        {"stride", IntList{2, 1}},
        {"padding", IntList{1, 0}},
        {"dilation", IntList{1, 2}}},
       "f32[1,2,3,4]"},
      {"conv2d", {{"input", V(16)}, {"weight", V(17)}, {"stride", IntList{2}}}, "f32[1,2,2,3]"},
      {"conv2d", {{"input", V(16)}, {"weight", V(17)}, {"padding", IntList{2}}}, "f32[1,2,7,9]"},
      {"conv2d", {{"input", V(16)}, {"weight", V(15)}}, "error"},
      {"conv2d", {{"input", V(12)}, {"weight", V(17)}}, "error"},
      {"conv2d", {{"input", V(16)}, {"weight", V(22)}, {"groups", int64_t(4)}}, "error"},
      {"conv2d", {{"input", V(16)}, {"weight", V(22)}, {"groups", int64_t(2)}}, "error"},
  });
}

TEST(OpsPool, Infer) {
  check({
      {"max_pool1d", {{"self", V(12)}, {"kernel_size", IntList{3}}}, "f32[2,4,2]"},
      {"max_pool1d",
       {{"self", V(12)},
        {"kernel_size", IntList{3}},
        {"stride", IntList{2}},
        {"padding", IntList{1}},
        {"dilation", IntList{2}},
        {"ceil_mode", true}},
       "f32[2,4,3]"},
      {"max_pool1d",
       {{"self", V(19)}, {"kernel_size", IntList{2}}, {"stride", IntList{2}}, {"ceil_mode", true}},
       "f32[4,4]"},
      {"max_pool1d", {{"self", V(12)}, {"kernel_size", IntList{3}}, {"padding", IntList{2}}}, "error"},
      {"max_pool1d", {{"self", V(12)}, {"kernel_size", IntList{8}}}, "error"},  // 1.13: f32[2,4,0], 2.x: error
      {"max_pool1d", {{"self", V(12)}, {"kernel_size", IntList{0}}}, "error"},
      {"max_pool1d", {{"self", V(12)}}, "error"},
      {"max_pool1d", {{"self", V(2)}, {"kernel_size", IntList{1}}}, "error"},
      {"max_pool1d", {{"self", V(8)}, {"kernel_size", IntList{1}}}, "error"},
      {"max_pool1d",
       {{"self", V(20)}, {"kernel_size", IntList{2}}},
       "error"},  // stricter: f32[0,4,3] (zero-size input)
      {"max_pool2d", {{"self", V(16)}, {"kernel_size", IntList{2, 3}}}, "f32[1,4,2,2]"},
      {"max_pool2d",
       {{"self", V(16)},
        {"kernel_size", IntList{3}},
        {"stride", IntList{2}},
        {"padding", IntList{1}},
        {"ceil_mode", true}},
       "f32[1,4,3,4]"},
      {"max_pool2d", {{"self", V(16)}, {"kernel_size", IntList{2, 2}}, {"stride", IntList{}}}, "f32[1,4,2,3]"},
      {"max_pool2d", {{"self", V(12)}, {"kernel_size", IntList{2, 2}}}, "f32[2,2,3]"},
      {"max_pool2d", {{"self", V(16)}, {"kernel_size", IntList{3, 3}}, {"dilation", IntList{2, 3}}}, "error"},
      {"avg_pool1d",
       {{"self", V(12)},
        {"kernel_size", IntList{3}},
        {"stride", IntList{2}},
        {"padding", IntList{1}},
        {"ceil_mode", true},
        {"count_include_pad", false}},
       "f32[2,4,4]"},
      {"avg_pool1d",
       {{"self", V(24)}, {"kernel_size", IntList{2}}, {"stride", IntList{2}}, {"ceil_mode", true}},
       "f32[3,3]"},
      {"avg_pool1d", {{"self", V(24)}, {"kernel_size", IntList{2}}, {"padding", IntList{2}}}, "error"},
      {"avg_pool1d", {{"self", V(24)}, {"kernel_size", IntList{6}}}, "error"},
      {"avg_pool1d", {{"self", V(23)}, {"kernel_size", IntList{2}}}, "error"},  // stricter: bf16[2,4,3] (no f16/bf16)
      {"avg_pool2d",
       {{"self", V(16)},
        {"kernel_size", IntList{2, 3}},
        {"stride", IntList{1, 2}},
        {"padding", IntList{1, 1}},
        {"ceil_mode", true},
        {"divisor_override", int64_t(3)}},
       "f32[1,4,6,4]"},
      {"avg_pool2d", {{"self", V(16)}, {"kernel_size", IntList{2}}, {"divisor_override", int64_t(0)}}, "error"},
      {"avg_pool2d", {{"self", V(16)}, {"kernel_size", IntList{2}}, {"divisor_override", None{}}}, "f32[1,4,2,3]"},
      {"adaptive_avg_pool1d", {{"self", V(12)}, {"output_size", IntList{3}}}, "f32[2,4,3]"},
      {"adaptive_avg_pool1d", {{"self", V(19)}, {"output_size", IntList{9}}}, "f32[4,9]"},
      {"adaptive_avg_pool1d", {{"self", V(2)}, {"output_size", IntList{2}}}, "error"},
      {"adaptive_avg_pool1d", {{"self", V(12)}, {"output_size", IntList{2, 2}}}, "error"},
      {"adaptive_avg_pool2d", {{"self", V(16)}, {"output_size", IntList{2, 3}}}, "f32[1,4,2,3]"},
      {"adaptive_avg_pool2d", {{"self", V(12)}, {"output_size", IntList{2, 3}}}, "f32[2,2,3]"},
      {"adaptive_avg_pool2d", {{"self", V(16)}, {"output_size", IntList{1, 0}}}, "error"},  // stricter: f32[1,4,1,0]
      {"adaptive_avg_pool2d", {{"self", V(16)}, {"output_size", IntList{2}}}, "error"},
  });
}

}  // namespace dlfuzz
