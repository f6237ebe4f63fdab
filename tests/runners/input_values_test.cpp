// The value policy's inputs: the C++ builder and the Python runtime's
// build_input give the same bits for special, ints and decimals inputs of every
// floating dtype (NaN where NaN, signed zeros, denormals, the dtype's limits),
// on torch 1.13 and on the project's PyTorch 2.x, for the program and its
// float64 twin.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/runners/python_test_options.h"

#include "generator/dlf.h"
#include "generator/emit.h"
#include "runners/input_builder.h"

namespace dlfuzz {
namespace {
namespace fs = std::filesystem;

const char* kProgram =
    "dlfuzz 1 seed=77 policy=0000000000000000 mode=infer device=cpu world=1 plan=none\n"
    "input %a : f32[40] special(-2.0,2.0)\n"
    "input %b : f16[5,8] special(-2.0,2.0)\n"
    "input %c : bf16[40] special(-1.0,3.0)\n"
    "input %d : f64[40] special(-2.0,2.0)\n"
    "input %e : f32[3,5] strided ints(-4.0,5.0)\n"
    "input %f : f16[40] decimals(-2.0,2.0)\n"
    "input %g : i64[40] ints(-3.0,3.0)\n"
    "return %a, %b, %c, %d, %e, %f, %g\n";

std::vector<double> values_of(const at::Tensor& t) {
  at::Tensor d = t.to(at::kDouble).contiguous().reshape({-1});
  return std::vector<double>(d.data_ptr<double>(), d.data_ptr<double>() + d.numel());
}

bool same_bits(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::memcmp(&a, &b, sizeof a) == 0;
}

// Python's build_input for each input of the repro, plain and float64, one
// line per tensor of repr()'d values.
std::vector<std::vector<double>> python_values(const std::string& python, const Program& p) {
  fs::path dir = fs::temp_directory_path() / "dlfuzz_input_values_test";
  fs::create_directories(dir);
  // Files of their own per interpreter: ctest runs the tests side by side.
  std::string tag = std::to_string(std::hash<std::string>()(python));
  std::string repro = (dir / ("repro" + tag + ".py")).string(), script = (dir / ("dump" + tag + ".py")).string();
  std::string out = (dir / ("values" + tag + ".txt")).string();
  std::ofstream(repro) << emit_python(p);
  std::ofstream(script) << "import runpy, sys\n"
                           "ns = runpy.run_path(sys.argv[1], run_name='dlfuzz_repro')\n"
                           "with open(sys.argv[2], 'w') as f:\n"
                           "    for f64 in (False, True):\n"
                           "        m = ns['ProgramMeta'](ns['SEED'], 'cpu', 1, 'none', ns['INPUTS'], [], None, f64)\n"
                           "        for x in ns['build_inputs'](m):\n"
                           "            f.write(' '.join(repr(v) for v in x.double().reshape(-1).tolist()) + '\\n')\n";
  EXPECT_EQ(std::system((python + " " + script + " " + repro + " " + out).c_str()), 0);
  std::vector<std::vector<double>> rows;
  std::ifstream in(out);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::vector<double> row;
    for (std::string w; words >> w;) row.push_back(std::strtod(w.c_str(), nullptr));
    rows.push_back(row);
  }
  return rows;
}

void expect_python_matches(const std::string& python) {
  ParseResult r = parse_program(kProgram);
  ASSERT_TRUE(r.ok()) << r.error->str();
  const Program& p = r.program;
  auto rows = python_values(python, p);
  ASSERT_EQ(rows.size(), 2 * p.inputs.size());
  for (int f64 = 0; f64 < 2; ++f64)
    for (size_t i = 0; i < p.inputs.size(); ++i) {
      std::vector<double> cpp = values_of(build_input(p, i, f64));
      const auto& py = rows[f64 * p.inputs.size() + i];
      ASSERT_EQ(cpp.size(), py.size()) << "input " << i;
      for (size_t k = 0; k < cpp.size(); ++k)
        EXPECT_TRUE(same_bits(cpp[k], py[k])) << python << " input " << i << (f64 ? " (float64)" : "") << " element "
                                              << k << ": " << cpp[k] << " vs " << py[k];
    }
}
}  // namespace

TEST(InputValues, SpecialInputsHoldTheSpecialValues) {
  ParseResult r = parse_program(kProgram);
  ASSERT_TRUE(r.ok()) << r.error->str();
  for (size_t i = 0; i < 4; ++i) {
    DType t = r.program.type(r.program.inputs[i].value).dtype;
    std::vector<double> v = values_of(build_input(r.program, i, false));
    int nan = 0, inf = 0, neg_zero = 0, denormal = 0, plain = 0;
    for (double x : v) {
      nan += std::isnan(x);
      inf += std::isinf(x);
      neg_zero += x == 0 && std::signbit(x);
      denormal += x != 0 && std::fabs(x) < float_tiny(t);
      plain += std::isfinite(x) && std::fabs(x) <= 3;
    }
    // One element in eight is special: most stay plain, and the sample of 40 shows some.
    EXPECT_GE(plain, 30) << "input " << i;
    EXPECT_GE(nan + inf + neg_zero + denormal, 1) << "input " << i;
  }
  std::vector<double> ints = values_of(build_input(r.program, 4, false));
  for (double x : ints) EXPECT_EQ(x, std::floor(x));
  std::vector<double> decimals = values_of(build_input(r.program, 5, true));
  for (double x : decimals) EXPECT_NEAR(x * 10, std::round(x * 10), 1e-9);
}

TEST(InputValues, PythonBuildsTheSameBitsOnTorch113) {
  if (std::system("/usr/bin/python3 -c 'import torch' >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "Debian's python3-torch is not installed";
  expect_python_matches("/usr/bin/python3");
}

TEST(InputValues, PythonBuildsTheSameBitsOnTheProjectsPyTorch) {
  if (!test::venv_imports("torch")) GTEST_SKIP() << "no .venv with torch (run scripts/setup.sh)";
  expect_python_matches(test::kPython);
}

}  // namespace dlfuzz
