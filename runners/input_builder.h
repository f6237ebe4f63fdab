// Deterministic program inputs. Values come from a Weyl sequence computed with
// float64 ATen ops, so the standalone Python repro rebuilds the same bits with
// the same formula (see generator/emit_python.cpp).
#pragma once
#include <ATen/ATen.h>

#include <vector>

#include "generator/program.h"

namespace dlfuzz {

// The tensor for inputs[index] of p. With `fp64`, float inputs become float64.
// An input sharded across `shards` ranks yields slice `shard` of the whole,
// or the whole tensor when shard is kWholeTensor (the one-process reference
// of a tensor-parallel plan).
// Built on the CPU with the same formula everywhere, then moved to the
// program's device.
constexpr int kWholeTensor = -1;
at::Tensor build_input(const Program& p, size_t index, bool fp64, int shard = 0, int shards = 1);
// The values a `special` input of floating dtype t mixes in (Init::special).
std::vector<double> special_values(DType t);
// The phase of an input's sequence: a small integer formula both sides share.
double input_phase(uint64_t seed, size_t index);

}  // namespace dlfuzz
