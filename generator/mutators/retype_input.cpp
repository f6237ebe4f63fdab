#include "generator/infer_types.h"
#include "generator/mutators/mutators.h"

namespace dlfuzz {

namespace {

// The values an input of dtype t gets when generation makes one
// (GenContext::new_input), used when the dtype changes kind.
void default_values(InputDecl& in, DType t) {
  in.init = Init::uniform;
  if (is_float(t)) in.lo = -2, in.hi = 2;
  else if (is_bool(t)) in.lo = 0, in.hi = 2;
  else if (is_unsigned(t)) in.lo = 0, in.hi = 10;
  else in.lo = -5, in.hi = 6;
}

bool change_dtype(Program& p, InputDecl& in, Choices& c, const GenPolicy& policy) {
  DType old = p.type(in.value).dtype;
  std::vector<DType> options;
  for (const auto& [t, w] : policy.dtype_weights) {
    if (t == old || w <= 0) continue;
    // Params and everything a training program differentiates stay f32/f64.
    if ((in.kind == InputKind::param || p.is_training()) && is_float(old) && t != DType::f32 && t != DType::f64)
      continue;
    options.push_back(t);
  }
  if (options.empty()) return false;
  DType t = c.pick(options);
  p.values[in.value].type.dtype = t;
  bool same_kind = is_float(t) == is_float(old) && is_bool(t) == is_bool(old);
  if (!same_kind || is_unsigned(t) || is_unsigned(old)) default_values(in, t);
  return true;
}

bool change_shape(Program& p, InputDecl& in, Choices& c, const GenPolicy& policy) {
  Shape& s = p.values[in.value].type.shape;
  int rank = static_cast<int>(s.size());
  if (rank > 0 && c.coin(0.75)) {
    size_t d = c.below(rank);
    int64_t old = s[d];
    s[d] = c.range(1, policy.max_dim);
    if (s[d] == old) s[d] = old + 1;
    if (in.placement.shard_dim == static_cast<int>(d)) in.placement.whole = 0;  // shards even again
  } else if (rank < policy.max_rank && (rank == 0 || c.coin(0.5))) {
    s.insert(s.begin(), c.range(1, policy.max_dim));  // a leading (batch-like) dim
    if (in.placement.shard_dim >= 0) in.placement.shard_dim++;
  } else if (rank > 0) {
    if (in.placement.shard_dim == 0) return false;
    s.erase(s.begin());
    if (in.placement.shard_dim > 0) in.placement.shard_dim--;
  } else {
    return false;
  }
  // Layouts only some ranks have (GenContext::add_input).
  int r = static_cast<int>(s.size());
  if ((in.layout == Layout::channels_last && r != 4) || (in.layout == Layout::strided && r < 2))
    in.layout = Layout::contiguous;
  return true;
}

}  // namespace

bool retype_input_mutator(Program& p, Choices& c, const GenPolicy& policy) {
  // Targets follow what the loss compares them with: not changed alone.
  std::vector<size_t> candidates;
  for (size_t i = 0; i < p.inputs.size(); ++i)
    if (p.inputs[i].kind != InputKind::target) candidates.push_back(i);
  if (candidates.empty()) return false;
  InputDecl& in = p.inputs[c.pick(candidates)];
  bool changed = c.coin(0.6) ? change_shape(p, in, c, policy) : change_dtype(p, in, c, policy);
  return changed && infer_types(p).empty();
}

}  // namespace dlfuzz
