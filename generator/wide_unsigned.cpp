#include "generator/wide_unsigned.h"

#include <set>

namespace dlfuzz {

namespace {

// The ops whose CPU kernels in torch 2.15 take uint16, uint32 and uint64 (measured
// with scripts/probe_wide_unsigned.py; rerun it for another PyTorch). Left out
// because eager has no kernel: add/sub and everything built on add (diff,
// addcmul, lerp, index_add's alpha), comparisons other than eq/ne, abs/neg/sign,
// max/min/argmax reductions, mean/var, softmax, tril/triu, masked_fill,
// index_put/setitem, index_copy/index_fill, topk, cummax/cummin, matmuls and pools.
const std::set<std::string>& wide_unsigned_ops() {
  static const std::set<std::string> ops = {
      // elementwise; the float functions compute in the default float dtype
      "exp", "expm1", "log", "log1p", "sqrt", "rsqrt", "sin", "cos", "tanh", "sigmoid", "erf", "reciprocal", "floor",
      "ceil", "round", "trunc", "relu", "relu6", "hardtanh", "clamp", "clamp_", "relu_", "mul", "mul_", "div",
      "maximum", "minimum", "atan2", "eq", "ne", "isnan", "isfinite", "where", "to", "type_as",
      // reductions and scans (sum, prod, cumsum and cumprod of an integer give int64)
      "sum", "prod", "cumsum", "cumprod", "sort", "argsort",
      // layout and views
      "reshape", "flatten", "contiguous", "clone", "cat", "stack", "split", "chunk", "repeat", "flip", "roll", "view",
      "permute", "transpose", "t", "slice", "select", "narrow", "squeeze", "unsqueeze", "expand", "diagonal", "unbind",
      "movedim", "view_dtype", "pad", "index",
      // factories
      "zeros_like", "ones_like", "full_like", "new_zeros", "new_ones", "new_full", "zeros", "ones", "full",
      "empty_like", "new_empty", "fill_", "copy_",
      // indexing and scatter
      "index_select", "gather", "scatter", "scatter_", "scatter_add", "scatter_add_", "index_add", "index_add_",
      "scatter_reduce", "embedding",
      // multi-tensor
      "_foreach_mul", "_foreach_div", "_foreach_maximum", "_foreach_exp", "_foreach_sqrt", "_foreach_sigmoid",
  };
  return ops;
}

// Ops on the list whose kernels take the types only with some arguments.
std::string check_arguments(const Program& p, const Node& n) {
  using infer_util::str_arg;
  if (n.op == "div" && !str_arg(n, "rounding_mode", "").empty()) return "div with a rounding mode";
  if (n.op == "index_add" || n.op == "index_add_") {
    if (n.arg("alpha")) return n.op + " with alpha";
    // The 1-d kernel (one element per index) is another one, without them.
    const TensorType* self = infer_util::tensor_arg(p, n, "self");
    if (self && self->rank() < 2) return n.op + " of a 0-d or 1-d tensor";
  }
  if (n.op == "scatter_reduce") {
    std::string r = str_arg(n, "reduce", "");
    if (r != "sum" && r != "prod") return "scatter_reduce with reduce=" + r;
    if (!infer_util::bool_arg(n, "include_self", true)) return "scatter_reduce with include_self=False";
  }
  return "";
}

bool touches_wide_unsigned(const Program& p, const Node& n, const std::vector<TensorType>& out) {
  for (const auto& t : out)
    if (is_wide_unsigned(t.dtype)) return true;
  for (const auto& a : n.args) {
    // .item() of any of them is a plain Python int.
    if (auto* r = std::get_if<ValueRef>(&a.value); r && !r->item && is_wide_unsigned(p.type(r->id).dtype))
      return true;
    if (auto* l = std::get_if<ValueList>(&a.value))
      for (int id : l->ids)
        if (is_wide_unsigned(p.type(id).dtype)) return true;
    if (auto* d = std::get_if<DType>(&a.value); d && is_wide_unsigned(*d)) return true;
  }
  return false;
}

}  // namespace

bool takes_wide_unsigned(const OpSpec& s) { return wide_unsigned_ops().count(s.name) > 0; }

std::string check_wide_unsigned(const OpSpec& s, const Program& p, const Node& n, const std::vector<TensorType>& out) {
  if (!touches_wide_unsigned(p, n, out)) return "";
  if (p.target != Target::torch2) return "uint16/32/64 need target=torch2 (PyTorch 1.13 has no such types)";
  if (!takes_wide_unsigned(s)) return n.op + " has no uint16/32/64 kernels";
  if (auto why = check_arguments(p, n); !why.empty()) return why + " has no uint16/32/64 kernels";
  return "";
}

}  // namespace dlfuzz
