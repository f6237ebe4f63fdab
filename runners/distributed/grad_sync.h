// What a data-parallel plan does between backward and the next forward, on
// each rank: DDP all-reduces every gradient and averages it; ZeRO
// reduce-scatters the gradients, updates only this rank's slice of every
// parameter with its own optimizer state, and all-gathers the parameters.
// The one-process reference runs the shards as micro-batches and averages the
// accumulated gradients instead (program_driver.cpp).
#pragma once
#include <ATen/ATen.h>

#include <string>
#include <vector>

#include "generator/program.h"
#include "runners/distributed/rank_context.h"

namespace dlfuzz {

// Averages the gradients across ranks (ZeRO keeps every rank's averaged
// gradient too: Gloo has no reduce-scatter, and the slices are read from it).
// An undefined gradient takes part as zeros. Applies ctx.fault.
void sync_gradients(RankContext& ctx, std::vector<at::Tensor>& params);

// ZeRO's optimizer step: this rank's slices only, then all-gather.
void zero_optimizer_step(RankContext& ctx, std::vector<at::Tensor>& params, const TrainStep& s);

// A digest of the parameters' bytes: ranks whose replicas agree bitwise have
// the same one.
std::string param_digest(const std::vector<at::Tensor>& params);

}  // namespace dlfuzz
