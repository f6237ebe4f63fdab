// Layer attribution (oracles/layer_ladder.h) at known layers: the lerp of a
// channels_last f32[1,3,3,1] with 0-d end and weight, which Inductor fails to
// compile because a decomposition clones a 0-d result as channels_last (the
// eager and aot_eager backends pass, aot_eager_decomp_partition fails), and a
// LibTorch runner whose layer is its own row's.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "generator/dlf.h"
#include "oracles/evaluate.h"
#include "oracles/layer_ladder.h"
#include "generator/emit.h"
#include "runners/runner.h"
#include "triage/compiler_bisect.h"
#include "triage/nnc_bisect.h"
#include "tests/runners/python_test_options.h"

namespace dlfuzz {

namespace {
Program load(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  ParseResult r = parse_program(ss.str(), path);
  EXPECT_TRUE(r.ok()) << (r.error ? r.error->str() : "");
  return r.program;
}

std::vector<std::string> verdicts(const Finding& f) {
  std::vector<std::string> v;
  for (const auto& r : f.ablation) v.push_back(r["rung"].get<std::string>() + "=" + r["verdict"].get<std::string>());
  return v;
}

ExecutorOptions native_options() {
  ExecutorOptions o;
  o.dlfuzz_binary = DLFUZZ_BINARY;
  o.timeout_ms = 30000;
  return o;
}
}  // namespace

TEST(LayerLadder, AppliesToTheCompiledPythonRunnersOnly) {
  for (const char* r : {"inductor", "inductor-dynamic", "aot-eager", "inductor@venv"})
    EXPECT_TRUE(ladder_applies(r)) << r;
  for (const char* r : {"py-eager", "dynamo-eager", "aot-decomp", "ts", "fault-py-regression", "no-such", "aoti"})
    EXPECT_FALSE(ladder_applies(r)) << r;
  for (const char* r : {"dynamo-eager-dynamic", "aot-eager-dynamic", "aot-decomp-dynamic"})
    EXPECT_FALSE(ladder_applies(r)) << r;
  for (bool dynamic : {false, true}) {
    ASSERT_EQ(layer_ladder(dynamic).size(), 4u);
    for (const auto& rung : layer_ladder(dynamic)) EXPECT_TRUE(parse_runner(rung.runner)) << rung.runner;
  }
  EXPECT_STREQ(layer_ladder(true).back().runner, "inductor-dynamic");
}

// masked_select of a masked_select in training: AOTAutograd guards on the
// unbacked size in the backward, with data-dependent sizes traced only
// (corpus/bugs/aot-masked-select-unbacked-backward.dlf). The static rungs
// graph-break and pass; inductor-dynamic's own rungs name AOTAutograd.
TEST(LayerLadder, InductorDynamicClimbsItsOwnLadder) {
  if (!test::venv_imports("torch._dynamo")) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  Program p = load(std::string(DLFUZZ_SOURCE_DIR) + "/corpus/bugs/aot-masked-select-unbacked-backward.dlf");
  Executor ex(test::python_options());
  Evaluation ev = evaluate(ex, p, {"inductor-dynamic"}, /*recheck=*/true);
  ASSERT_EQ(ev.findings.size(), 1u);
  const Finding& f = ev.findings[0];
  EXPECT_EQ(f.oracle, "status");
  EXPECT_EQ(f.layer, "AOTAutograd") << f.ablation.dump();
  EXPECT_EQ(verdicts(f), (std::vector<std::string>{"eager=pass", "aot_eager=fail", "decomp=fail", "inductor=fail"}));
  EXPECT_EQ(f.ablation[1]["runner"], "aot-eager-dynamic");
}

TEST(LayerLadder, LerpOfChannelsLastWithZeroDimEndFailsAtTheDecompositions) {
  if (!test::venv_imports("torch._dynamo")) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  Program p = load(std::string(DLFUZZ_SOURCE_DIR) + "/tests/runners/lerp_channels_last.dlf");
  Executor ex(test::python_options());
  Evaluation ev = evaluate(ex, p, {"inductor"}, /*recheck=*/true);
  ASSERT_EQ(ev.findings.size(), 1u);
  const Finding& f = ev.findings[0];
  EXPECT_EQ(f.oracle, "status");
  EXPECT_EQ(f.stage, "compile");
  EXPECT_EQ(f.layer, "AOTAutograd decompositions") << f.ablation.dump();
  EXPECT_EQ(verdicts(f), (std::vector<std::string>{"eager=pass", "aot_eager=pass", "decomp=fail", "inductor=fail"}));
  EXPECT_EQ(f.ablation[2]["runner"], "aot-decomp");
}

// inductor-knobs climbs to plain Inductor and then each of its four knobs
// alone: the first rung that fails names the knob. The corpus program is a
// flex_attention that Inductor cannot lower with cpp.simdlen=0 (PyTorch 2.15,
// corpus/bugs/inductor-knobs-flex-attention-simdlen-zero.dlf); its seed draws
// that knob second. Should a newer pinned PyTorch fix it, this test says so.
TEST(LayerLadder, InductorKnobsNamesTheKnobAFindingNeeds) {
  if (!test::venv_imports("torch._inductor")) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  Program p = load(std::string(DLFUZZ_SOURCE_DIR) + "/corpus/bugs/inductor-knobs-flex-attention-simdlen-zero.dlf");
  Executor ex(test::python_options());
  Evaluation ev = evaluate(ex, p, {"inductor-knobs"}, /*recheck=*/true);
  ASSERT_EQ(ev.findings.size(), 1u) << "fixed upstream? inductor-knobs no longer fails on the corpus program";
  const Finding& f = ev.findings[0];
  EXPECT_EQ(f.stage, "compile");
  EXPECT_EQ(f.layer, "Inductor config knob cpp.simdlen=0") << f.ablation.dump();
  EXPECT_EQ(verdicts(f),
            (std::vector<std::string>{"dynamo-eager=pass", "aot-eager=pass", "aot-decomp=pass", "inductor=pass",
                                      "inductor-knob-1=pass", "inductor-knob-2=fail", "inductor-knob-3=pass",
                                      "inductor-knob-4=pass", "inductor-knobs=fail"}));
  EXPECT_EQ(f.ablation[4]["config"], "max_fusion_size=2");
  EXPECT_EQ(f.ablation[5]["config"], "cpp.simdlen=0");
}

// inductor-train (program and optimizer step compiled) climbs torch.compile's
// ladder, then the step compiled alone: the lerp above in a training program
// fails at the decompositions, not at the two compiled together.
TEST(LayerLadder, InductorTrainClimbsToTheRungThatFailsFirst) {
  if (!test::venv_imports("torch._dynamo")) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  ParseResult r = parse_program(
      "dlfuzz 1 seed=1 policy=0 mode=train device=cpu world=1 plan=none target=torch2\n"
      "input %x0 : f32[1,2,1,3] channels_last zeros\n"
      "input %x1 : f32[1,1] strided zeros\n"
      "param %w0 : f32[3] range(-0.5,0.5)\n"
      "target %y0 : f32[3] range(-1.0,1.0)\n"
      "%1 : f32[1,2,1,3] = lerp %x0, %x1, %x0\n"
      "%2 : f32[] = mse_loss %w0, %y0\n"
      "return %1\n"
      "loss %2\n"
      "step sgd lr=0.1 momentum=0.0 weight_decay=0.0 steps=1\n",
      "lerp_train");
  ASSERT_TRUE(r.ok()) << r.error->str();
  Executor ex(test::python_options());
  Evaluation ev = evaluate(ex, r.program, {"inductor-train"}, /*recheck=*/true);
  ASSERT_EQ(ev.findings.size(), 1u);
  const Finding& f = ev.findings[0];
  EXPECT_EQ(f.stage, "compile");
  EXPECT_EQ(f.layer, "AOTAutograd+decompositions") << f.ablation.dump();
  ASSERT_EQ(f.ablation.size(), 6u) << f.ablation.dump();  // five rungs below, then inductor-train
  EXPECT_EQ(f.ablation[1]["verdict"], "pass") << f.ablation.dump();  // aot-eager
  EXPECT_EQ(f.ablation[2]["verdict"], "fail") << f.ablation.dump();  // aot-decomp
  EXPECT_EQ(f.ablation[4]["runner"], "inductor-step");
}

// A planted fault in Inductor's lowering path (fault-inductor-lowering: sin
// lowered as sin(x) + 0.01): Dynamo, AOTAutograd and the decompositions are
// right, so the ladder puts it on Inductor, and it starts at the sin.
TEST(LayerLadder, APlantedLoweringFaultIsInductorsAndStartsAtItsOp) {
  if (!test::venv_imports("torch._inductor.lowering")) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  ParseResult r = parse_program(
      "dlfuzz 1 seed=0 policy=0 mode=infer device=cpu world=1 plan=none target=torch2\n"
      "input %x : f32[4,8] range(-2.0,2.0)\n%1 : f32[4,8] = mul %x, 3.0\n%2 : f32[4,8] = sin %1\n"
      "%3 : f32[4,8] = tanh %2\nreturn %3\n",
      "sin");
  ASSERT_TRUE(r.ok()) << r.error->str();
  Executor ex(test::python_options());
  Evaluation ev = evaluate(ex, r.program, {"fault-inductor-lowering"}, /*recheck=*/true);
  ASSERT_EQ(ev.findings.size(), 1u);
  const Finding& f = ev.findings[0];
  EXPECT_EQ(f.oracle, "numeric");
  EXPECT_EQ(f.layer, "Inductor") << f.ablation.dump();
  EXPECT_EQ(verdicts(f), (std::vector<std::string>{"eager=pass", "aot_eager=pass", "decomp=pass", "inductor=fail"}));
  EXPECT_EQ(f.first_op, "sin") << f.first_op_detail;
}

TEST(LayerLadder, NoRecheckNoLadder) {
  if (!test::venv_imports("torch._dynamo")) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  Program p = load(std::string(DLFUZZ_SOURCE_DIR) + "/tests/runners/lerp_channels_last.dlf");
  Executor ex(test::python_options());
  // aot-decomp under test itself: the same finding, and as the reducer sees it
  // (no recheck), unattributed.
  Evaluation ev = evaluate(ex, p, {"aot-decomp"}, false);
  ASSERT_EQ(ev.findings.size(), 1u);
  EXPECT_EQ(ev.findings[0].stage, "compile");
  EXPECT_EQ(ev.findings[0].layer, "");
  EXPECT_TRUE(ev.findings[0].ablation.is_null());
}

// NNC's frac computes x - floor(x) (upstream #86597): the profiling executor
// without the fuser is right, so the layer is NNC's.
TEST(LayerLadder, ALibTorchFindingIsAttributedAlongItsOwnLadder) {
  ParseResult r = parse_program(
      "dlfuzz 1 seed=0 policy=0 mode=infer device=cpu world=1 plan=none\n"
      "input %x : f32[8] range(-2.0,2.0)\n%1 : f32[8] = mul %x, 1.5\n%2 : f32[8] = frac %1\nreturn %2\n",
      "frac");
  ASSERT_TRUE(r.ok());
  Executor ex(native_options());
  Evaluation ev = evaluate(ex, r.program, {"ts-nnc"}, /*recheck=*/true);
  ASSERT_EQ(ev.findings.size(), 1u);
  const Finding& f = ev.findings[0];
  EXPECT_EQ(f.oracle, "numeric");
  EXPECT_EQ(verdicts(f),
            (std::vector<std::string>{"ts-noopt=pass", "ts-simple=pass", "ts=pass", "ts-nnc=fail"}));
  EXPECT_EQ(f.layer, "TorchScript NNC fuser");
  EXPECT_EQ(f.first_op, "frac");
  EXPECT_EQ(f.bug_signature(), f.signature() + "|layer=TorchScript NNC fuser|first=frac");
}

// A planted pass: the div_to_mul plugin rewrites a floor division by a
// constant into a multiplication. Every rung of ts's ladder passes, and ts
// itself: the plugin's pass is named.
TEST(LayerLadder, APluginsPassIsNamedAboveItsBaseRunnersLadder) {
  ParseResult r = parse_program(
      "dlfuzz 1 seed=0 policy=0 mode=infer device=cpu world=1 plan=none\n"
      "input %x : f32[8] range(-4.0,4.0)\n%1 : f32[8] = mul %x, 3.0\n"
      "%2 : f32[8] = div %1, 0.7, rounding_mode=\"floor\"\n%3 : f32[8] = sin %2\nreturn %3\n",
      "floor_div");
  ASSERT_TRUE(r.ok()) << r.error->str();
  Executor ex(native_options());
  std::string runner = std::string("ts+plugin:") + DLFUZZ_PLUGIN_DIR + "/div_to_mul.so";
  Evaluation ev = evaluate(ex, r.program, {runner}, /*recheck=*/true);
  ASSERT_EQ(ev.findings.size(), 1u);
  const Finding& f = ev.findings[0];
  EXPECT_EQ(f.layer, "plugin pass div_to_mul") << f.ablation.dump();
  EXPECT_EQ(verdicts(f), (std::vector<std::string>{"ts-noopt=pass", "ts-simple=pass", "ts=pass", runner + "=fail"}));
  EXPECT_EQ(f.first_op, "div");
}

// Frozen's and Static Runtime's ladders stop before each group of passes;
// with nothing wrong, each rung agrees with eager (a rung that disagreed with
// eager on a correct program would attribute every finding below its layer).
TEST(LayerLadder, EveryLibTorchRungRunsAndAgreesOnACorrectProgram) {
  ParseResult r = parse_program(
      "dlfuzz 1 seed=0 policy=0 mode=infer device=cpu world=1 plan=none\n"
      "input %x : f32[2,3,5,5] range(-2.0,2.0)\nparam %w : f32[4,3,3,3] range(-0.5,0.5)\n"
      "%1 : f32[2,4,3,3] = conv2d %x, %w\n%2 : f32[2,4,3,3] = add %1, 1.0\n%3 : f32[2,4,3,3] = relu %2\n"
      "return %3\n",
      "conv_add_relu");
  ASSERT_TRUE(r.ok()) << r.error->str();
  Executor ex(native_options());
  std::vector<std::string> rungs = {"ts-noopt", "ts-simple", "frozen-plain", "frozen-fold"};
  if (make_runner("static-noout")) rungs.insert(rungs.end(), {"static-noout", "static-noplan"});
  Evaluation ev = evaluate(ex, r.program, rungs, /*recheck=*/false);
  EXPECT_TRUE(ev.findings.empty()) << ev.findings[0].detail;
  EXPECT_TRUE(ev.skipped.empty());
  for (const auto& res : ev.results) EXPECT_TRUE(res.ok()) << res.runner << ": " << res.error;
}

// Inside NNC: the optimization limiter (PYTORCH_JIT_OPT_LIMIT) lets the fuser
// take N decisions; the smallest N that shows the frac bug fuses frac.
TEST(LayerLadder, NncBisectionNamesTheFusionDecisionThatTakesFrac) {
  ParseResult r = parse_program(
      "dlfuzz 1 seed=0 policy=0 mode=infer device=cpu world=1 plan=none\n"
      "input %x : f32[8] range(-2.0,2.0)\n%1 : f32[8] = mul %x, 1.5\n%2 : f32[8] = sin %1\n"
      "%3 : f32[8] = frac %2\nreturn %3\n",
      "frac");
  ASSERT_TRUE(r.ok());
  Executor ex(native_options());
  Evaluation ev = evaluate(ex, r.program, {"ts-nnc"}, false);
  ASSERT_EQ(ev.findings.size(), 1u);
  NncBisection b = bisect_nnc(native_options(), r.program, "ts-nnc", ev.findings[0].signature());
  ASSERT_TRUE(b.bisected) << b.error;
  EXPECT_GE(b.decision, 1);
  EXPECT_NE(b.fused_ops.find("aten::frac"), std::string::npos) << b.summary();
  EXPECT_EQ(b.summary().rfind("tensorexpr_fuser #", 0), 0u) << b.summary();
  EXPECT_EQ(std::getenv("PYTORCH_JIT_OPT_LIMIT"), nullptr) << "the limit is this process's no longer";
}

TEST(LayerLadder, ALibTorchRunnersLayerIsItsRows) {
  Program p = load(std::string(DLFUZZ_SOURCE_DIR) + "/tests/runners/lerp_channels_last.dlf");
  Executor ex(native_options());
  Evaluation ev = evaluate(ex, p, {"fault-compile-error"}, /*recheck=*/true);
  ASSERT_EQ(ev.findings.size(), 1u);
  EXPECT_EQ(ev.findings[0].layer, "planted fault");
  EXPECT_TRUE(ev.findings[0].ablation.is_null()) << "no ladder for a runner that adds no layer to another's";
}

// The same lerp through PyTorch's compiler_bisector (`triage bisect`): the repro
// with --fail-above as its predicate; the bisector names the decompositions and,
// within them, aten.lerp's.
TEST(LayerLadder, CompilerBisectorNamesTheLerpDecomposition) {
  if (!test::venv_imports("torch._inductor.compiler_bisector")) GTEST_SKIP() << "no .venv with PyTorch 2.x";
  Program p = load(std::string(DLFUZZ_SOURCE_DIR) + "/tests/runners/lerp_channels_last.dlf");
  char dir[] = "/tmp/dlfuzz-bisect-test-XXXXXX";
  ASSERT_TRUE(mkdtemp(dir));
  BisectRun run = run_compiler_bisector(test::python_options().python, emit_python(p), {"--backend", "inductor"},
                                        1e-3, dir);
  ASSERT_TRUE(run.result) << run.error << "\n" << run.log;
  EXPECT_EQ(run.result->backend, "aot_eager_decomp_partition");
  EXPECT_EQ(run.result->subsystem, "decomposition");
  EXPECT_NE(run.result->debug_info.find("aten.lerp"), std::string::npos) << run.result->summary();

  // A program without the bug is refused before bisecting (the bisector would blame eager).
  ParseResult clean = parse_program(
      "dlfuzz 1 seed=0 mode=infer\ninput %x : f32[3] range(-1,1)\n%1 : f32[3] = sin %x\nreturn %1\n");
  ASSERT_TRUE(clean.ok());
  BisectRun none = run_compiler_bisector(test::python_options().python, emit_python(clean.program),
                                         {"--backend", "aot_eager"}, 1e-3, dir);
  EXPECT_FALSE(none.result);
  EXPECT_NE(none.error.find("does not show the bug"), std::string::npos) << none.error;
}

}  // namespace dlfuzz
