// Gradient accumulation (TrainStep::accumulate): two forward and backward
// passes before each step, the second adding into the .grad the first left.
// Its grads are twice one pass's, in LibTorch's eager and PyTorch 2.x's, alone
// and in a batch; and what accumulation exposes: torch.sgn's backward leaves an
// immutable ZeroTensor in .grad, which the second pass cannot add into.
#include <gtest/gtest.h>

#include <cstring>

#include "generator/dlf.h"
#include "oracles/evaluate.h"
#include "runners/runner.h"
#include "tests/parse_program.h"
#include "tests/runners/python_test_options.h"

namespace dlfuzz {

namespace {
const char* kStep =
    "dlfuzz 1 seed=5 policy=0 mode=train device=cpu world=1 plan=none\n"
    "input %x0 : f32[4,3] range(-2.0,2.0)\n"
    "param %w0 : f32[3,2] range(-0.5,0.5)\n"
    "target %y0 : f32[4,2] range(-1.0,1.0)\n"
    "%1 : f32[4,2] = matmul %x0, %w0\n"
    "%2 : f32[] = mse_loss %1, %y0\n"
    "return %1\n"
    "loss %2\n"
    "step sgd lr=0.1 momentum=0.0 weight_decay=0.0 steps=1";

const char* kSgn =
    "dlfuzz 1 seed=55 policy=0 mode=train device=cpu world=1 plan=none target=torch2\n"
    "param %w0 : f32[3] range(-1.0,1.0)\n"
    "target %y0 : f32[3] zeros\n"
    "%1 : f32[3] = sgn %w0\n"
    "%2 : f32[] = mse_loss %1, %y0\n"
    "return %1\n"
    "loss %2\n"
    "step sgd lr=0.01 momentum=0.0 weight_decay=0.0 steps=1 accumulate=true\n";

using test::parse;

std::vector<float> floats(const HostTensor& t) {
  std::vector<float> v(t.bytes.size() / sizeof(float));
  std::memcpy(v.data(), t.bytes.data(), t.bytes.size());
  return v;
}

// One pass's run and the accumulating one's: losses once and twice, grads
// doubled (g + g is exact), outputs the same.
void expect_doubled(const RunResult& one, const RunResult& two) {
  ASSERT_TRUE(one.ok()) << one.error;
  ASSERT_TRUE(two.ok()) << two.error;
  EXPECT_EQ(one.losses.size(), 1u);
  ASSERT_EQ(two.losses.size(), 2u);
  EXPECT_EQ(two.losses[0], one.losses[0]);
  EXPECT_EQ(two.losses[1], one.losses[0]);
  ASSERT_EQ(one.grads.size(), two.grads.size());
  for (size_t i = 0; i < one.grads.size(); ++i) {
    std::vector<float> g = floats(one.grads[i]), g2 = floats(two.grads[i]);
    ASSERT_EQ(g.size(), g2.size());
    for (size_t k = 0; k < g.size(); ++k) EXPECT_EQ(g2[k], 2 * g[k]) << "grad " << i << " element " << k;
  }
  ASSERT_EQ(one.outputs.size(), two.outputs.size());
  for (size_t i = 0; i < one.outputs.size(); ++i) EXPECT_EQ(one.outputs[i].bytes, two.outputs[i].bytes);
}
}  // namespace

TEST(Accumulate, TheSecondPassAddsIntoTheGradsInLibTorchsEager) {
  std::string text = kStep;
  Program one = parse(text + "\n"), two = parse(text + " accumulate=true\n");
  ASSERT_TRUE(two.train->accumulate);
  auto eager = make_runner("eager");
  expect_doubled(eager->run(one, RunConfig{}), eager->run(two, RunConfig{}));
}

TEST(Accumulate, TheSecondPassAddsIntoTheGradsInPyTorch2AloneAndInABatch) {
  if (!test::venv_imports("torch._dynamo")) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  std::string text = kStep;
  Program one = parse(text + "\n"), two = parse(text + " accumulate=true\n");
  Executor alone(test::python_options());
  expect_doubled(alone.run(one, {"py-eager"}).at(0), alone.run(two, {"py-eager"}).at(0));
  // Batched (batching.run_batched): the accumulating program's second pass
  // leaves the other program's grads alone.
  Executor batched(test::python_options());
  batched.prefetch({one, two}, {"aot-eager"});
  ASSERT_TRUE(batched.prefetched(two));
  expect_doubled(batched.run(one, {"aot-eager"}).at(0), batched.run(two, {"aot-eager"}).at(0));
}

// torch.sgn's backward leaves an immutable ZeroTensor in .grad (1.13 and
// 2.x, eager and torch.compile alike): the second pass cannot add into it.
// No runner differs, so no finding: the campaign's summary lists it among the
// programs the reference rejected.
TEST(Accumulate, SgnsZeroTensorGradCannotBeAddedInto) {
  Program p = parse(kSgn);
  RunResult r = make_runner("eager")->run(p, RunConfig{});
  EXPECT_EQ(r.status, RunStatus::exception);
  EXPECT_EQ(r.stage, Stage::backward);
  EXPECT_NE(r.error.find("ZeroTensors are immutable"), std::string::npos) << r.error;
  if (!test::venv_imports("torch._dynamo")) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  Executor ex(test::python_options());
  for (const auto& got : ex.run(p, {"py-eager", "inductor"})) {
    EXPECT_EQ(got.stage, Stage::backward) << got.runner;
    EXPECT_NE(got.error.find("ZeroTensors are immutable"), std::string::npos) << got.runner << ": " << got.error;
  }
}

}  // namespace dlfuzz
