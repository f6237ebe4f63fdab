#include "runners/distributed/collectives.h"

#include <c10/core/InferenceMode.h>
#include <torch/library.h>

#include "runners/distributed/rank_context.h"

namespace dlfuzz {

namespace {
RankGroup* group() {
  RankContext* ctx = current_rank();
  return ctx ? ctx->group : nullptr;
}

// Gloo writes results from its own threads, where an inference tensor (what
// Static Runtime and frozen modules pass in) may not be updated: work on
// normal tensors.
struct NormalTensors {
  c10::InferenceMode off{false};
};
}  // namespace

at::Tensor all_reduce(const at::Tensor& x, const std::string& op) {
  NormalTensors normal;
  at::Tensor t = x.clone(at::MemoryFormat::Contiguous);
  if (RankGroup* g = group()) g->all_reduce(t, op);
  return t;
}

at::Tensor all_gather(const at::Tensor& x, int64_t dim) {
  NormalTensors normal;
  RankGroup* g = group();
  if (!g) return x.clone();
  return at::cat(g->all_gather(x.contiguous()), dim);
}

// Gloo has no reduce_scatter: reduce everything, keep this rank's chunk.
at::Tensor reduce_scatter(const at::Tensor& x, int64_t dim, const std::string& op) {
  NormalTensors normal;
  RankGroup* g = group();
  if (!g) return x.clone();
  at::Tensor t = all_reduce(x, op);
  return t.chunk(g->world(), dim).at(g->rank()).clone(at::MemoryFormat::Contiguous);
}

at::Tensor broadcast(const at::Tensor& x, int64_t src) {
  NormalTensors normal;
  at::Tensor t = x.clone(at::MemoryFormat::Contiguous);
  if (RankGroup* g = group()) g->broadcast(t, static_cast<int>(src));
  return t;
}

// Rank r sends its chunk j to rank j and receives chunk r of every rank, in
// rank order. Built from all_gather, which every backend has.
at::Tensor all_to_all(const at::Tensor& x, int64_t dim) {
  NormalTensors normal;
  RankGroup* g = group();
  if (!g) return x.clone();
  std::vector<at::Tensor> parts;
  for (const at::Tensor& from : g->all_gather(x.contiguous())) parts.push_back(from.chunk(g->world(), dim).at(g->rank()));
  return at::cat(parts, dim);
}

at::Tensor run_collective(const Node& n, const at::Tensor& x) {
  auto str = [&](const char* name) { return std::get<std::string>(n.arg(name)->value); };
  auto num = [&](const char* name) { return std::get<int64_t>(n.arg(name)->value); };
  if (n.op == "all_reduce") return all_reduce(x, str("op"));
  if (n.op == "all_gather") return all_gather(x, num("dim"));
  if (n.op == "reduce_scatter") return reduce_scatter(x, num("dim"), str("op"));
  if (n.op == "broadcast") return broadcast(x, num("src"));
  if (n.op == "all_to_all") return all_to_all(x, num("dim"));
  throw std::runtime_error("unknown collective " + n.op);
}

}  // namespace dlfuzz

// Schemas as in generator/ops/collective.cpp; opaque to the JIT's passes.
TORCH_LIBRARY(dlfuzz, m) {
  m.def("all_reduce(Tensor self, str op) -> Tensor", [](const at::Tensor& x, std::string op) {
    return dlfuzz::all_reduce(x, op);
  });
  m.def("all_gather(Tensor self, int dim) -> Tensor", [](const at::Tensor& x, int64_t dim) {
    return dlfuzz::all_gather(x, dim);
  });
  m.def("reduce_scatter(Tensor self, int dim, str op) -> Tensor", [](const at::Tensor& x, int64_t dim, std::string op) {
    return dlfuzz::reduce_scatter(x, dim, op);
  });
  m.def("broadcast(Tensor self, int src) -> Tensor", [](const at::Tensor& x, int64_t src) {
    return dlfuzz::broadcast(x, src);
  });
  m.def("all_to_all(Tensor self, int dim) -> Tensor", [](const at::Tensor& x, int64_t dim) {
    return dlfuzz::all_to_all(x, dim);
  });
}
