// What 1,000 seeds of the default policy cover: the rates the generator
// promises (distinct ops, training programs, control flow, in-place on views).
#include <gtest/gtest.h>

#include <set>

#include "generator/generator.h"
#include "generator/op_spec.h"
#include "generator/summary.h"

namespace dlfuzz {

TEST(Coverage, DefaultPolicyOverOneThousandSeeds) {
  GenPolicy policy;
  std::set<std::string> ops;
  int training = 0, control = 0, inplace_view = 0;
  const int kSeeds = 1000;
  for (uint64_t seed = 0; seed < kSeeds; ++seed) {
    ProgramSummary s = summarize(generate_program(policy, seed));
    for (const auto& [op, n] : s.ops) ops.insert(op);
    training += s.training;
    control += s.control_flow;
    inplace_view += s.inplace_on_view;
  }
  std::cerr << ops.size() << " distinct ops of " << all_ops().size() << "; training " << training << ", control flow "
            << control << ", in-place on a view " << inplace_view << " of " << kSeeds << "\n";
  EXPECT_GE(all_ops().size(), 80u);
  EXPECT_GE(ops.size(), 80u);
  EXPECT_GE(training, kSeeds * 30 / 100);
  EXPECT_GE(control, kSeeds * 10 / 100);
  EXPECT_GE(inplace_view, kSeeds * 10 / 100);
}

}  // namespace dlfuzz
