// The first diverging op of a numeric finding, with a fault planted at a known
// op: the div_to_mul plugin rewrites a floor division by a constant into an
// unrounded multiplication, so the `div` node is where the values part.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "generator/dlf.h"
#include "oracles/first_divergence.h"
#include "tests/cli/shell_outcome.h"

namespace fs = std::filesystem;

namespace dlfuzz {
namespace {

const char* kProgram =
    "dlfuzz 1 seed=0 policy=0 mode=infer device=cpu world=1 plan=none\n"
    "input %x : f32[8] range(-4.0,4.0)\n"
    "%1 : f32[8] = sin %x\n"
    "%2 : f32[8] = mul %1, 3.0\n"
    "%3 : f32[8] = div %2, 0.7, rounding_mode=\"floor\"\n"
    "%4 : f32[8] = exp %3\n"
    "%5 : f32[8] = add %4, %1\n"
    "return %5\n";

TEST(FirstDivergence, IntermediatesAreReturnedExceptAliasedOnes) {
  Program p = parse_program(
      "dlfuzz 1 seed=0 policy=0 mode=infer device=cpu world=1 plan=none\n"
      "input %x : f32[2,3] range(-1.0,1.0)\n"
      "%1 : f32[2,3] = sin %x\n"
      "%2 : f32[2,3] = cos %x\n"
      "%3 : f32[2,3] = relu_ %2\n"
      "%4 : f32[3,2] = t %1\n"
      "%5 : f32[3,2] = exp %4\n"
      "return %5\n",
      "test")
                  .program;
  std::vector<int> observed;
  Program q = with_intermediates(p, &observed);
  std::vector<std::string> names;
  for (int id : observed) names.push_back(q.values.at(id).name);
  // %2 is written in place and %3 is that write's result: one storage, not
  // returned. %1 and its view %4 are never written: returned. %5 is already
  // an output: compared where it is.
  EXPECT_EQ(names, (std::vector<std::string>{"1", "4", "5"}));
  EXPECT_EQ(q.body.yields.size(), 3u);
  p = parse_program(kProgram, "test").program;
  observed.clear();
  q = with_intermediates(p, &observed);
  names.clear();
  for (int id : observed) names.push_back(q.values.at(id).name);
  EXPECT_EQ(names, (std::vector<std::string>{"1", "2", "3", "4", "5"}));
  EXPECT_EQ(q.body.yields.size(), 5u) << "the program's own output first, then the four";
  EXPECT_EQ(describe_node(p, p.body.nodes[2]), "%3 : f32[8] = div(f32[8])");
}

// A fault in the node that makes the output: named too.
TEST(FirstDivergence, AnOutputNodeIsNamed) {
  fs::path dir = fs::temp_directory_path() / "dlfuzz_first_divergence";
  fs::create_directories(dir);
  std::string prog = (dir / "last_div.dlf").string();
  std::ofstream(prog) << "dlfuzz 1 seed=0 policy=0 mode=infer device=cpu world=1 plan=none\n"
                         "input %x : f32[8] range(-4.0,4.0)\n"
                         "%1 : f32[8] = mul %x, 3.0\n"
                         "%2 : f32[8] = div %1, 0.7, rounding_mode=\"floor\"\n"
                         "return %2\n";
  std::string runner = std::string("ts+plugin:") + DLFUZZ_PLUGIN_DIR + "/div_to_mul.so";
  test::Outcome r = test::shell(std::string(DLFUZZ_BINARY) + " run " + prog + " --runners '" + runner + "' --json");
  ASSERT_EQ(r.code, 1) << r.out;
  auto j = nlohmann::json::parse(r.out.substr(r.out.find('{')));
  ASSERT_EQ(j["findings"].size(), 1u) << r.out;
  EXPECT_EQ(j["findings"][0]["first_op"], "div") << j["findings"][0].dump(2);
}

TEST(FirstDivergence, APlantedFaultIsLocatedAtItsOp) {
  fs::path dir = fs::temp_directory_path() / "dlfuzz_first_divergence";
  fs::create_directories(dir);
  std::string prog = (dir / "floor_div.dlf").string();
  std::ofstream(prog) << kProgram;
  std::string runner = std::string("ts+plugin:") + DLFUZZ_PLUGIN_DIR + "/div_to_mul.so";
  test::Outcome r = test::shell(std::string(DLFUZZ_BINARY) + " run " + prog + " --runners '" + runner + "' --json");
  ASSERT_EQ(r.code, 1) << r.out;
  auto j = nlohmann::json::parse(r.out.substr(r.out.find('{')));
  ASSERT_EQ(j["findings"].size(), 1u) << r.out;
  const auto& f = j["findings"][0];
  EXPECT_EQ(f["oracle"], "numeric");
  EXPECT_EQ(f["first_op"], "div") << f.dump(2);
  EXPECT_NE(f["first_op_detail"].get<std::string>().find("%3 : f32[8] = div(f32[8])"), std::string::npos)
      << f.dump(2);
}

// `run --bisect --json`: each finding's layer, first diverging op and the
// pass inside the layer (for ts-nnc, NNC's fusion decision).
TEST(FirstDivergence, RunBisectNamesThePassOfEachFinding) {
  fs::path dir = fs::temp_directory_path() / "dlfuzz_first_divergence";
  fs::create_directories(dir);
  std::string prog = (dir / "frac.dlf").string();
  std::ofstream(prog) << "dlfuzz 1 seed=0 policy=0 mode=infer device=cpu world=1 plan=none\n"
                         "input %x : f32[8] range(-2.0,2.0)\n"
                         "%1 : f32[8] = mul %x, 1.5\n"
                         "%2 : f32[8] = sin %1\n"
                         "%3 : f32[8] = frac %2\n"
                         "return %3\n";
  test::Outcome r = test::shell(std::string(DLFUZZ_BINARY) + " run " + prog + " --runners ts-nnc --bisect --json");
  ASSERT_EQ(r.code, 1) << r.out;
  auto j = nlohmann::json::parse(r.out.substr(r.out.find('{')));
  ASSERT_EQ(j["findings"].size(), 1u) << r.out;
  const auto& f = j["findings"][0];
  EXPECT_EQ(f["layer"], "TorchScript NNC fuser");
  EXPECT_EQ(f["first_op"], "frac");
  EXPECT_EQ(f["pass"].get<std::string>().rfind("tensorexpr_fuser #", 0), 0u) << f.dump(2);
  EXPECT_NE(f["pass"].get<std::string>().find("aten::frac"), std::string::npos) << f.dump(2);
}

}  // namespace
}  // namespace dlfuzz
