#include "generator/value_range.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace dlfuzz {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();

Interval unknown() { return Interval{}; }

Interval of_arg(const Node& n, const std::vector<Interval>& ranges, const std::string& name, bool& ok) {
  const Arg* a = n.arg(name);
  ok = a != nullptr;
  if (!a) return unknown();
  if (auto* r = std::get_if<ValueRef>(&a->value)) return ranges.at(r->id);
  if (auto* d = std::get_if<double>(&a->value)) return {*d, *d};
  if (auto* i = std::get_if<int64_t>(&a->value)) return {double(*i), double(*i)};
  if (auto* l = std::get_if<ValueList>(&a->value)) {
    Interval u{kInf, -kInf};
    for (int id : l->ids) {
      u.lo = std::min(u.lo, ranges.at(id).lo);
      u.hi = std::max(u.hi, ranges.at(id).hi);
    }
    return u;
  }
  ok = false;
  return unknown();
}

double float_arg_or(const Node& n, const std::string& name, double dflt) {
  const Arg* a = n.arg(name);
  if (auto* d = a ? std::get_if<double>(&a->value) : nullptr) return *d;
  return dflt;
}

Interval hull(Interval a, Interval b) { return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)}; }
double mag(Interval a) { return std::max(std::fabs(a.lo), std::fabs(a.hi)); }
bool finite(Interval a) { return std::isfinite(a.lo) && std::isfinite(a.hi); }

// Ops whose outputs only hold values taken from their inputs.
const std::set<std::string> kSelecting = {"reshape",
                                          "view",
                                          "permute",
                                          "transpose",
                                          "expand",
                                          "slice",
                                          "select",
                                          "narrow",
                                          "cat",
                                          "stack",
                                          "split",
                                          "chunk",
                                          "squeeze",
                                          "unsqueeze",
                                          "flatten",
                                          "contiguous",
                                          "amax",
                                          "amin",
                                          "maximum",
                                          "minimum",
                                          "max_pool1d",
                                          "max_pool2d",
                                          "max_pool3d",
                                          "t",
                                          "unbind",
                                          "movedim",
                                          "clone",
                                          "flip",
                                          "roll",
                                          "where",
                                          "relu",
                                          "relu6",
                                          "hardtanh",
                                          "clamp",
                                          "mean",
                                          "avg_pool1d",
                                          "avg_pool2d",
                                          "avg_pool3d",
                                          "adaptive_avg_pool3d",
                                          "adaptive_avg_pool2d",
                                          "round",
                                          "floor",
                                          "ceil",
                                          "trunc",
                                          "repeat",
                                          "embedding",
                                          "diagonal",
                                          "index_select",
                                          "gather",
                                          "sort",
                                          "topk",
                                          "cummax",
                                          "cummin",
                                          "upsample_nearest1d",
                                          "upsample_nearest2d",
                                          "upsample_linear1d",  // convex combinations of neighbours
                                          "upsample_bilinear2d",
                                          "_upsample_nearest_exact1d",
                                          "_upsample_nearest_exact2d",
                                          "aminmax",
                                          "kthvalue",
                                          "median",
                                          "nanmedian",
                                          "mode",
                                          "take_along_dim",
                                          "masked_select",
                                          "index"};
}  // namespace

Interval estimate_range(const Program& p, const Node& n, const std::vector<Interval>& ranges, int) {
  const std::string& op = n.op;
  bool has_self = false, has_other = false;
  Interval self = of_arg(n, ranges, n.op == "cat" || n.op == "stack" ? "tensors" : "self", has_self);
  if (!has_self) self = of_arg(n, ranges, "input", has_self);
  Interval other = of_arg(n, ranges, "other", has_other);
  const std::string base = out_of_place_name(op);

  if (is_structural(n.op)) return unknown();
  if (kSelecting.count(base)) {
    Interval r = self;
    if (has_other) r = hull(r, other);
    // Zero-size reductions and padding can introduce 0 / -inf; widen a little.
    if (base == "relu" || base == "relu6") r = {std::max(0.0, r.lo), std::max(0.0, r.hi)};
    if (base == "relu6") r.hi = std::min(6.0, r.hi), r.lo = std::min(r.lo, 6.0);
    if (base == "round" || base == "floor" || base == "ceil") r = {std::floor(r.lo) - 1, std::ceil(r.hi) + 1};
    if (base == "clamp" || base == "hardtanh") {
      bool ok;
      Interval lo = of_arg(n, ranges, base == "clamp" ? "min" : "min_val", ok);
      if (ok && std::isfinite(lo.lo)) r.lo = std::max(r.lo, lo.lo), r.hi = std::max(r.hi, lo.lo);
      Interval hi = of_arg(n, ranges, base == "clamp" ? "max" : "max_val", ok);
      if (ok && std::isfinite(hi.hi)) r.hi = std::min(r.hi, hi.hi), r.lo = std::min(r.lo, hi.hi);
      if (base == "hardtanh" && !ok) r = {std::max(-1.0, std::min(r.lo, 1.0)), std::min(1.0, std::max(r.hi, -1.0))};
    }
    if (base == "where") {
      bool ok;
      r = hull(self, of_arg(n, ranges, "other", ok));
    }
    return r;
  }
  if (base == "setitem") {
    bool ok;
    return hull(self, of_arg(n, ranges, "values", ok));
  }
  if (base == "select_scatter" || base == "slice_scatter" || base == "diagonal_scatter") {
    bool ok;
    return hull(self, of_arg(n, ranges, "src", ok));
  }
  if (base == "dropout") {  // kept values scaled by 1 / (1 - p), the rest 0
    double p = float_arg_or(n, "p", 0.5);
    double scale = p < 1 ? 1 / (1 - p) : 0;
    return hull({0, 0}, {self.lo * scale, self.hi * scale});
  }
  // Factory ops: their fill, or arange's bounds.
  if (base == "zeros" || base == "zeros_like" || base == "new_zeros") return {0, 0};
  if (base == "ones" || base == "ones_like" || base == "new_ones") return {1, 1};
  if (base == "full" || base == "full_like" || base == "new_full") {
    bool ok;
    Interval f = of_arg(n, ranges, "fill_value", ok);
    return ok && finite(f) ? f : unknown();
  }
  if (base == "arange") {
    bool a, b;
    Interval lo = of_arg(n, ranges, "start", a), hi = of_arg(n, ranges, "end", b);
    return a && b ? hull(lo, hi) : unknown();
  }
  if (base == "sigmoid" || base == "hardsigmoid" || base == "softmax") return {0, 1};
  if (base == "tanh" || base == "sin" || base == "cos" || base == "erf" || base == "sign") return {-1, 1};
  if (base == "abs") return {0, mag(self)};
  if (base == "neg") return {-self.hi, -self.lo};
  if (base == "exp") return {0, std::exp(std::min(self.hi, 700.0))};
  if (base == "log_softmax") return {-kInf, 0};
  if (base == "add" || base == "sub") {
    if (!has_other) return unknown();
    if (base == "add") return {self.lo + other.lo, self.hi + other.hi};
    return {self.lo - other.hi, self.hi - other.lo};
  }
  if (base == "mul") {
    if (!has_other) return unknown();
    double m = mag(self) * mag(other);
    return {-m, m};
  }
  if (base == "gelu" || base == "silu" || base == "mish" || base == "elu" || base == "softplus" ||
      base == "leaky_relu" || base == "hardswish" || base == "celu" || base == "selu")
    return {std::min(-1.8, self.lo), std::max(0.0, self.hi) + (base == "softplus" ? 1 : 0)};
  if (base == "frac") return {-1, 1};
  if (base == "layer_norm" || base == "group_norm" || base == "batch_norm" || base == "instance_norm") {
    // Normalized values are bounded by sqrt(group size); affine params are small.
    return finite(self) ? Interval{-64, 64} : unknown();
  }
  if (base == "linear" || base == "matmul" || base == "mm" || base == "bmm" || base == "addmm" || base == "conv1d" ||
      base == "conv2d" || base == "conv_transpose1d" || base == "conv_transpose2d" || base == "sum") {
    // A sum of at most K products; K from the reduced extent, bounded crudely.
    if (!finite(self)) return unknown();
    double k = 1;
    for (const auto& a : n.args)
      if (auto* r = std::get_if<ValueRef>(&a.value)) k = std::max<double>(k, p.type(r->id).numel());
    double m = mag(self) * k;
    for (const auto& a : n.args)
      if (auto* r = std::get_if<ValueRef>(&a.value))
        if (&a != &n.args.front()) m *= std::max(1.0, mag(ranges.at(r->id)));
    return {-m, m};
  }
  if (base == "einsum") {
    // Each output sums at most the product of the operands' sizes of products.
    const Arg* a = n.arg("tensors");
    const auto* l = a ? std::get_if<ValueList>(&a->value) : nullptr;
    if (!l) return unknown();
    double m = 1;
    for (int id : l->ids) m *= mag(ranges.at(id)) * std::max<double>(1, p.type(id).numel());
    return std::isfinite(m) ? Interval{-m, m} : unknown();
  }
  return unknown();
}

}  // namespace dlfuzz
