// Gradients that come from values the loss does not read. AOTAutograd gives
// every differentiable graph output a tangent, zeros where the loss does not
// read it (pytorch#131794, open), so a param whose value also reaches an
// unread output, or a value a graph break keeps alive for dead code, gets
// 0 * inf = NaN where eager's gradient has no such term. Campaigns found this
// one bug again and again, named after whatever op the param fed (conv2d,
// mm, ...). A PyTorch 2.x runner's numeric finding at a gradient or an updated
// param that goes away when the program is cut to what its loss reads is
// this family: its first op becomes kUnreadByTheLoss, so the store keeps it
// as one bug per runner pair and layer, apart from real backward bugs. So is
// an output finding after several steps whose one-step run differs only at a
// gradient or param (the NaN gradient updated the param the output reads).
#pragma once
#include <vector>

#include "generator/program.h"
#include "oracles/finding.h"
#include "runners/executor.h"

namespace dlfuzz {

inline constexpr const char* kUnreadByTheLoss = "(values the loss does not read)";

// `p` cut to what its loss reads: the loss is the only output and every node
// it does not need is gone. nullopt for inference programs, or when the cut
// changes nothing.
std::optional<Program> cut_to_the_loss(const Program& p);

// One extra run of the reference, its float64 twin and the test runner per
// such finding (training programs on one rank, Python runners); two for an
// output finding after several steps.
void explain_unread_values(Executor& ex, const Program& p, std::vector<Finding>& findings);

}  // namespace dlfuzz
