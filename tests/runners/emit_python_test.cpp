// The standalone Python repro: run with Debian's python3 (torch 1.13, the
// LibTorch this binary links), its eager results match the C++ eager runner's;
// run with the project's .venv (PyTorch 2.x), it runs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "generator/dlf.h"
#include "generator/emit.h"
#include "generator/generator.h"
#include "runners/runner.h"

namespace dlfuzz {

namespace {
namespace fs = std::filesystem;

bool python_has_torch(const std::string& python) {
  return fs::exists(python) && std::system((python + " -c 'import torch' >/dev/null 2>&1").c_str()) == 0;
}

// Same values, NaN equal to NaN and Inf to Inf of its sign, up to float
// rounding noise. The repro writes non-finite values as "nan", "inf", "-inf".
void expect_close(const HostTensor& cpp, const nlohmann::json& py, const std::string& what) {
  if (!cpp.defined) {
    EXPECT_TRUE(py.is_null()) << what;
    return;
  }
  ASSERT_FALSE(py.is_null()) << what;
  EXPECT_EQ(py["shape"].get<Shape>(), cpp.shape) << what;
  const auto& vals = py["values"];
  ASSERT_EQ(static_cast<int64_t>(vals.size()), cpp.numel()) << what;
  for (int64_t i = 0; i < cpp.numel(); ++i) {
    double a = cpp.at(i);
    double b = vals[i].is_null()     ? NAN
               : vals[i].is_string() ? std::strtod(vals[i].get<std::string>().c_str(), nullptr)
                                     : vals[i].get<double>();
    if (std::isnan(a) || std::isnan(b)) {
      EXPECT_TRUE(std::isnan(a) && std::isnan(b)) << what << " element " << i;
      continue;
    }
    if (std::isinf(a) || std::isinf(b)) {
      EXPECT_EQ(a, b) << what << " element " << i;
      continue;
    }
    EXPECT_NEAR(a, b, 1e-7 + 1e-6 * std::fabs(a)) << what << " element " << i;
  }
}

std::string write_script(const Program& p, const std::string& name) {
  fs::path dir = fs::temp_directory_path() / "dlfuzz_emit_test";
  fs::create_directories(dir);
  std::string path = (dir / name).string();
  std::ofstream(path) << emit_python(p);
  return path;
}
}  // namespace

TEST(EmitPython, MatchesCppEagerOnTheSameTorch) {
  const std::string python = "/usr/bin/python3";
  if (!python_has_torch(python)) GTEST_SKIP() << "Debian's python3-torch is not installed";
  GenPolicy policy;
  auto eager = make_runner("eager");
  int compared = 0;
  for (uint64_t seed = 100; compared < 12; ++seed) {
    Program p = generate_program(policy, seed);
    RunResult r = eager->run(p, RunConfig{});
    if (!r.ok()) continue;
    std::string script = write_script(p, "seed_" + std::to_string(seed) + ".py");
    std::string json_path = script + ".json";
    ASSERT_EQ(std::system((python + " " + script + " --dump-json " + json_path + " >/dev/null 2>&1").c_str()), 0)
        << "seed " << seed << ": " << script;
    nlohmann::json j = nlohmann::json::parse(std::ifstream(json_path));
    ASSERT_EQ(j["outputs"].size(), r.outputs.size());
    for (size_t i = 0; i < r.outputs.size(); ++i)
      expect_close(r.outputs[i], j["outputs"][i], "seed " + std::to_string(seed) + " output " + std::to_string(i));
    for (size_t i = 0; i < r.grads.size(); ++i)
      expect_close(r.grads[i], j["grads"][i], "seed " + std::to_string(seed) + " grad " + std::to_string(i));
    for (size_t i = 0; i < r.params.size(); ++i)
      expect_close(r.params[i], j["params"][i], "seed " + std::to_string(seed) + " param " + std::to_string(i));
    ++compared;
  }
}

TEST(EmitPython, RunsWithTheProjectsPyTorch) {
  const std::string python = std::string(DLFUZZ_SOURCE_DIR) + "/.venv/bin/python";
  if (!python_has_torch(python)) GTEST_SKIP() << "no .venv with torch (run scripts/setup.sh)";
  GenPolicy policy;
  for (uint64_t seed : {11u, 12u, 13u, 14u}) {
    Program p = generate_program(policy, seed);
    std::string script = write_script(p, "venv_seed_" + std::to_string(seed) + ".py");
    EXPECT_EQ(std::system((python + " " + script + " --dump-json " + script + ".json >/dev/null 2>&1").c_str()), 0)
        << "seed " << seed << ": " << script;
  }
}

}  // namespace dlfuzz

namespace dlfuzz {

// --dynamic replays inductor-dynamic: one compiled function (dynamic=True,
// data-dependent sizes traced) at the program's batch and at another. With
// aot_eager (no C++ compile) a masked_select program agrees with eager at both.
TEST(EmitPython, DynamicReplayCallsTheCompiledFunctionAtTwoBatchSizes) {
  const std::string python = std::string(DLFUZZ_SOURCE_DIR) + "/.venv/bin/python";
  if (!python_has_torch(python)) GTEST_SKIP() << "no .venv with torch (run scripts/setup.sh)";
  ParseResult r = parse_program(
      "dlfuzz 1 seed=1 policy=0 mode=infer device=cpu world=1 plan=none target=torch2\n"
      "input %x0 : f32[4,3] range(-2.0,2.0)\n"
      "%1 : i64[4,3] = argsort %x0, dim=-1, stable=true\n"
      "%2 : bool[4,3] = lt %1, 2\n"
      "%3 : f32[8] = masked_select %x0, %2, count=8\n"
      "%4 : f32[] = sum %x0\n"
      "%5 : f32[8] = mul %3, item(%4)\n"
      "return %5\n");
  ASSERT_TRUE(r.ok()) << r.error->str();
  std::string script = write_script(r.program, "dynamic_replay.py");
  std::string out = script + ".out";
  ASSERT_EQ(std::system((python + " " + script + " --backend aot_eager --dynamic >" + out + " 2>&1").c_str()), 0);
  std::ifstream in(out);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // outputs[0] at the program's batch (8 values), outputs[1] at the resized one (10).
  EXPECT_NE(text.find("outputs[1] max abs diff 0"), std::string::npos) << text;
  EXPECT_NE(text.find("max abs diff 0\n"), std::string::npos) << text;
}

}  // namespace dlfuzz

namespace dlfuzz {

// --export replays export, export-decomp, export-serde and export-dynamic: a
// torch.cond program (export's branch on data) through torch.export, its graph
// module run as is, after run_decompositions(), after a .pt2 round trip, and
// exported with dynamic shapes and called at the resized batch too, agrees
// with eager.
TEST(EmitPython, ExportReplayRunsTheExportedProgram) {
  const std::string python = std::string(DLFUZZ_SOURCE_DIR) + "/.venv/bin/python";
  if (!python_has_torch(python)) GTEST_SKIP() << "no .venv with torch (run scripts/setup.sh)";
  ParseResult r = parse_program(
      "dlfuzz 1 seed=1 policy=0 mode=infer device=cpu world=1 plan=none target=torch2\n"
      "input %x : f32[4,3] range(-1.0,1.0)\n"
      "%1 : f32[] = sum %x\n"
      "%2 : bool[] = gt %1, 0.0\n"
      "%3 : f32[4,3] = if cond=%2, hop=true {\n  %4 : f32[4,3] = softmax %x, dim=1\n  yield %4\n"
      "} else {\n  %5 : f32[4,3] = tanh %x\n  yield %5\n}\n"
      "return %3\n");
  ASSERT_TRUE(r.ok()) << r.error->str();
  std::string script = write_script(r.program, "export_replay.py");
  for (const std::string how : {"program", "decomp", "serde", "program --dynamic"}) {
    std::string out = script + "." + how.substr(0, how.find(' ')) + ".out";
    ASSERT_EQ(std::system((python + " " + script + " --export " + how + " >" + out + " 2>&1").c_str()), 0) << how;
    std::ifstream in(out);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("outputs[0] max abs diff 0"), std::string::npos) << how << ": " << text;
    // --dynamic: the resized batch's outputs follow.
    EXPECT_EQ(text.find("outputs[1] max abs diff 0") != std::string::npos, how.find("--dynamic") != std::string::npos)
        << how << ": " << text;
  }
}

}  // namespace dlfuzz
