// Whether a program can run under torch.func.vmap with its data inputs
// batched and its params shared (the vmap and inductor-vmap runners), or its
// jvp over a batch of tangents (jacfwd): which values are batched, and the
// uses vmap refuses by design.
#pragma once
#include <string>

#include "generator/program.h"

namespace dlfuzz {

// Empty if the program can be vmapped, else why not: a training program or
// one over ranks, under autocast (a known gap, pytorch#192617), a channels_last
// memory_format of a batched value, a higher-order op (torch.cond, scan, while_loop,
// flex_attention), a random op that draws, an op over tensor lists
// (_foreach_*), a Python `if` on a batched value, a batched boolean mask in a
// subscript, a data-dependent size or a Python number (`.item()`) of a
// batched value, or
// an in-place op that writes a batched value into an unbatched tensor
// ("vmap: inplace arithmetic ... is not possible"). These are vmap's stated
// limits; a program inside them that vmap fails on, or computes otherwise
// than eager, is a finding.
std::string why_not_vmappable(const Program& p);

// The same for jvp under vmap over a batch of tangents, as torch.func.jacfwd
// computes (the jacfwd runner): every float value that depends on a float
// input has a batched tangent, the primals are not batched. Empty if inside
// vmap's stated limits, else why not: training, ranks, autocast, a
// higher-order op, a channels_last memory_format or an in-place write into a
// tensor without a tangent, of a value with one.
std::string why_not_vmappable_tangents(const Program& p);

}  // namespace dlfuzz
