// The eager runner over many generated programs: it runs, its output types are
// what the IR's type rules say, the float64 reference stays finite where the
// value policy put no special values, and where it did, few programs end up
// all NaN.
#include <gtest/gtest.h>

#include <cmath>

#include "generator/dlf.h"
#include "generator/generator.h"
#include "generator/summary.h"
#include "runners/runner.h"

namespace dlfuzz {

namespace {
bool all_finite(const HostTensor& t) {
  if (!t.defined || !is_float(t.dtype)) return true;
  for (int64_t i = 0; i < t.numel(); ++i)
    if (!std::isfinite(t.at(i))) return false;
  return true;
}
// Every float output (and there is one) holds nothing but NaN.
bool all_outputs_nan(const RunResult& r) {
  int floats = 0;
  for (const auto& t : r.outputs) {
    if (!t.defined || !is_float(t.dtype) || t.numel() == 0) continue;
    ++floats;
    for (int64_t i = 0; i < t.numel(); ++i)
      if (!std::isnan(t.at(i))) return false;
  }
  return floats > 0;
}
}  // namespace

TEST(EagerRunner, RunsGeneratedProgramsWithTheIRsTypes) {
  GenPolicy policy;
  auto eager = make_runner("eager");
  auto eager64 = make_runner("eager64");
  int ok = 0, finite = 0, plain = 0, special = 0, all_nan = 0;
  const int kSeeds = 500;
  std::map<std::string, int> failures;
  for (uint64_t seed = 0; seed < kSeeds; ++seed) {
    Program p = generate_program(policy, seed);
    RunResult r = eager->run(p, RunConfig{});
    if (!r.ok()) {
      failures[r.error.substr(0, 160)]++;
      continue;
    }
    ++ok;
    ASSERT_EQ(r.outputs.size(), p.body.yields.size());
    for (size_t i = 0; i < r.outputs.size(); ++i) {
      const TensorType& t = p.type(p.body.yields[i]);
      EXPECT_EQ(r.outputs[i].dtype, t.dtype) << "seed " << seed << " output " << i << "\n" << print_program(p);
      EXPECT_EQ(r.outputs[i].shape, t.shape) << "seed " << seed << " output " << i << "\n" << print_program(p);
    }
    // Special values are meant to reach the outputs; a program whose every
    // float output is all NaN tests nothing, so those must stay rare.
    if (summarize(p).special_values) {
      ++special;
      all_nan += all_outputs_nan(r);
      continue;
    }
    ++plain;
    RunResult r64 = eager64->run(p, RunConfig{});
    bool fin = r64.ok();
    for (const auto& t : r64.outputs) fin = fin && all_finite(t);
    for (double l : r64.losses) fin = fin && std::isfinite(l);
    finite += fin;
    if (!fin && std::getenv("DLFUZZ_DEBUG")) std::cerr << "non-finite float64 run: seed " << seed << "\n";
  }
  for (const auto& [msg, n] : failures) std::cerr << n << "x " << msg << "\n";
  std::cerr << special << " programs with special values, " << all_nan << " of them all NaN\n";
  EXPECT_GE(ok, kSeeds * 99 / 100) << "eager runs that succeed";
  EXPECT_GE(finite, plain * 99 / 100) << "float64 runs free of NaN/Inf (programs without special values)";
  EXPECT_GE(special, kSeeds / 10);
  EXPECT_LE(all_nan, special / 5) << "programs whose every float output is all NaN";
}

TEST(EagerRunner, UnknownRunnerIsNull) { EXPECT_EQ(make_runner("no-such-runner"), nullptr); }

}  // namespace dlfuzz

namespace dlfuzz {

// Programs on cuda: with a CUDA LibTorch and a GPU the runners put every
// tensor there and agree with the CPU run; elsewhere (Debian's CPU LibTorch,
// CI) the run fails at setup and says why.
TEST(Cuda, ProgramsOnCudaRunOrFailClearlyWithoutAGpu) {
  GenPolicy policy;
  policy.device = "cuda";
  Program p = generate_program(policy, 11);
  ASSERT_EQ(p.device, "cuda");
  auto eager = make_runner("eager");
  RunResult r = eager->run(p, RunConfig{});
  if (!r.ok()) {
    EXPECT_EQ(r.stage, Stage::setup);
    EXPECT_NE(r.error.find("sees no CUDA device"), std::string::npos) << r.error;
    GTEST_SKIP() << r.error;
  }
  Program cpu = p;
  cpu.device = "cpu";
  RunResult c = eager->run(cpu, RunConfig{});
  ASSERT_TRUE(c.ok()) << c.error;
  ASSERT_EQ(r.outputs.size(), c.outputs.size());
  for (size_t i = 0; i < r.outputs.size(); ++i) EXPECT_EQ(r.outputs[i].shape, c.outputs[i].shape);
}

}  // namespace dlfuzz
