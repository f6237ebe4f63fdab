// Building blocks shared by the op family files: parameter shorthands, common
// type rules and common generate functions.
#pragma once
#include "generator/gen_context.h"
#include "generator/op_spec.h"

namespace dlfuzz::ops {

using namespace infer_util;

// A positional tensor parameter, and a named attribute.
inline ParamSpec T(const std::string& name) { return {name, ParamKind::tensor, false, true}; }
inline ParamSpec TorN(const std::string& name) { return {name, ParamKind::tensor_or_number, false, true}; }
inline ParamSpec A(const std::string& name, ParamKind k, bool optional = false) { return {name, k, optional, false}; }

// Kernel sizes, strides, paddings, dilations and groups of convolutions and
// pools are at most this: with dims of at most 2^40 elements, their output
// size arithmetic then stays inside int64 (found by fuzz-dlf).
constexpr int64_t kMaxWindow = int64_t{1} << 20;

// Predicates for operand choice.
inline bool any_float(const TensorType& t) { return is_float(t.dtype); }
// Whether op s takes dtype t in a program for `target` (1.13 lacks int16 and,
// where !s.half_ok, CPU half kernels).
bool dtype_allowed(const OpSpec& s, DType t, Target target);

// --- type rules ---
// self's type, present and of a dtype the op allows; "" or the error.
std::string get_self(const Program& p, const Node& n, const TensorType*& self);
// A required int argument; false when missing or not an int.
bool get_int(const Node& n, const std::string& name, int64_t& v);

// Output = self's type; rejects dtypes the spec does not allow.
std::string infer_same(const Program& p, const Node& n, std::vector<TensorType>& out);
// Integer/bool inputs become the default float (sin, exp, sqrt, ...).
std::string infer_float(const Program& p, const Node& n, std::vector<TensorType>& out);
// Broadcast self and other (tensor or number) with type promotion.
std::string infer_binary(const Program& p, const Node& n, std::vector<TensorType>& out);
// As infer_binary but integer results become the default float (true division).
std::string infer_binary_float(const Program& p, const Node& n, std::vector<TensorType>& out);
// In-place form: the result must keep self's shape and castable dtype.
std::string infer_binary_inplace(const Program& p, const Node& n, std::vector<TensorType>& out);

// at::infer_size: `size` may hold one -1; the product must match numel.
std::string infer_size(int64_t numel, const IntList& size, Shape& out);

// A float-only op (no CPU half kernels in LibTorch 1.13) of `family`, spelled
// `python`: the spec the linalg, distance, loss and grid-sampling families share.
OpSpec float_op(const std::string& name, const std::string& family, const std::string& python,
                std::vector<ParamSpec> params, InferFn infer, GenFn gen);

// --- generate functions ---
// A visible operand of rank >= min_rank the spec allows, else a fresh input
// (none inside a block, where the focus must be used).
std::optional<int> operand(GenContext& g, const OpSpec& s, int min_rank);
// One tensor operand allowed by the spec, guarded for its domain.
bool gen_unary(GenContext& g, const OpSpec& s, Node& n);
// self plus a broadcastable tensor or a Python number `other`.
bool gen_binary(GenContext& g, const OpSpec& s, Node& n);

// A tensor whose shape broadcasts against `shape` (same, trailing suffix, or 1s).
TensorType broadcastable_type(GenContext& g, const Shape& shape, DType dtype);
// A Python number of the kind that fits a tensor of `t`; by the policy's value
// mix sometimes a special or a written one (below).
ArgValue random_number(GenContext& g, DType t, double lo, double hi);
// NaN, +-Inf, -0.0, 0.0, a denormal or a limit of t (of f32 for integer t).
ArgValue special_number(GenContext& g, DType t);
// A small integer in [lo, hi], or for float t also one with one decimal digit.
ArgValue written_number(GenContext& g, DType t, double lo, double hi);
// A dim in [-rank, rank) (rank 0 gives 0 or -1).
int64_t random_dim_index(GenContext& g, int rank);
// A bool mask of `shape` with exactly k trues in every row of its last dim,
// at positions the program's data decides (dynamic.cpp); `count` is
// its number of trues in all.
int counted_mask(GenContext& g, const Shape& shape, int64_t& count);

}  // namespace dlfuzz::ops
