// Data-dependent sizes, subscripts, _foreach_*, dropout, view(dtype) and
// .item(): type rules, spellings, and over many seeds every op is generated,
// verifies and round-trips through .dlf.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "tests/generator/infer_table.h"
#include "tests/generator/new_ops.h"

#include "generator/dlf.h"
#include "generator/emit.h"
#include "generator/generator.h"
#include "generator/summary.h"
#include "generator/verify.h"

namespace dlfuzz {
namespace {

// Values by id: 0 f32[2,3]  1 b8[2,3]  2 b8[2]  3 i64[4]  4 f32[3]  5 f32[]  6 i64[]  7 f32[2,4]  8 f16[2]
Program fixture() {
  Program p;
  const std::vector<TensorType> ts = {{DType::f32, {2, 3}}, {DType::b8, {2, 3}}, {DType::b8, {2}},
                                      {DType::i64, {4}},    {DType::f32, {3}},   {DType::f32, {}},
                                      {DType::i64, {}},     {DType::f32, {2, 4}}, {DType::f16, {2}}};
  for (size_t i = 0; i < ts.size(); ++i) {
    InputDecl in;
    in.value = p.add_value("v" + std::to_string(i), ts[i]);
    p.inputs.push_back(in);
  }
  return p;
}

ArgValue L(std::vector<int> ids) { return ValueList{std::move(ids)}; }
ArgValue Item(int id) { return ValueRef{id, true}; }

TEST(OpsDynamic, Infer) {
  check_infer(fixture(), {
      {"argsort", {{"self", V(0)}, {"dim", int64_t(-1)}, {"stable", true}}, "i64[2,3]"},
      {"argsort", {{"self", V(0)}}, "error"},  // an unstable order of ties is no order
      {"nonzero", {{"self", V(1)}, {"count", int64_t(4)}}, "i64[4,2]"},
      {"nonzero", {{"self", V(1)}}, "error"},                        // the size must be annotated
      {"nonzero", {{"self", V(1)}, {"count", int64_t(7)}}, "error"},  // more than the mask holds
      {"nonzero", {{"self", V(0)}, {"count", int64_t(2)}}, "error"},  // a counted bool mask only
      {"masked_select", {{"self", V(0)}, {"mask", V(1)}, {"count", int64_t(3)}}, "f32[3]"},
      {"masked_select", {{"self", V(0)}, {"mask", V(2)}, {"count", int64_t(1)}}, "error"},
      {"index", {{"self", V(0)}, {"indices", L({3})}}, "f32[4,3]"},
      {"index", {{"self", V(0)}, {"indices", L({3, 3})}}, "f32[4]"},
      {"index", {{"self", V(0)}, {"indices", L({2})}, {"count", int64_t(1)}}, "f32[1,3]"},
      {"index", {{"self", V(0)}, {"indices", L({1})}, {"count", int64_t(5)}}, "f32[5]"},
      {"index", {{"self", V(0)}, {"indices", L({2})}}, "error"},     // a mask needs its count
      {"index", {{"self", V(0)}, {"indices", L({2, 3})}}, "error"},  // a mask indexes alone
      {"index", {{"self", V(4)}, {"indices", L({3, 3})}}, "error"},  // too many indices
      {"setitem", {{"self", V(0)}, {"indices", L({2})}, {"values", V(4)}}, "f32[2,3]"},
      {"setitem", {{"self", V(0)}, {"indices", L({2})}, {"values", V(5)}}, "f32[2,3]"},
      {"setitem", {{"self", V(0)}, {"indices", L({2})}, {"values", V(7)}}, "error"},  // not over the rows
      {"setitem", {{"self", V(0)}, {"indices", L({3})}, {"values", V(6)}}, "error"},  // dtype
      {"view_dtype", {{"self", V(0)}, {"dtype", DType::i32}}, "i32[2,3]"},
      {"view_dtype", {{"self", V(0)}, {"dtype", DType::bf16}}, "bf16[2,6]"},
      {"view_dtype", {{"self", V(7)}, {"dtype", DType::f64}}, "f64[2,2]"},
      {"view_dtype", {{"self", V(0)}, {"dtype", DType::f64}}, "error"},  // 3 does not halve
      {"view_dtype", {{"self", V(5)}, {"dtype", DType::f16}}, "error"},  // 0-d keeps its size
      {"view_dtype", {{"self", V(0)}, {"dtype", DType::b8}}, "error"},
      {"_foreach_add", {{"self", L({0, 4})}, {"scalar", 1.5}}, "f32[2,3];f32[3]"},
      {"_foreach_add", {{"self", L({0, 4})}, {"other", L({0, 4})}}, "f32[2,3];f32[3]"},
      {"_foreach_add", {{"self", L({0, 4})}, {"other", L({4, 0})}}, "error"},  // pairwise types
      {"_foreach_add", {{"self", L({0, 8})}, {"scalar", 1.5}}, "error"},        // one dtype
      {"_foreach_add", {{"self", L({0, 4})}}, "error"},  // a number or a list
      {"_foreach_abs", {{"self", L({0, 4})}}, "f32[2,3];f32[3]"},
      {"_foreach_addcmul", {{"self", L({4})}, {"tensor1", L({4})}, {"tensor2", L({4})}}, "f32[3]"},
      {"dropout", {{"input", V(0)}, {"p", 0.5}, {"train", true}}, "f32[2,3]"},
      {"dropout", {{"input", V(0)}, {"p", 1.5}, {"train", true}}, "error"},
      {"dropout", {{"input", V(3)}, {"p", 0.5}, {"train", true}}, "error"},
      // .item(): a Python number of the tensor's kind (an int tensor's int keeps i64).
      {"mul", {{"self", V(3)}, {"other", Item(5)}}, "f32[4]"},
      {"mul", {{"self", V(3)}, {"other", Item(6)}}, "i64[4]"},
      {"mul", {{"self", V(8)}, {"other", Item(5)}}, "f16[2]"},
  });
}

TEST(OpsDynamic, ItemIsANumberAndTorch2OpsNeedTheirTarget) {
  Program p = fixture();
  p.target = Target::torch2;
  Node n;
  n.op = "mul";
  n.args = {{"self", V(0)}, {"other", Item(0)}};  // not 0-d
  n.outputs = {p.add_value("out", {DType::f32, {2, 3}})};
  p.body.nodes.push_back(n);
  p.body.yields = {n.outputs[0]};
  EXPECT_NE(verify(p).find("not 0-d"), std::string::npos) << verify(p);
  p.body.nodes[0].args[1].value = Item(5);
  EXPECT_EQ(verify(p), "");
  std::string text = print_program(p);
  EXPECT_NE(text.find("mul %v0, item(%v5)"), std::string::npos) << text;
  ParseResult back = parse_program(text);
  ASSERT_TRUE(back.ok()) << back.error->str();
  EXPECT_TRUE(back.program == p);
  EXPECT_NE(emit_function(p, "f", false).find("torch.mul(v0, v5.item())"), std::string::npos);
  EXPECT_NE(emit_function(p, "f", true).find("torch.mul(v0, v5.item())"), std::string::npos);
  // A torch1.13 program may not hold view(dtype).
  p.target = Target::torch113;
  p.body.nodes[0] = Node{"view_dtype", {{"self", V(0)}, {"dtype", DType::i32}}, {n.outputs[0]}, {}};
  p.values[n.outputs[0]].type = {DType::i32, {2, 3}};
  EXPECT_NE(verify(p), "");
  p.target = Target::torch2;
  EXPECT_EQ(verify(p), "");
}

TEST(OpsDynamic, SpellingsInPythonAndTorchScript) {
  Program p = fixture();
  p.target = Target::torch2;
  auto add = [&](const std::string& op, std::vector<Arg> args, std::vector<TensorType> outs) {
    Node n{op, std::move(args), {}, {}};
    for (const auto& t : outs) n.outputs.push_back(p.add_value("o" + std::to_string(p.values.size()), t));
    p.body.nodes.push_back(n);
    return n.outputs;
  };
  add("index", {{"self", V(0)}, {"indices", L({2})}, {"count", int64_t(1)}}, {{DType::f32, {1, 3}}});
  add("setitem", {{"self", V(0)}, {"indices", L({3, 3})}, {"values", V(5)}}, {{DType::f32, {2, 3}}});
  add("nonzero", {{"self", V(1)}, {"count", int64_t(4)}}, {{DType::i64, {4, 2}}});
  add("_foreach_mul", {{"self", L({0, 4})}, {"scalar", 2.0}}, {{DType::f32, {2, 3}}, {DType::f32, {3}}});
  add("dropout", {{"input", V(0)}, {"p", 0.5}, {"train", true}}, {{DType::f32, {2, 3}}});
  auto bits = add("view_dtype", {{"self", V(0)}, {"dtype", DType::i32}}, {{DType::i32, {2, 3}}});
  p.body.yields = bits;
  ASSERT_EQ(verify(p), "");
  const std::string py = emit_function(p, "f", false);
  EXPECT_NE(py.find("= v0[v2]\n"), std::string::npos) << py;  // count is the IR's, not Python's
  EXPECT_NE(py.find("    v0[v3, v3] = v5\n"), std::string::npos) << py;
  EXPECT_NE(py.find("torch.nonzero(v1)\n"), std::string::npos) << py;
  EXPECT_NE(py.find("torch._foreach_mul([v0, v4], scalar=2.0)"), std::string::npos) << py;
  EXPECT_NE(py.find("torch.dropout(v0, 0.5, True)"), std::string::npos) << py;
  EXPECT_NE(py.find("v0.view(dtype=torch.int32)"), std::string::npos) << py;
  // The float64 twin reads the bits of the declared dtype.
  EmitOptions f64;
  f64.float64 = true;
  EXPECT_NE(emit_function(p, "f", f64).find("v0.to(torch.float32).view(dtype=torch.int32)"), std::string::npos);
  const std::string ts = emit_function(p, "f", true);
  EXPECT_NE(ts.find("    v0[v3, v3] = v5\n"), std::string::npos) << ts;
}

TEST(OpsDynamic, EveryOpIsGeneratedValidAndRoundTrips) {
  for (Target target : {Target::torch113, Target::torch2}) {
    GenPolicy policy = test::data_ops_policy(target);
    std::map<std::string, int> used;
    int items = 0, bit_writes = 0;
    for (uint64_t seed = 0; seed < 800; ++seed) {
      Program p = generate_program(policy, seed);
      std::set<int> bitcasts;  // view(dtype) outputs, then written in place
      for (const Node& n : p.body.nodes) {
        if (n.op == "view_dtype") bitcasts.insert(n.outputs[0]);
        const auto* self = n.args.empty() ? nullptr : std::get_if<ValueRef>(&n.args[0].value);
        if (find_op(n.op) && find_op(n.op)->inplace && self && bitcasts.count(self->id)) ++bit_writes;
      }
      ASSERT_EQ(verify(p), "") << "seed " << seed;
      std::string text = print_program(p);
      ParseResult r = parse_program(text, "gen.dlf");
      ASSERT_TRUE(r.ok()) << "seed " << seed << ": " << r.error->str() << "\n" << text;
      ASSERT_TRUE(r.program == p) << "seed " << seed << "\n" << text;
      ASSERT_EQ(print_program(r.program), text) << "seed " << seed;
      for (const auto& [op, n] : summarize(p).ops) used[op] += n;
      items += text.find("item(%") != std::string::npos;
    }
    for (const auto& op : test::kDataOps) EXPECT_GE(used[op], 20) << op << " is rarely or never generated";
    for (const auto& op : test::kTorch2DataOps) {
      if (target == Target::torch2) {
        EXPECT_GE(used[op], 20) << op << " is rarely or never generated";
      } else {
        EXPECT_EQ(used[op], 0) << op << " in a torch1.13 program";
      }
    }
    EXPECT_GE(items, 20) << "programs with .item()";
    if (target == Target::torch2) {
      EXPECT_GE(bit_writes, 10) << "in-place writes through view(dtype)";
    }
  }
}

// Every counted mask holds what its count says: a stable argsort of the
// program's data compared with k, so exactly k trues in every row.
TEST(OpsDynamic, CountedMasksAreBuiltFromAStableArgsort) {
  GenPolicy policy = test::data_ops_policy();
  int checked = 0;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    Program p = generate_program(policy, seed);
    std::map<int, const Node*> producer;
    for (const Node& n : p.body.nodes)
      for (int o : n.outputs) producer[o] = &n;
    for (const Node& n : p.body.nodes) {
      if (n.op != "nonzero" && n.op != "masked_select" && !(n.op == "index" && n.arg("count"))) continue;
      int mask = n.op == "nonzero"         ? std::get<ValueRef>(n.arg("self")->value).id
                 : n.op == "masked_select" ? std::get<ValueRef>(n.arg("mask")->value).id
                                           : std::get<ValueList>(n.arg("indices")->value).ids[0];
      const Node* lt = producer.at(mask);
      ASSERT_EQ(lt->op, "lt");
      const Node* sort = producer.at(std::get<ValueRef>(lt->arg("self")->value).id);
      ASSERT_EQ(sort->op, "argsort");
      const Shape& shape = p.type(mask).shape;
      int64_t k = std::get<int64_t>(lt->arg("other")->value), rows = 1;
      for (size_t d = 0; d + 1 < shape.size(); ++d) rows *= shape[d];
      EXPECT_EQ(std::get<int64_t>(n.arg("count")->value), k * rows) << "seed " << seed;
      ++checked;
    }
  }
  EXPECT_GT(checked, 100);
}

}  // namespace
}  // namespace dlfuzz
