// Control flow spelled as PyTorch 2.x's higher-order ops (generator/hop.h):
// torch.cond's branches and scan's or while_loop's body, nested functions over closed-over
// values, run eagerly and through Dynamo, AOTAutograd and Inductor, in
// inference and in training (their autograd), and through torch.export and
// AOTInductor in inference, and agree with eager.
#include <gtest/gtest.h>

#include "generator/dlf.h"
#include "oracles/evaluate.h"
#include "runners/executor.h"
#include "tests/parse_program.h"
#include "tests/runners/python_test_options.h"

namespace dlfuzz {

// A cond whose branches close over %w and %x, then a scan whose body reads
// the cond's result and %w. The scan's carry ends in `sin`, an op that saves
// its input: a carry from tanh or sigmoid under autograd is refused by
// Inductor (pytorch#195977), and plain inductor takes no scan at all in 2.15
// (corpus/bugs/inductor-scan-training-item-data-dependent.dlf, pytorch#153437),
// so the scan goes through inductor-dynamic and aot-eager.
const char* kCond =
    "input %x : f32[4,3] range(-1.0,1.0)\n"
    "%s : f32[] = sum %x\n"
    "%a : f32[] = abs %s\n"
    "%t : f32[] = mul %a, -0.25\n"
    "%c : bool[] = gt %s, %t\n"
    "%1 : f32[4,3] = if cond=%c, hop=true {\n"
    "  %2 : f32[4,3] = matmul %x, %w\n"
    "  %3 : f32[4,3] = tanh %2\n"
    "  yield %3\n"
    "} else {\n"
    "  %4 : f32[4,1] = amax %x, dim=[1], keepdim=true\n"
    "  %5 : f32[4,3] = sub %x, %4\n"
    "  yield %5\n"
    "}\n";
const char* kScan =
    "%6 : f32[4,3] = clone %1\n"
    "%7 : f32[4,3] = loop n=3, carry=[%6], hop=true (%h : f32[4,3]) {\n"
    "  %8 : f32[4,3] = matmul %h, %w\n"
    "  %9 : f32[4,3] = add %8, %1\n"
    "  %10 : f32[4,3] = sin %9\n"
    "  yield %10\n"
    "}\n";
// The same loop as while_loop (while=true), a counter carried beside %h.
const std::string kWhile = [] {
  std::string s = kScan;
  return s.replace(s.find("hop=true"), 8, "hop=true, while=true");
}();

// Eager runs the program (the findings of one it rejects are none), and the
// compiled runners agree with it.
void expect_agree(const std::string& text, const std::vector<std::string>& runners) {
  Executor ex(test::python_options());
  Program p = test::parse(text);
  RunResult eager = ex.run(p, {"py-eager"}).at(0);
  EXPECT_TRUE(eager.ok()) << eager.error;
  auto found = evaluate(ex, p, runners, /*recheck=*/false).findings;
  EXPECT_TRUE(found.empty()) << found[0].detail;
}

TEST(HopRun, CondAndScanAgreeWithEagerInInference) {
  if (!test::venv_imports("torch._higher_order_ops")) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  const std::string head =
      "dlfuzz 1 seed=1 mode=infer device=cpu world=1 plan=none target=torch2\n"
      "input %w : f32[3,3] range(-0.5,0.5)\n";
  expect_agree(head + kCond + "return %1\n", {"inductor"});
  // torch.export and AOTInductor take both: cond is export's branch on data.
  // (Not export-dynamic: a scan of a cond's result whose branches have sizes
  // of their own fails to export with dynamic shapes,
  // corpus/bugs/export-dynamic-scan-of-cond-result-guard-same-frame.dlf.)
  expect_agree(head + kCond + kScan + "return %7\n",
               {"inductor-dynamic", "aot-eager", "export", "export-decomp", "export-serde", "aoti"});
}

// Their autograd: the param's gradient flows through the branch's closure and
// the scan's steps.
TEST(HopRun, CondAndScanGradientsAgreeWithEager) {
  if (!test::venv_imports("torch._higher_order_ops")) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  const std::string head =
      "dlfuzz 1 seed=1 mode=train device=cpu world=1 plan=none target=torch2\n"
      "param %w : f32[3,3] range(-0.5,0.5)\n"
      "target %y : f32[4,3] range(-1.0,1.0)\n";
  const std::string tail = "step sgd lr=0.1 momentum=0.0 weight_decay=0.0 steps=2\n";
  expect_agree(head + kCond + "%11 : f32[] = mse_loss %1, %y\nreturn %1\nloss %11\n" + tail, {"inductor"});
  expect_agree(head + kCond + kScan + "%11 : f32[] = mse_loss %7, %y\nreturn %7\nloss %11\n" + tail,
               {"inductor-dynamic", "aot-eager"});
}

// while_loop, in inference through torch.compile (static and dynamic),
// torch.export and AOTInductor, and in training (its autograd) through
// Inductor.
TEST(HopRun, WhileLoopAgreesWithEager) {
  if (!test::venv_imports("torch._higher_order_ops")) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  const std::string infer =
      "dlfuzz 1 seed=1 mode=infer device=cpu world=1 plan=none target=torch2\n"
      "input %w : f32[3,3] range(-0.5,0.5)\n";
  expect_agree(infer + kCond + kWhile + "return %7\n", {"inductor", "export"});
  // With dynamic shapes, called at another batch (a loop of a plain value).
  const std::string plain = "input %x : f32[4,3] range(-1.0,1.0)\n%1 : f32[4,3] = tanh %x\n";
  expect_agree(infer + plain + kWhile + "return %7\n", {"export-dynamic", "aoti-dynamic"});
  const std::string train =
      "dlfuzz 1 seed=1 mode=train device=cpu world=1 plan=none target=torch2\n"
      "param %w : f32[3,3] range(-0.5,0.5)\n"
      "target %y : f32[4,3] range(-1.0,1.0)\n";
  expect_agree(train + kCond + kWhile + "%11 : f32[] = mse_loss %7, %y\nreturn %7\nloss %11\n" +
                   "step sgd lr=0.1 momentum=0.0 weight_decay=0.0 steps=2\n",
               {"inductor"});
}

// A loop whose body is a nested compile region (region=true): the layer
// stack of hierarchical compilation, the body traced once as invoke_subgraph
// and called on each trip with the param it closes over, trained through
// Inductor (the region's own partitioned backward).
TEST(HopRun, NestedCompileRegionLoopTrainsAsEager) {
  if (!test::venv_imports("torch._higher_order_ops.invoke_subgraph")) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  const std::string text =
      "dlfuzz 1 seed=1 mode=train device=cpu world=1 plan=none target=torch2\n"
      "param %w : f32[3,3] range(-0.5,0.5)\n"
      "input %x : f32[4,3] range(-1.0,1.0)\n"
      "target %y : f32[4,3] range(-1.0,1.0)\n"
      "%1 : f32[4,3] = loop n=3, carry=[%x], region=true (%h : f32[4,3]) {\n"
      "  %2 : f32[4,3] = matmul %h, %w\n"
      "  %3 : f32[4,3] = layer_norm %2, normalized_shape=[3]\n"
      "  %4 : f32[4,3] = tanh %3\n"
      "  yield %4\n"
      "}\n"
      "%5 : f32[] = mse_loss %1, %y\n"
      "return %1\n"
      "loss %5\n"
      "step sgd lr=0.1 momentum=0.0 weight_decay=0.0 steps=2\n";
  expect_agree(text, {"inductor"});
}

}  // namespace dlfuzz
