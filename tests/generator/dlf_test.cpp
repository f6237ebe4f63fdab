// The .dlf format: exact round trip over many seeds, and clear errors with
// line and column for malformed input.
#include <gtest/gtest.h>

#include "generator/dlf.h"
#include "generator/generator.h"
#include "generator/verify.h"

namespace dlfuzz {

TEST(Dlf, RoundTripsByteExactly) {
  GenPolicy policy;
  for (uint64_t seed = 0; seed < 2000; ++seed) {
    Program p = generate_program(policy, seed);
    std::string text = print_program(p);
    ParseResult r = parse_program(text, "gen.dlf");
    ASSERT_TRUE(r.ok()) << "seed " << seed << ": " << r.error->str() << "\n" << text;
    ASSERT_TRUE(r.program == p) << "seed " << seed << "\n" << text;
    ASSERT_EQ(print_program(r.program), text) << "seed " << seed;
  }
}

TEST(Dlf, SameSeedSameText) {
  GenPolicy policy;
  for (uint64_t seed : {1u, 7u, 99u, 12345u})
    EXPECT_EQ(print_program(generate_program(policy, seed)), print_program(generate_program(policy, seed)));
}

struct BadCase {
  const char* what;
  const char* text;
  int line, column;
  const char* message_part;
};

TEST(Dlf, MalformedInputsNameLineAndColumn) {
  const std::string head = "dlfuzz 1 seed=0 policy=0 mode=infer device=cpu world=1 plan=none\n";
  const BadCase cases[] = {
      {"truncated", "input %x : f32[2,3] range(-1,1)\n%1 : f32[2,3] = relu %x\n", 4, 1, "missing 'return'"},
      {"unknown op", "input %x : f32[2,3] range(-1,1)\n%1 : f32[2,3] = frobnicate %x\nreturn %1\n", 3, 17,
       "unknown op 'frobnicate'"},
      {"type error", "input %x : f32[2,3] range(-1,1)\n%1 : i64[2,3] = relu %x\nreturn %1\n", 3, 1,
       "declared i64[2,3]"},
      {"bad shape",
       "input %x : f32[2,3] range(-1,1)\ninput %y : f32[4,5] range(-1,1)\n%1 : f32[2,3] = add %x, %y\nreturn %1\n", 4,
       1, "do not broadcast"},
      {"unknown value", "input %x : f32[2,3] range(-1,1)\n%1 : f32[2,3] = relu %z\nreturn %1\n", 3, 22,
       "unknown value %z"},
      {"bad dtype", "input %x : f33[2,3] range(-1,1)\nreturn %x\n", 2, 11, "unknown dtype 'f33'"},
      {"unclosed list", "input %x : f32[2,3 range(-1,1)\nreturn %x\n", 2, 20, "expected ']'"},
      // Found by fuzz-dlf: zeros after range kept range's bounds, which the printer then dropped.
      {"two initializers", "input %x : f32[2,3] range(-2,2) zeros\nreturn %x\n", 2, 33, "second initializer 'zeros'"},
  };
  for (const auto& c : cases) {
    ParseResult r = parse_program(head + c.text, "bad.dlf");
    ASSERT_FALSE(r.ok()) << c.what;
    EXPECT_EQ(r.error->file, "bad.dlf");
    EXPECT_EQ(r.error->line, c.line) << c.what << ": " << r.error->str();
    EXPECT_EQ(r.error->column, c.column) << c.what << ": " << r.error->str();
    EXPECT_NE(r.error->message.find(c.message_part), std::string::npos) << c.what << ": " << r.error->str();
  }
}

// The step's flags (in the printer's own spelling): printed only where set, parsed back; a flag the optimizer
// does not have is rejected by verify(), a value that is not a bool by the parser.
TEST(Dlf, StepFlags) {
  const std::string body =
      "dlfuzz 1 seed=0 policy=0000000000000000 mode=train device=cpu world=1 plan=none\n"
      "param %w : f32[2,3] range(-1.0,1.0)\n"
      "%1 : f32[] = sum %w\n"
      "return %w\n"
      "loss %1\n";
  for (const char* step : {"step adam lr=0.01 momentum=0.0 weight_decay=0.0 steps=2 amsgrad=true foreach=true\n",
                           "step sgd lr=0.1 momentum=0.9 weight_decay=0.0 steps=1 nesterov=true\n",
                           "step rmsprop lr=0.01 momentum=0.0 weight_decay=0.01 steps=1 foreach=true\n"}) {
    ParseResult r = parse_program(body + step, "flags.dlf");
    ASSERT_TRUE(r.ok()) << step << r.error->str();
    EXPECT_EQ(print_program(r.program), body + step);
  }
  ParseResult off = parse_program(body + "step adam lr=0.01 momentum=0.0 weight_decay=0.0 steps=2 amsgrad=false\n", "f");
  ASSERT_TRUE(off.ok()) << off.error->str();
  EXPECT_EQ(print_program(off.program), body + "step adam lr=0.01 momentum=0.0 weight_decay=0.0 steps=2\n");
  const std::pair<const char*, const char*> bad[] = {
      {"step sgd lr=0.1 momentum=0.0 weight_decay=0.0 steps=1 nesterov=true\n", "nesterov needs SGD with momentum"},
      {"step adagrad lr=0.1 momentum=0.0 weight_decay=0.0 steps=1 amsgrad=true\n", "amsgrad is Adam's"},
      {"step adam lr=0.1 momentum=0.0 weight_decay=0.0 steps=1 amsgrad=yes\n", "expected true or false"},
  };
  for (const auto& [step, message] : bad) {
    ParseResult r = parse_program(body + step, "flags.dlf");
    ASSERT_FALSE(r.ok()) << step;
    EXPECT_NE(r.error->message.find(message), std::string::npos) << r.error->str();
  }
}

// Uneven shards: 7 rows over 2 ranks is 4 + 3 (rank 0's 4 is the program's);
// 8 would be even, and 9 cannot give rank 0 four rows.
TEST(Dlf, UnevenShardSizesMustSplitAsTensorSplitDoes) {
  auto program = [](const char* whole) {
    return std::string("dlfuzz 1 seed=0 policy=0000000000000000 mode=infer device=cpu world=2 plan=none\n") +
           "input %x : f32[4,3] shard(0," + whole + ") range(-1.0,1.0)\n%1 : f32[4,3] = relu %x\nreturn %1\n";
  };
  ParseResult ok = parse_program(program("7"), "u.dlf");
  ASSERT_TRUE(ok.ok()) << ok.error->str();
  EXPECT_EQ(ok.program.inputs[0].placement.whole, 7);
  EXPECT_EQ(ok.program.inputs[0].placement.slice(4, 1, 2), (std::pair<int64_t, int64_t>{4, 3}));
  EXPECT_EQ(print_program(ok.program), program("7"));
  for (const char* bad : {"8", "9", "1"}) {
    ParseResult r = parse_program(program(bad), "u.dlf");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error->message.find("uneven shards of"), std::string::npos) << r.error->str();
  }
}

TEST(Dlf, HeaderErrors) {
  EXPECT_FALSE(parse_program("", "e.dlf").ok());
  ParseResult r = parse_program("dlfuzz 9 seed=0\nreturn\n", "v.dlf");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error->message.find("version 9"), std::string::npos);
}

}  // namespace dlfuzz
