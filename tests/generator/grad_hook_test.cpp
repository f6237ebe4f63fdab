// grad_hook (generator/ops/autograd.cpp): its .dlf form, the runtime call the
// Python emitter writes, what its type rule refuses, and what generation
// draws: hooks on intermediates of training programs only, never written
// afterwards.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "generator/dlf.h"
#include "generator/emit.h"
#include "generator/generator.h"
#include "generator/op_spec.h"
#include "generator/verify.h"
#include "tests/parse_program.h"

namespace dlfuzz {
namespace {

std::string program(const std::string& hook_args) {
  return "dlfuzz 1 seed=1 mode=train device=cpu world=1 plan=none target=torch2\n"
         "input %x : f32[3,4] range(-1.0,1.0)\n"
         "param %w : f32[4,2] range(-0.5,0.5)\n"
         "input %o : f32[3,2] range(-1.0,1.0)\n"
         "target %y : f32[3,2] range(-1.0,1.0)\n"
         "%1 : f32[3,2] = matmul %x, %w\n"
         "%2 : f32[3,2] = grad_hook " +
         hook_args +
         "\n"
         "%3 : f32[3,2] = tanh %2\n"
         "%4 : f32[] = mse_loss %3, %y\n"
         "return %3\nloss %4\n"
         "step sgd lr=0.1 momentum=0.0 weight_decay=0.0 steps=1\n";
}

TEST(GradHook, ParsesPrintsAndEmitsTheRuntimeCall) {
  Program p = test::parse(program("%1, hook=\"captured\", other=%o"));
  EXPECT_EQ(verify(p), "");
  ParseResult back = parse_program(print_program(p));
  ASSERT_TRUE(back.ok()) << back.error->str();
  EXPECT_TRUE(back.program == p);
  std::string py = emit_python(p);
  EXPECT_NE(py.find("_dlfuzz_grad_hook(v1, hook='captured', other=o)"), std::string::npos) << py;
}

TEST(GradHook, TypeRuleRefusesLeavesAndUnknownHooks) {
  EXPECT_EQ(test::parse_error(program("%1, hook=\"clip\"")), "");
  EXPECT_NE(test::parse_error(program("%w, hook=\"clip\"")).find("on an input"), std::string::npos);
  EXPECT_NE(test::parse_error(program("%1, hook=\"zero\"")).find("hook must be one of"), std::string::npos);
  EXPECT_NE(test::parse_error(program("%1, hook=\"captured\"")).find("goes with hook captured"), std::string::npos);
  EXPECT_NE(test::parse_error(program("%1, hook=\"scale\", other=%o")).find("goes with hook captured"),
            std::string::npos);
  std::string wrong = program("%1, hook=\"captured\", other=%x");
  EXPECT_NE(test::parse_error(wrong).find("must be f32[3,2]"), std::string::npos) << test::parse_error(wrong);
}

TEST(GradHook, GeneratedOnIntermediatesOfTrainingProgramsOverManySeeds) {
  GenPolicy policy;
  policy.target = Target::torch2;
  policy.focus_ops = {"grad_hook", "linear", "tanh", "mul", "add", "sum"};
  std::map<std::string, int> hooks;
  int programs_with = 0, in_inference = 0, written_after = 0;
  for (int seed = 0; seed < 1000; ++seed) {
    Program p = generate_program(policy, seed);
    ASSERT_EQ(verify(p), "") << "seed " << seed;
    ParseResult back = parse_program(print_program(p));
    ASSERT_TRUE(back.ok()) << "seed " << seed << ": " << back.error->str();
    EXPECT_TRUE(back.program == p) << "seed " << seed;
    std::set<int> hooked;
    bool with = false;
    for_each_node(p.body, [&](const Node& n) {
      const OpSpec* s = find_op(n.op);
      if (s && s->inplace && !n.args.empty())
        if (const auto* r = std::get_if<ValueRef>(&n.args[0].value)) written_after += hooked.count(r->id) > 0;
      if (n.op != "grad_hook") return;
      with = true;
      int x = std::get<ValueRef>(n.arg("self")->value).id;
      EXPECT_FALSE(p.input_of(x)) << "seed " << seed;
      hooked.insert(x);
      hooked.insert(n.outputs[0]);
      ++hooks[std::get<std::string>(n.arg("hook")->value)];
    });
    programs_with += with;
    in_inference += with && !p.is_training();
  }
  EXPECT_GT(programs_with, 200);
  EXPECT_EQ(in_inference, 0);
  EXPECT_EQ(written_after, 0);
  EXPECT_EQ(hooks.size(), 5u);
  for (const auto& [name, count] : hooks) EXPECT_GT(count, 40) << name;
}

}  // namespace
}  // namespace dlfuzz
