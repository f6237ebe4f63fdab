// The ops issue 19 added, over many generated programs that favour them: the
// native eager runner (LibTorch 1.13) runs them with the IR's output types, and
// the Python worker's eager (PyTorch 2.x) runs them too.
#include <gtest/gtest.h>

#include <map>

#include "tests/generator/new_ops.h"
#include "tests/runners/python_test_options.h"

#include "generator/dlf.h"
#include "generator/generator.h"
#include "generator/summary.h"
#include "runners/runner.h"

namespace dlfuzz {

TEST(NewOps, EagerRunsThemWithTheIRsTypes) {
  GenPolicy policy = test::new_ops_policy();
  auto eager = make_runner("eager");
  std::map<std::string, int> failures, ran;
  const int kSeeds = 400;
  int ok = 0;
  for (uint64_t seed = 0; seed < kSeeds; ++seed) {
    Program p = generate_program(policy, seed);
    RunResult r = eager->run(p, RunConfig{});
    if (!r.ok()) {
      failures[r.error.substr(0, 200)]++;
      if (std::getenv("DLFUZZ_DEBUG")) std::cerr << "seed " << seed << ": " << r.error << "\n" << print_program(p);
      continue;
    }
    ++ok;
    for (const auto& [op, n] : summarize(p).ops) ran[op] += n;
    ASSERT_EQ(r.outputs.size(), p.body.yields.size());
    for (size_t i = 0; i < r.outputs.size(); ++i) {
      const TensorType& t = p.type(p.body.yields[i]);
      EXPECT_EQ(r.outputs[i].dtype, t.dtype) << "seed " << seed << " output " << i << "\n" << print_program(p);
      EXPECT_EQ(r.outputs[i].shape, t.shape) << "seed " << seed << " output " << i << "\n" << print_program(p);
    }
  }
  for (const auto& [msg, n] : failures) std::cerr << n << "x " << msg << "\n";
  EXPECT_GE(ok, kSeeds * 98 / 100) << "eager runs that succeed";
  for (const auto& op : test::kNewOps) EXPECT_GE(ran[op], 1) << op << " never ran";
}

TEST(NewOps, PythonEagerRunsThemOnThProjectsPyTorch) {
  if (!test::venv_imports("torch")) GTEST_SKIP() << "no .venv with torch (run scripts/setup.sh)";
  Executor ex(test::python_options());
  GenPolicy policy = test::new_ops_policy();
  std::map<std::string, int> failures;
  const int kSeeds = 120;
  int ok = 0;
  for (uint64_t seed = 0; seed < kSeeds; ++seed) {
    Program p = generate_program(policy, seed);
    std::vector<RunResult> rs = ex.run(p, {"py-eager"});
    ASSERT_EQ(rs.size(), 1u);
    if (rs[0].ok()) {
      ++ok;
      EXPECT_EQ(rs[0].outputs.size(), p.body.yields.size());
      for (size_t i = 0; i < rs[0].outputs.size() && i < p.body.yields.size(); ++i)
        EXPECT_EQ(rs[0].outputs[i].shape, p.type(p.body.yields[i]).shape) << "seed " << seed;
    } else {
      failures[rs[0].error.substr(0, 200)]++;
      if (std::getenv("DLFUZZ_DEBUG")) std::cerr << "seed " << seed << ": " << rs[0].error << "\n" << print_program(p);
    }
  }
  for (const auto& [msg, n] : failures) std::cerr << n << "x " << msg << "\n";
  EXPECT_GE(ok, kSeeds * 97 / 100) << "py-eager runs that succeed";
}

}  // namespace dlfuzz
