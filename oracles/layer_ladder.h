// Whose bug is it: each finding attributed to a compiler layer. A LibTorch
// runner's layer is its row's in the runner table (TorchScript's executors,
// NNC, freezing and Static Runtime are runners of their own). A PyTorch 2.x
// finding is rerun up a ladder of torch.compile backends, each adding one
// layer, as PyTorch's CompilerBisector does:
//
//   eager      dynamo-eager  backend "eager": Dynamo's graph capture alone
//   aot_eager  aot-eager     + AOTAutograd (functionalization, joint graph)
//   decomp     aot-decomp    + Inductor's decompositions and partitioner
//   inductor   inductor      + Inductor's lowering, fusion and codegen
//
// and the first rung that shows the same finding (same oracle, same stage)
// names the layer. Each rung is judged by the same oracles as the finding.
// inductor-dynamic climbs the same ladder with every rung compiled as it is
// (dynamic=True, data-dependent sizes traced, the batch resized): without
// those settings its unbacked-size bugs would pass every rung below it.
//
// LibTorch runners have ladders of runners that each stop before one group
// of passes (runners/Runners.def):
//
//   ts         ts-noopt (frontend, interpreter) -> ts-simple (graph passes)
//              -> ts (profiling executor: specialization, autodiff)
//   ts-nnc     ts's ladder -> ts-nnc (the NNC fuser)
//   ts-legacy  ts-noopt -> ts-legacy
//   frozen     ts-noopt -> ts -> frozen-plain (freezing) -> frozen-fold
//              (conv folding) -> frozen (optimize_for_inference)
//   static     ts-noopt -> static-noout (Static Runtime's passes and
//              interpreter) -> static-noplan (out variants) -> static
//              (memory planner)
//   R+plugin:P R's ladder -> R -> the plugin's passes
//
// and inductor-train (the program and its optimizer step compiled) climbs
// dynamo-eager -> aot-eager -> aot-decomp -> inductor -> inductor-step: a
// finding none of them shows is the two compiled together.
//
// A ts-nnc finding that ts shows too is the profiling executor's, not NNC's.
// Inside NNC, `triage bisect` names the fusion decision (PYTORCH_JIT_OPT_LIMIT).
#pragma once
#include <string>
#include <vector>

#include "generator/program.h"
#include "oracles/finding.h"
#include "runners/executor.h"

namespace dlfuzz {

struct LadderRung {
  const char* rung;    // the ablation table's column: eager, aot_eager, decomp, inductor
  const char* runner;  // the runner that stops at this layer
  const char* layer;   // what a finding first seen here is attributed to
};
const std::vector<LadderRung>& layer_ladder(bool dynamic = false);

// Whether `test_runner`'s findings are attributed by the ladder (inductor,
// inductor-dynamic, aot-eager, in any environment).
bool ladder_applies(const std::string& test_runner);

// Sets layer (and, through a ladder, ablation) of every finding; the
// rungs below each ladder finding run once for all of them, in the test
// runner's environment. A ladder finding no rung below shows is its
// runner's own rung's (Inductor's). Other runners climb ladders of their own
// (aoti: export, export-decomp, inductor; ts-nnc: ts-noopt, ts-simple, ts; ...).
void attribute_layers(Executor& ex, const Program& p, std::vector<Finding>& findings);

}  // namespace dlfuzz
