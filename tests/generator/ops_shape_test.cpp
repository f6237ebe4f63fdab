// Type rules of the view and shape families: valid nodes get the types PyTorch gives,
// malformed ones an error. Expected types come from running each node through
// torch.ops.aten with torch 1.13 and 2.x (they agree except where noted);
// "stricter" marks nodes PyTorch accepts that these rules reject on purpose.
#include <gtest/gtest.h>

#include "generator/op_spec.h"

namespace dlfuzz {
namespace {

struct Case {
  std::string op;
  std::vector<Arg> args;
  std::string want;  // the outputs' type_str joined by ';', or "error"
};

// Values by id:
//   0 f32[2,3]  1 i32[2,3]  2 bool[2,3]  3 f32[]  4 f32[0,3]  5 f64[3]
//   6 f32[4,1]  7 f32[2,3,4]  8 f32[1,3,4,4]  9 f16[2,3]  10 i64[2,3]  11 u8[2,3]
//   12 i8[2,3]  13 f32[5,3]  14 f32[6]  15 f32[0]
Program fixture() {
  Program p;
  const std::vector<TensorType> ts = {
      {DType::f32, {2, 3}},
      {DType::i32, {2, 3}},
      {DType::b8, {2, 3}},
      {DType::f32, {}},
      {DType::f32, {0, 3}},
      {DType::f64, {3}},
      {DType::f32, {4, 1}},
      {DType::f32, {2, 3, 4}},
      {DType::f32, {1, 3, 4, 4}},
      {DType::f16, {2, 3}},
      {DType::i64, {2, 3}},
      {DType::u8, {2, 3}},
      {DType::i8, {2, 3}},
      {DType::f32, {5, 3}},
      {DType::f32, {6}},
      {DType::f32, {0}},
  };
  for (size_t i = 0; i < ts.size(); ++i) p.add_value("v" + std::to_string(i), ts[i]);
  return p;
}

ArgValue V(int id) { return ValueRef{id}; }

void check(const std::vector<Case>& cases) {
  Program p = fixture();
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

}  // namespace

TEST(OpsView, Infer) {
  check({
      {"view", {{"self", V(0)}, {"size", IntList{3, 2}}}, "f32[3,2]"},
      {"view", {{"self", V(0)}, {"size", IntList{-1}}}, "f32[6]"},
      {"view", {{"self", V(2)}, {"size", IntList{1, 6, 1}}}, "bool[1,6,1]"},
      {"view", {{"self", V(0)}, {"size", IntList{4, -1}}}, "error"},
      {"view", {{"self", V(0)}, {"size", IntList{-1, -1}}}, "error"},
      {"view", {{"self", V(4)}, {"size", IntList{-1, 0}}}, "error"},
      {"view", {{"self", V(4)}, {"size", IntList{3, 0, 2}}}, "f32[3,0,2]"},
      {"view", {{"self", V(3)}, {"size", IntList{}}}, "f32[]"},
      {"view", {{"self", V(3)}, {"size", IntList{1, -1}}}, "f32[1,1]"},
      {"view", {{"self", V(0)}, {"size", IntList{7}}}, "error"},
      {"view", {{"self", V(0)}, {"size", IntList{-2, 3}}}, "error"},
      {"view", {{"self", V(4)}, {"size", IntList{-1, 3}}}, "f32[0,3]"},
      {"permute", {{"self", V(7)}, {"dims", IntList{2, 0, 1}}}, "f32[4,2,3]"},
      {"permute", {{"self", V(7)}, {"dims", IntList{-1, 0, 1}}}, "f32[4,2,3]"},
      {"permute", {{"self", V(7)}, {"dims", IntList{0, 0, 1}}}, "error"},
      {"permute", {{"self", V(7)}, {"dims", IntList{0, 1}}}, "error"},
      {"permute", {{"self", V(3)}, {"dims", IntList{}}}, "f32[]"},
      {"permute", {{"self", V(7)}, {"dims", IntList{0, 1, 3}}}, "error"},
      {"transpose", {{"self", V(7)}, {"dim0", int64_t(0)}, {"dim1", int64_t(-1)}}, "f32[4,3,2]"},
      {"transpose", {{"self", V(3)}, {"dim0", int64_t(0)}, {"dim1", int64_t(-1)}}, "f32[]"},
      {"transpose", {{"self", V(7)}, {"dim0", int64_t(0)}, {"dim1", int64_t(3)}}, "error"},
      {"transpose", {{"self", V(7)}, {"dim0", int64_t(0)}}, "error"},
      {"t", {{"self", V(0)}}, "f32[3,2]"},
      {"t", {{"self", V(5)}}, "f64[3]"},
      {"t", {{"self", V(3)}}, "f32[]"},
      {"t", {{"self", V(7)}}, "error"},
      {"slice", {{"self", V(0)}, {"dim", int64_t(1)}, {"start", int64_t(1)}, {"end", int64_t(3)}, {"step", int64_t(1)}}, "f32[2,2]"},
      {"slice", {{"self", V(13)}, {"dim", int64_t(0)}, {"start", int64_t(-4)}, {"end", int64_t(100)}, {"step", int64_t(2)}}, "f32[2,3]"},
      {"slice", {{"self", V(13)}, {"dim", int64_t(-2)}, {"start", None{}}, {"end", None{}}, {"step", int64_t(3)}}, "f32[2,3]"},
      {"slice", {{"self", V(13)}, {"dim", int64_t(0)}, {"start", int64_t(4)}, {"end", int64_t(1)}, {"step", int64_t(1)}}, "f32[0,3]"},
      {"slice", {{"self", V(13)}, {"dim", int64_t(0)}, {"start", int64_t(-9)}, {"end", int64_t(-7)}, {"step", int64_t(1)}}, "f32[0,3]"},
      {"slice", {{"self", V(13)}, {"dim", int64_t(0)}, {"start", int64_t(0)}, {"end", int64_t(5)}, {"step", int64_t(0)}}, "error"},
      {"slice", {{"self", V(3)}, {"dim", int64_t(0)}, {"start", int64_t(0)}, {"end", int64_t(1)}, {"step", int64_t(1)}}, "error"},
      {"slice", {{"self", V(13)}, {"dim", int64_t(2)}, {"start", int64_t(0)}, {"end", int64_t(1)}, {"step", int64_t(1)}}, "error"},
      {"slice", {{"self", V(4)}, {"dim", int64_t(0)}, {"start", int64_t(-1)}, {"end", int64_t(2)}, {"step", int64_t(2)}}, "f32[0,3]"},
      {"select", {{"self", V(7)}, {"dim", int64_t(1)}, {"index", int64_t(-3)}}, "f32[2,4]"},
      {"select", {{"self", V(7)}, {"dim", int64_t(1)}, {"index", int64_t(3)}}, "error"},
      {"select", {{"self", V(4)}, {"dim", int64_t(0)}, {"index", int64_t(0)}}, "error"},
      {"select", {{"self", V(3)}, {"dim", int64_t(0)}, {"index", int64_t(0)}}, "error"},
      {"select", {{"self", V(5)}, {"dim", int64_t(0)}, {"index", int64_t(2)}}, "f64[]"},
      {"narrow", {{"self", V(13)}, {"dim", int64_t(0)}, {"start", int64_t(1)}, {"length", int64_t(3)}}, "f32[3,3]"},
      {"narrow", {{"self", V(13)}, {"dim", int64_t(0)}, {"start", int64_t(-2)}, {"length", int64_t(2)}}, "f32[2,3]"},
      {"narrow", {{"self", V(13)}, {"dim", int64_t(0)}, {"start", int64_t(5)}, {"length", int64_t(0)}}, "f32[0,3]"},
      {"narrow", {{"self", V(13)}, {"dim", int64_t(0)}, {"start", int64_t(3)}, {"length", int64_t(3)}}, "error"},
      {"narrow", {{"self", V(13)}, {"dim", int64_t(1)}, {"start", int64_t(0)}, {"length", int64_t(-1)}}, "error"},
      {"narrow", {{"self", V(4)}, {"dim", int64_t(0)}, {"start", int64_t(0)}, {"length", int64_t(0)}}, "f32[0,3]"},
      {"narrow", {{"self", V(3)}, {"dim", int64_t(0)}, {"start", int64_t(0)}, {"length", int64_t(0)}}, "error"},
      {"narrow", {{"self", V(13)}, {"dim", int64_t(0)}, {"start", int64_t(-6)}, {"length", int64_t(1)}}, "error"},
      {"squeeze", {{"self", V(6)}, {"dim", int64_t(1)}}, "f32[4]"},
      {"squeeze", {{"self", V(6)}, {"dim", int64_t(0)}}, "f32[4,1]"},
      {"squeeze", {{"self", V(3)}, {"dim", int64_t(-1)}}, "f32[]"},
      {"squeeze", {{"self", V(6)}, {"dim", int64_t(2)}}, "error"},
      {"unsqueeze", {{"self", V(0)}, {"dim", int64_t(2)}}, "f32[2,3,1]"},
      {"unsqueeze", {{"self", V(0)}, {"dim", int64_t(-1)}}, "f32[2,3,1]"},
      {"unsqueeze", {{"self", V(3)}, {"dim", int64_t(0)}}, "f32[1]"},
      {"unsqueeze", {{"self", V(0)}, {"dim", int64_t(3)}}, "error"},
      {"unsqueeze", {{"self", V(0)}, {"dim", int64_t(-4)}}, "error"},
      {"expand", {{"self", V(6)}, {"size", IntList{2, 4, 5}}}, "f32[2,4,5]"},
      {"expand", {{"self", V(6)}, {"size", IntList{-1, -1}}}, "f32[4,1]"},
      {"expand", {{"self", V(6)}, {"size", IntList{0, 4, 0}}}, "f32[0,4,0]"},
      {"expand", {{"self", V(6)}, {"size", IntList{-1, 4, 3}}}, "error"},
      {"expand", {{"self", V(6)}, {"size", IntList{5, 3}}}, "error"},
      {"expand", {{"self", V(6)}, {"size", IntList{3}}}, "error"},
      {"expand", {{"self", V(3)}, {"size", IntList{2, 2}}}, "f32[2,2]"},
      {"expand", {{"self", V(2)}, {"size", IntList{3, 2, 3}}}, "bool[3,2,3]"},
      {"diagonal", {{"self", V(7)}}, "f32[4,2]"},
      {"diagonal", {{"self", V(7)}, {"offset", int64_t(1)}, {"dim1", int64_t(2)}, {"dim2", int64_t(0)}}, "f32[3,1]"},
      {"diagonal", {{"self", V(0)}, {"offset", int64_t(-2)}, {"dim1", int64_t(0)}, {"dim2", int64_t(1)}}, "f32[0]"},
      {"diagonal", {{"self", V(0)}, {"offset", int64_t(5)}}, "f32[0]"},
      {"diagonal", {{"self", V(0)}, {"dim1", int64_t(0)}, {"dim2", int64_t(-2)}}, "error"},
      {"diagonal", {{"self", V(5)}}, "error"},
      {"diagonal", {{"self", V(4)}, {"offset", int64_t(1)}}, "f32[0]"},
      {"unbind", {{"self", V(7)}, {"dim", int64_t(1)}}, "f32[2,4];f32[2,4];f32[2,4]"},
      {"unbind", {{"self", V(0)}}, "f32[3];f32[3]"},
      {"unbind", {{"self", V(3)}, {"dim", int64_t(0)}}, "error"},
      {"unbind", {{"self", V(7)}, {"dim", int64_t(3)}}, "error"},
      {"movedim", {{"self", V(7)}, {"source", int64_t(0)}, {"destination", int64_t(-1)}}, "f32[3,4,2]"},
      {"movedim", {{"self", V(7)}, {"source", int64_t(-1)}, {"destination", int64_t(0)}}, "f32[4,2,3]"},
      {"movedim", {{"self", V(3)}, {"source", int64_t(0)}, {"destination", int64_t(-1)}}, "f32[]"},
      {"movedim", {{"self", V(7)}, {"source", int64_t(3)}, {"destination", int64_t(0)}}, "error"},
      {"view", {{"self", V(9)}, {"size", IntList{6}}}, "f16[6]"},
      {"permute", {{"self", V(11)}, {"dims", IntList{1, 0}}}, "u8[3,2]"},
      {"view", {{"size", IntList{6}}}, "error"},
  });
}

TEST(OpsShape, Infer) {
  check({
      {"reshape", {{"self", V(0)}, {"shape", IntList{3, 2}}}, "f32[3,2]"},
      {"reshape", {{"self", V(3)}, {"shape", IntList{1}}}, "f32[1]"},
      {"reshape", {{"self", V(3)}, {"shape", IntList{}}}, "f32[]"},
      {"reshape", {{"self", V(4)}, {"shape", IntList{-1}}}, "f32[0]"},
      {"reshape", {{"self", V(4)}, {"shape", IntList{5, 0}}}, "f32[5,0]"},
      {"reshape", {{"self", V(0)}, {"shape", IntList{5, -1}}}, "error"},
      {"reshape", {{"self", V(7)}, {"shape", IntList{-1, 2, 2}}}, "f32[6,2,2]"},
      {"reshape", {{"self", V(2)}, {"shape", IntList{6}}}, "bool[6]"},
      {"reshape", {{"self", V(0)}}, "error"},
      {"flatten", {{"self", V(7)}}, "f32[24]"},
      {"flatten", {{"self", V(7)}, {"start_dim", int64_t(1)}}, "f32[2,12]"},
      {"flatten", {{"self", V(7)}, {"start_dim", int64_t(0)}, {"end_dim", int64_t(1)}}, "f32[6,4]"},
      {"flatten", {{"self", V(3)}}, "f32[1]"},
      {"flatten", {{"self", V(3)}, {"start_dim", int64_t(-1)}, {"end_dim", int64_t(0)}}, "f32[1]"},
      {"flatten", {{"self", V(7)}, {"start_dim", int64_t(2)}, {"end_dim", int64_t(1)}}, "error"},
      {"flatten", {{"self", V(7)}, {"start_dim", int64_t(3)}}, "error"},
      {"flatten", {{"self", V(8)}, {"start_dim", int64_t(-2)}, {"end_dim", int64_t(-1)}}, "f32[1,3,16]"},
      {"contiguous", {{"self", V(0)}}, "f32[2,3]"},
      {"contiguous", {{"self", V(8)}, {"memory_format", MemFormat::channels_last}}, "f32[1,3,4,4]"},
      {"contiguous", {{"self", V(7)}, {"memory_format", MemFormat::channels_last}}, "error"},
      {"contiguous", {{"self", V(2)}, {"memory_format", MemFormat::contiguous}}, "bool[2,3]"},
      {"clone", {{"self", V(0)}, {"memory_format", MemFormat::preserve}}, "f32[2,3]"},
      {"clone", {{"self", V(0)}, {"memory_format", None{}}}, "f32[2,3]"},
      {"clone", {{"self", V(0)}, {"memory_format", MemFormat::channels_last}}, "error"},
      {"clone", {{"self", V(8)}, {"memory_format", MemFormat::channels_last}}, "f32[1,3,4,4]"},
      {"cat", {{"tensors", ValueList{{0, 13}}}, {"dim", int64_t(0)}}, "f32[7,3]"},
      {"cat", {{"tensors", ValueList{{0, 0, 0}}}, {"dim", int64_t(-1)}}, "f32[2,9]"},
      {"cat", {{"tensors", ValueList{{0, 13}}}, {"dim", int64_t(1)}}, "error"},
      {"cat", {{"tensors", ValueList{{0, 1}}}}, "f32[4,3]"},
      {"cat", {{"tensors", ValueList{{1, 2}}}}, "i32[4,3]"},
      {"cat", {{"tensors", ValueList{{11, 12}}}}, "error"},  // PyTorch: i16[4,3]; the IR keeps i16 out
      {"cat", {{"tensors", ValueList{{0, 4}}}}, "f32[2,3]"},
      {"cat", {{"tensors", ValueList{{3, 3}}}}, "error"},
      {"cat", {{"tensors", ValueList{{0, 7}}}, {"dim", int64_t(0)}}, "error"},
      {"cat", {{"tensors", ValueList{{0, 0}}}, {"dim", int64_t(2)}}, "error"},
      {"cat", {{"tensors", ValueList{{5}}}}, "f64[3]"},
      {"cat", {{"tensors", ValueList{{0, 9}}}, {"dim", int64_t(0)}}, "f32[4,3]"},
      {"stack", {{"tensors", ValueList{{0, 0}}}, {"dim", int64_t(0)}}, "f32[2,2,3]"},
      {"stack", {{"tensors", ValueList{{0, 0, 0}}}, {"dim", int64_t(-1)}}, "f32[2,3,3]"},
      {"stack", {{"tensors", ValueList{{0, 0}}}, {"dim", int64_t(2)}}, "f32[2,3,2]"},
      {"stack", {{"tensors", ValueList{{3, 3}}}}, "f32[2]"},
      {"stack", {{"tensors", ValueList{{0, 1}}}, {"dim", int64_t(1)}}, "f32[2,2,3]"},
      {"stack", {{"tensors", ValueList{{0, 13}}}}, "error"},
      {"stack", {{"tensors", ValueList{{0, 0}}}, {"dim", int64_t(3)}}, "error"},
      {"stack", {{"tensors", ValueList{{0, 0}}}, {"dim", int64_t(-4)}}, "error"},
      {"split", {{"self", V(13)}, {"split_size", int64_t(2)}}, "f32[2,3];f32[2,3];f32[1,3]"},
      {"split", {{"self", V(13)}, {"split_size", int64_t(5)}}, "f32[5,3]"},
      {"split", {{"self", V(13)}, {"split_size", int64_t(7)}}, "f32[5,3]"},
      {"split", {{"self", V(7)}, {"split_size", int64_t(3)}, {"dim", int64_t(-1)}}, "f32[2,3,3];f32[2,3,1]"},
      {"split", {{"self", V(4)}, {"split_size", int64_t(2)}}, "f32[0,3]"},
      {"split", {{"self", V(4)}, {"split_size", int64_t(0)}}, "f32[0,3]"},
      {"split", {{"self", V(13)}, {"split_size", int64_t(0)}}, "error"},
      {"split", {{"self", V(3)}, {"split_size", int64_t(1)}}, "error"},
      {"split", {{"self", V(13)}, {"split_size", int64_t(-1)}}, "error"},
      {"split", {{"self", V(13)}, {"split_size", int64_t(1)}, {"dim", int64_t(2)}}, "error"},
      {"chunk", {{"self", V(13)}, {"chunks", int64_t(2)}}, "f32[3,3];f32[2,3]"},
      {"chunk", {{"self", V(13)}, {"chunks", int64_t(4)}}, "f32[2,3];f32[2,3];f32[1,3]"},
      {"chunk", {{"self", V(14)}, {"chunks", int64_t(4)}}, "f32[2];f32[2];f32[2]"},
      {"chunk", {{"self", V(14)}, {"chunks", int64_t(5)}}, "f32[2];f32[2];f32[2]"},
      {"chunk", {{"self", V(13)}, {"chunks", int64_t(3)}, {"dim", int64_t(1)}}, "f32[5,1];f32[5,1];f32[5,1]"},
      {"chunk", {{"self", V(0)}, {"chunks", int64_t(9)}, {"dim", int64_t(0)}}, "f32[1,3];f32[1,3]"},
      {"chunk", {{"self", V(4)}, {"chunks", int64_t(3)}}, "f32[0,3];f32[0,3];f32[0,3]"},
      {"chunk", {{"self", V(13)}, {"chunks", int64_t(0)}}, "error"},
      {"chunk", {{"self", V(3)}, {"chunks", int64_t(1)}}, "error"},
      {"repeat", {{"self", V(0)}, {"repeats", IntList{2, 2}}}, "f32[4,6]"},
      {"repeat", {{"self", V(0)}, {"repeats", IntList{3, 1, 2}}}, "f32[3,2,6]"},
      {"repeat", {{"self", V(3)}, {"repeats", IntList{}}}, "f32[]"},
      {"repeat", {{"self", V(3)}, {"repeats", IntList{2, 3}}}, "f32[2,3]"},
      {"repeat", {{"self", V(0)}, {"repeats", IntList{2}}}, "error"},
      {"repeat", {{"self", V(0)}, {"repeats", IntList{0, 1}}}, "f32[0,3]"},
      {"repeat", {{"self", V(0)}, {"repeats", IntList{-1, 1}}}, "error"},
      {"flip", {{"self", V(7)}, {"dims", IntList{0, -1}}}, "f32[2,3,4]"},
      {"flip", {{"self", V(7)}, {"dims", IntList{}}}, "f32[2,3,4]"},
      {"flip", {{"self", V(7)}, {"dims", IntList{0, 0}}}, "error"},
      {"flip", {{"self", V(7)}, {"dims", IntList{3}}}, "error"},
      {"flip", {{"self", V(3)}, {"dims", IntList{0}}}, "f32[]"},
      {"flip", {{"self", V(2)}, {"dims", IntList{1}}}, "bool[2,3]"},
      {"roll", {{"self", V(7)}, {"shifts", IntList{1}}}, "f32[2,3,4]"},
      {"roll", {{"self", V(7)}, {"shifts", IntList{1, -2}}, {"dims", IntList{0, 2}}}, "f32[2,3,4]"},
      {"roll", {{"self", V(7)}, {"shifts", IntList{1, 2}}}, "error"},
      {"roll", {{"self", V(7)}, {"shifts", IntList{1}}, {"dims", IntList{0, 1}}}, "error"},
      {"roll", {{"self", V(7)}, {"shifts", IntList{}}, {"dims", IntList{}}}, "error"},
      {"roll", {{"self", V(7)}, {"shifts", IntList{1, 1}}, {"dims", IntList{0, 0}}}, "f32[2,3,4]"},
      {"roll", {{"self", V(3)}, {"shifts", IntList{1}}}, "f32[]"},
      {"roll", {{"self", V(3)}, {"shifts", IntList{1}}, {"dims", IntList{0}}}, "error"},
      {"roll", {{"self", V(7)}, {"shifts", IntList{1}}, {"dims", IntList{3}}}, "error"},
  });
}

}  // namespace dlfuzz
