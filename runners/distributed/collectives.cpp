#include "runners/distributed/collectives.h"

#include <c10/core/InferenceMode.h>
#include <torch/csrc/autograd/custom_function.h>
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
  for (const at::Tensor& from : g->all_gather(x.contiguous()))
    parts.push_back(from.chunk(g->world(), dim).at(g->rank()));
  return at::cat(parts, dim);
}

namespace {
using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// Megatron's copy_to_tensor_model_parallel_region: every rank's replica of x
// feeds this rank's slice of a column-parallel layer, so x's gradient is the
// sum of the ranks' gradients.
struct TpCopy : torch::autograd::Function<TpCopy> {
  static at::Tensor forward(AutogradContext*, const at::Tensor& x) { return x.clone(); }
  static variable_list backward(AutogradContext*, variable_list g) { return {all_reduce(g.at(0), "sum")}; }
};

// reduce_from_tensor_model_parallel_region: the row-parallel layer's partial
// sums added up; the result is replicated, and so is its gradient.
struct TpReduce : torch::autograd::Function<TpReduce> {
  static at::Tensor forward(AutogradContext*, const at::Tensor& x) { return all_reduce(x, "sum"); }
  static variable_list backward(AutogradContext*, variable_list g) { return {g.at(0)}; }
};

// gather_from_tensor_model_parallel_region: every rank's slice of the
// features put together; the gradient of this rank's slice is its chunk.
struct TpGather : torch::autograd::Function<TpGather> {
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& x, int64_t dim) {
    ctx->saved_data["dim"] = dim;
    return all_gather(x, dim);
  }
  static variable_list backward(AutogradContext* ctx, variable_list g) {
    int64_t dim = ctx->saved_data["dim"].toInt();
    at::Tensor grad = g.at(0);
    if (RankGroup* gr = group()) grad = grad.chunk(gr->world(), dim).at(gr->rank()).contiguous();
    return {grad, at::Tensor()};
  }
};
}  // namespace

at::Tensor tp_copy(const at::Tensor& x) { return TpCopy::apply(x); }
at::Tensor tp_reduce(const at::Tensor& x) { return TpReduce::apply(x); }
at::Tensor tp_gather(const at::Tensor& x, int64_t dim) { return TpGather::apply(x, dim); }

at::Tensor run_collective(const Node& n, const at::Tensor& x) {
  auto str = [&](const char* name) { return std::get<std::string>(n.arg(name)->value); };
  auto num = [&](const char* name) { return std::get<int64_t>(n.arg(name)->value); };
  if (n.op == "all_reduce") return all_reduce(x, str("op"));
  if (n.op == "all_gather") return all_gather(x, num("dim"));
  if (n.op == "reduce_scatter") return reduce_scatter(x, num("dim"), str("op"));
  if (n.op == "broadcast") return broadcast(x, num("src"));
  if (n.op == "all_to_all") return all_to_all(x, num("dim"));
  if (n.op == "tp_copy") return tp_copy(x);
  if (n.op == "tp_reduce") return tp_reduce(x);
  if (n.op == "tp_gather") return tp_gather(x, num("dim"));
  throw std::runtime_error("unknown collective " + n.op);
}

}  // namespace dlfuzz

// Schemas as in generator/ops/collective.cpp; opaque to the JIT's passes.
TORCH_LIBRARY(dlfuzz, m) {
  m.def("all_reduce(Tensor self, str op) -> Tensor",
        [](const at::Tensor& x, std::string op) { return dlfuzz::all_reduce(x, op); });
  m.def("all_gather(Tensor self, int dim) -> Tensor",
        [](const at::Tensor& x, int64_t dim) { return dlfuzz::all_gather(x, dim); });
  m.def("reduce_scatter(Tensor self, int dim, str op) -> Tensor",
        [](const at::Tensor& x, int64_t dim, std::string op) { return dlfuzz::reduce_scatter(x, dim, op); });
  m.def("broadcast(Tensor self, int src) -> Tensor",
        [](const at::Tensor& x, int64_t src) { return dlfuzz::broadcast(x, src); });
  m.def("all_to_all(Tensor self, int dim) -> Tensor",
        [](const at::Tensor& x, int64_t dim) { return dlfuzz::all_to_all(x, dim); });
  // Catch-all kernels count as CompositeImplicitAutograd: autograd records the
  // functions' own backward, which TorchScript's autodiff leaves alone.
  m.def("tp_copy(Tensor self) -> Tensor", [](const at::Tensor& x) { return dlfuzz::tp_copy(x); });
  m.def("tp_reduce(Tensor self) -> Tensor", [](const at::Tensor& x) { return dlfuzz::tp_reduce(x); });
  m.def("tp_gather(Tensor self, int dim) -> Tensor",
        [](const at::Tensor& x, int64_t dim) { return dlfuzz::tp_gather(x, dim); });
}
