// The programs' collective ops (all_reduce, all_gather, reduce_scatter,
// broadcast, all_to_all) and tensor parallelism's differentiable regions
// (tp_copy, tp_reduce, tp_gather; see generator/ops/tensor_parallel.cpp) on
// the calling thread's rank. With no rank context
// each is the identity, as at world 1. Also registered as TorchScript ops
// (torch.ops.dlfuzz.*) so compiled paths call the same code.
#pragma once
#include <ATen/ATen.h>

#include <string>

#include "generator/program.h"

namespace dlfuzz {

at::Tensor all_reduce(const at::Tensor& x, const std::string& op);
at::Tensor all_gather(const at::Tensor& x, int64_t dim);
at::Tensor reduce_scatter(const at::Tensor& x, int64_t dim, const std::string& op);
at::Tensor broadcast(const at::Tensor& x, int64_t src);
at::Tensor all_to_all(const at::Tensor& x, int64_t dim);
// Autograd functions: a collective one way, the identity or a slice the other.
at::Tensor tp_copy(const at::Tensor& x);
at::Tensor tp_reduce(const at::Tensor& x);
at::Tensor tp_gather(const at::Tensor& x, int64_t dim);

// Node n (a collective op) applied to x: what the eager runner calls.
at::Tensor run_collective(const Node& n, const at::Tensor& x);

}  // namespace dlfuzz
