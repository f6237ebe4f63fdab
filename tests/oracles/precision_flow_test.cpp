// Which results were computed through bfloat16 or float16 values, and the
// numeric oracle judging those with the low dtype's tolerance.
#include <gtest/gtest.h>

#include <cstring>

#include "generator/dlf.h"
#include "generator/generator.h"
#include "oracles/numeric_oracle.h"
#include "oracles/precision_flow.h"
#include "tests/parse_program.h"

namespace dlfuzz {

namespace {
Program parse(const std::string& body, const std::string& mode = "infer") {
  std::string head = "dlfuzz 1 seed=0 policy=0 mode=" + mode + " device=cpu world=1 plan=none target=torch2\n";
  return test::parse(head + body, "flow.dlf");
}

HostTensor f32(const std::vector<float>& v) {
  HostTensor t;
  t.defined = true;
  t.dtype = DType::f32;
  t.shape = {int64_t(v.size())};
  t.bytes.resize(v.size() * sizeof(float));
  std::memcpy(t.bytes.data(), v.data(), t.bytes.size());
  return t;
}

HostTensor f64(const std::vector<double>& v) {
  HostTensor t;
  t.defined = true;
  t.dtype = DType::f64;
  t.shape = {int64_t(v.size())};
  t.bytes.resize(v.size() * sizeof(double));
  std::memcpy(t.bytes.data(), v.data(), t.bytes.size());
  return t;
}
}  // namespace

// The campaign's case (inductor-train, seed 73000, reduced): bf16 values
// rounded by two ops, then upcast. Inductor keeps the float32 intermediate.
TEST(PrecisionFlow, AFloat32OutputOfBf16ArithmeticIsJudgedAsBf16) {
  Program p = parse(
      "input %x : bf16[8] zeros\n"
      "%1 : bf16[8] = add %x, 1.716\n"
      "%2 : bf16[8] = add %1, 0.096\n"
      "%3 : f32[8] = to %2, dtype=f32\n"
      "return %3\n");
  PrecisionFlow flow = precision_flow(p);
  ASSERT_EQ(flow.outputs.size(), 1u);
  EXPECT_EQ(flow.outputs[0], DType::bf16);
  NumericOptions opt = numeric_options_for(&p);
  RunResult eager, inductor;
  eager.outputs = {f32(std::vector<float>(8, 2.8125f))};            // each add rounded to bf16
  inductor.outputs = {f32(std::vector<float>(8, 2.81201171875f))};  // one rounding, in float32
  EXPECT_FALSE(check_numeric(eager, inductor, nullptr, opt));
  // Without the flow the float32 tolerance flags it, and a real difference
  // is still flagged with it.
  EXPECT_TRUE(check_numeric(eager, inductor, nullptr));
  inductor.outputs = {f32(std::vector<float>(8, 2.9f))};
  EXPECT_TRUE(check_numeric(eager, inductor, nullptr, opt));
}

// An input is exact: upcasting a bf16 input, or viewing it, rounds nothing;
// only the float32 mul rounds.
TEST(PrecisionFlow, UpcastInputsAndViewsRoundNothing) {
  Program p = parse(
      "input %x : bf16[2,4] range(-1,1)\n"
      "input %y : f32[4,2] range(-1,1)\n"
      "%1 : bf16[4,2] = permute %x, dims=[1,0]\n"
      "%2 : f32[4,2] = to %1, dtype=f32\n"
      "%3 : f32[4,2] = mul %2, %y\n"
      "return %3\n");
  PrecisionFlow flow = precision_flow(p);
  ASSERT_EQ(flow.outputs.size(), 1u);
  EXPECT_EQ(flow.outputs[0], DType::f32);
}

// bicubic upsampling of ones in float32, then float_power's float64 (the
// inductor campaign of session 28, reduced): the float64 output carries the
// float32 rounding of the upsampling, and is judged with float32's tolerance.
TEST(PrecisionFlow, AFloat64OutputOfFloat32ArithmeticIsJudgedAsFloat32) {
  Program p = parse(
      "input %x : f32[1,1,1,1] ones\n"
      "%1 : f32[1,1,4,11] = upsample_bicubic2d %x, output_size=[4,11], align_corners=false\n"
      "%2 : f64[1,1,4,11] = float_power %1, 2\n"
      "return %2\n");
  PrecisionFlow flow = precision_flow(p);
  ASSERT_EQ(flow.outputs.size(), 1u);
  EXPECT_EQ(flow.outputs[0], DType::f32);
  NumericOptions opt = numeric_options_for(&p);
  RunResult eager, inductor;
  eager.outputs = {f64(std::vector<double>(44, 0.9999997615814351))};
  inductor.outputs = {f64(std::vector<double>(44, 0.9999994039536411))};
  EXPECT_FALSE(check_numeric(eager, inductor, nullptr, opt));
  EXPECT_TRUE(check_numeric(eager, inductor, nullptr)) << "float64's own tolerance flags it";
  inductor.outputs = {f64(std::vector<double>(44, 0.9999))};
  EXPECT_TRUE(check_numeric(eager, inductor, nullptr, opt)) << "a real difference is still flagged";
}

// A float64 result computed in float64 from float32 inputs rounds nothing below float64.
TEST(PrecisionFlow, Float64ArithmeticOfFloat32InputsKeepsFloat64sTolerance) {
  Program p = parse(
      "input %x : f32[4] range(-1,1)\n"
      "%1 : f64[4] = float_power %x, 2\n"
      "return %1\n");
  EXPECT_FALSE(precision_flow(p).outputs.at(0).has_value());
}

TEST(PrecisionFlow, TheCoarserOfBf16AndF16IsBf16) {
  Program p = parse(
      "input %x : f16[4] range(-1,1)\n"
      "input %y : bf16[4] range(-1,1)\n"
      "%1 : f16[4] = sin %x\n"
      "%2 : bf16[4] = cos %y\n"
      "%3 : f32[4] = to %1, dtype=f32\n"
      "%4 : f32[4] = to %2, dtype=f32\n"
      "%5 : f32[4] = add %3, %4\n"
      "return %3, %5\n");
  PrecisionFlow flow = precision_flow(p);
  ASSERT_EQ(flow.outputs.size(), 2u);
  EXPECT_EQ(flow.outputs[0], DType::f16);
  EXPECT_EQ(flow.outputs[1], DType::bf16);
  EXPECT_EQ(coarser(DType::f16, DType::bf16), DType::bf16);
  EXPECT_EQ(coarser(std::nullopt, DType::f16), DType::f16);
}

// A param's gradient is computed through what backward reads between it and
// the loss: w1 reaches the loss in float32 alone; w2 only a bf16 output.
// (Where a bf16 branch joins w1's path, say `add`, it counts, though add's
// backward reads no value: the rule is coarse on the safe side.)
// w1 in float32, w2 through a bf16 sin.
constexpr const char* kTwoBranches =
    "input %x : f32[4] range(-1,1)\n"
    "param %w1 : f32[4] range(-1,1)\n"
    "param %w2 : f32[4] range(-1,1)\n"
    "%1 : f32[4] = mul %x, %w1\n"
    "%2 : bf16[4] = to %w2, dtype=bf16\n"
    "%3 : bf16[4] = sin %2\n"
    "%4 : f32[4] = to %3, dtype=f32\n";

TEST(PrecisionFlow, AGradientIsComputedThroughItsPathToTheLoss) {
  Program p = parse(std::string(kTwoBranches) +
                        "%5 : f32[] = sum %1\n"
                        "return %4\n"
                        "loss %5\n"
                        "step sgd lr=0.01 momentum=0.0 weight_decay=0.0 steps=1\n",
                    "train");
  PrecisionFlow flow = precision_flow(p);
  ASSERT_EQ(flow.params.size(), 2u);
  EXPECT_EQ(flow.params[0], DType::f32);
  EXPECT_EQ(flow.params[1], DType::f32) << "w2 does not reach the loss: its gradient is its own float32";
  EXPECT_EQ(flow.outputs[0], DType::bf16);
  // The loss through the bf16 branch as well: both gradients then are.
  Program q = parse(std::string(kTwoBranches) +
                        "%5 : f32[4] = mul %1, %4\n"
                        "%6 : f32[] = sum %5\n"
                        "return %1\n"
                        "loss %6\n"
                        "step sgd lr=0.01 momentum=0.0 weight_decay=0.0 steps=1\n",
                    "train");
  flow = precision_flow(q);
  EXPECT_EQ(flow.params[0], DType::bf16) << "mul's backward reads the bf16-computed factor";
  EXPECT_EQ(flow.params[1], DType::bf16);
  EXPECT_EQ(flow.outputs[0], DType::f32) << "one step: the output is computed before any update";
  // With a second step, the output is computed from params that the first
  // step moved by bf16-rounded gradients.
  q.train->steps = 2;
  flow = precision_flow(q);
  EXPECT_EQ(flow.outputs[0], DType::bf16);
}

// Generated programs: every output whose type is below float32 has a flow at
// least that coarse, and the flows never name a non-float dtype.
TEST(PrecisionFlow, GeneratedProgramsHaveConsistentFlows) {
  GenPolicy policy;
  int low_outputs = 0;
  for (uint64_t seed = 0; seed < 1500; ++seed) {
    Program p = generate_program(policy, seed);
    PrecisionFlow flow = precision_flow(p);
    ASSERT_EQ(flow.outputs.size(), p.body.yields.size()) << seed;
    if (p.is_training()) {
      size_t params = 0;
      for (const auto& in : p.inputs) params += in.kind == InputKind::param;
      ASSERT_EQ(flow.params.size(), params) << seed;
    }
    for (const auto& f : flow.values) {
      if (f) {
        ASSERT_TRUE(*f == DType::bf16 || *f == DType::f16 || *f == DType::f32) << seed;
      }
    }
    for (size_t i = 0; i < flow.outputs.size(); ++i) {
      DType t = p.type(p.body.yields[i]).dtype;
      const Value& v = p.values.at(p.body.yields[i]);
      bool is_input = p.input_of(p.body.yields[i]) != nullptr;
      if ((t == DType::bf16 || t == DType::f16) && !is_input) {
        ++low_outputs;
        // A view of an input carries no rounding; anything else computed in
        // bf16/f16 is at least that coarse.
        if (flow.outputs[i]) {
          EXPECT_EQ(coarser(flow.outputs[i], t), flow.outputs[i]) << seed << " %" << v.name;
        }
      }
    }
  }
  EXPECT_GT(low_outputs, 0) << "the generator makes bf16/f16 results";
}

}  // namespace dlfuzz
