// The ops the value/ops widening (issue 19) added, and a policy that favours
// their families: shared by the generator tests and the eager runs over them.
#pragma once
#include <string>
#include <vector>

#include "generator/gen_policy.h"

namespace dlfuzz::test {

inline const std::vector<std::string> kNewOps = {
    "zeros_like",     "ones_like",  "full_like",   "new_zeros",    "new_ones",     "new_full",   "zeros",
    "ones",           "full",       "arange",      "index_select", "gather",       "scatter",    "scatter_add",
    "scatter_reduce", "index_add",  "index_copy",  "index_fill",   "masked_fill",  "index_put",  "scatter_",
    "scatter_add_",   "index_add_", "index_copy_", "index_fill_",  "masked_fill_", "index_put_", "sort",
    "topk",           "cummax",     "cummin",      "cumprod",      "pad",          "tril",       "triu",
    "floor_divide",   "fill_",      "copy_"};

// The new families weigh 8, every other family 1 (collectives 0).
inline GenPolicy new_ops_policy() {
  GenPolicy policy;
  for (auto& [family, w] : policy.family_weights) w = 1;
  policy.family_weights["collective"] = 0;
  for (const char* f : {"factory", "index", "scan", "pad", "binary", "inplace"}) policy.family_weights[f] = 8;
  return policy;
}

// Issue 19's second part, what the generator can express: transposed convs,
// instance_norm, einsum and resizing (F.interpolate); and QAT's fake quantization.
inline const std::vector<std::string> kExpressiveOps = {
    "conv_transpose1d",   "conv_transpose2d",   "instance_norm",     "einsum",
    "upsample_nearest1d", "upsample_nearest2d", "upsample_linear1d", "upsample_bilinear2d",
    "fake_quantize_per_tensor_affine"};

// Their families weigh 8, every other family 1 (collectives 0).
inline GenPolicy expressive_ops_policy() {
  GenPolicy policy;
  for (auto& [family, w] : policy.family_weights) w = 1;
  policy.family_weights["collective"] = 0;
  for (const char* f : {"conv", "norm", "einsum", "upsample", "quantize"}) policy.family_weights[f] = 8;
  return policy;
}

// Issue 19's third part: data-dependent sizes (nonzero, masked_select, x[mask]
// and argsort, which makes their masks), Python's subscript (x[i], x[i] = v),
// the _foreach_* ops, dropout, and view(dtype) (torch2 programs only, with
// _foreach_lerp).
inline const std::vector<std::string> kDataOps = {
    "argsort",     "nonzero",      "masked_select", "index",           "setitem",        "_foreach_add",
    "_foreach_sub", "_foreach_mul", "_foreach_div",  "_foreach_maximum", "_foreach_abs",   "_foreach_neg",
    "_foreach_exp", "_foreach_sqrt", "_foreach_sigmoid", "_foreach_addcmul", "dropout"};
inline const std::vector<std::string> kTorch2DataOps = {"view_dtype", "_foreach_lerp"};

// Their families weigh 8, every other family 1 (collectives 0).
inline GenPolicy data_ops_policy(Target target = Target::torch113) {
  GenPolicy policy;
  policy.target = target;
  for (auto& [family, w] : policy.family_weights) w = 1;
  policy.family_weights["collective"] = 0;
  for (const char* f : {"dynamic", "subscript", "foreach", "random", "bitcast", "inplace"})
    policy.family_weights[f] = 8;
  return policy;
}

// Math and layout ops with code of their own in Inductor's C++ (special
// functions, NaN-aware and integer ops, scans, windows, shuffles).
inline const std::vector<std::string> kMathOps = {
    "sinh",        "cosh",       "asinh",         "atan",        "asin",          "acos",
    "atanh",       "erfinv",     "exp2",          "log2",        "log10",         "erfc",
    "lgamma",      "digamma",    "i0",            "sinc",        "logit",         "nan_to_num",
    "bitwise_not", "hypot",      "logaddexp2",    "fmax",        "fmin",          "copysign",
    "xlogy",       "bitwise_and", "bitwise_or",   "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift",
    "gcd",         "lcm",        "nansum",        "nanmean",     "logcumsumexp",  "diff",
    "repeat_interleave", "rot90", "pixel_shuffle", "pixel_unshuffle", "unfold"};

// Most ops drawn from kMathOps (every other family 1, collectives 0).
inline GenPolicy math_ops_policy() {
  GenPolicy policy;
  policy.family_weights["collective"] = 0;
  policy.focus_ops = kMathOps;
  return policy;
}

// Losses, norms and distances with decompositions of their own in PyTorch 2.x
// (kl_div, the BCEs, huber, margins, var_mean, vector_norm, cdist, ...), glu,
// prelu, threshold, float_power, nextafter, heaviside and more resizing modes.
inline const std::vector<std::string> kLossNormOps = {
    "huber_loss",         "soft_margin_loss",   "kl_div",
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "hinge_embedding_loss",
    "margin_ranking_loss", "var_mean",          "std_mean",
    "aminmax",            "linalg_vector_norm", "count_nonzero",
    "float_power",        "nextafter",          "heaviside",
    "threshold",          "glu",                "prelu",
    "cosine_similarity",  "pairwise_distance",  "cdist",
    "dist",               "outer",              "trace",
    "upsample_bicubic2d", "_upsample_nearest_exact1d", "_upsample_nearest_exact2d"};

// Most ops drawn from kLossNormOps (every other family 1, collectives 0).
inline GenPolicy loss_norm_ops_policy() {
  GenPolicy policy;
  policy.family_weights["collective"] = 0;
  policy.focus_ops = kLossNormOps;
  return policy;
}

// torch.special's functions, selections (kthvalue, median, mode, searchsorted,
// bucketize), gathers and slice writes (take_along_dim, select/slice/diagonal
// scatter), 3-d pools and grid sampling: code of their own in Inductor.
inline const std::vector<std::string> kSelectSampleOps = {
    "special_ndtri",          "special_log_ndtr",        "special_ndtr",
    "special_erfcx",          "special_i0e",             "special_i1",
    "special_i1e",            "special_entr",            "special_bessel_j0",
    "special_bessel_j1",      "special_modified_bessel_i0", "special_modified_bessel_i1",
    "special_spherical_bessel_j0", "special_airy_ai",    "special_modified_bessel_k0",
    "special_modified_bessel_k1", "special_scaled_modified_bessel_k0", "special_scaled_modified_bessel_k1",
    "sgn",                    "signbit",                 "kthvalue",
    "median",                 "nanmedian",               "mode",
    "searchsorted",           "bucketize",               "take_along_dim",
    "select_scatter",         "slice_scatter",           "diagonal_scatter",
    "max_pool3d",             "avg_pool3d",              "adaptive_avg_pool3d",
    "grid_sampler",           "affine_grid_generator"};

// Most ops drawn from kSelectSampleOps (every other family 1, collectives 0).
inline GenPolicy select_sample_ops_policy() {
  GenPolicy policy;
  policy.family_weights["collective"] = 0;
  policy.focus_ops = kSelectSampleOps;
  return policy;
}

// torch2 programs made mostly of uint16/32/64 tensors (PyTorch 2.x's barebones
// unsigned types): every other dtype weighs 1, each wide unsigned one 30.
inline GenPolicy wide_unsigned_policy() {
  GenPolicy policy;
  policy.target = Target::torch2;
  policy.family_weights["collective"] = 0;
  for (auto& [t, w] : policy.dtype_weights) w = is_wide_unsigned(t) ? 30 : 1;
  return policy;
}

}  // namespace dlfuzz::test
