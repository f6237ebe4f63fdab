// Simplify dtypes: f64/f16/bf16 inputs become f32, narrow integer inputs
// become i64, and dtype arguments (casts, `dtype=` of reductions) that name
// f64/f16/bf16 become f32. Every node's type is then re-inferred; a change
// the type rules reject leaves a stale type that verify() catches.
#include "generator/infer_types.h"
#include "reducers/pass.h"
#include "reducers/rewrite.h"

namespace dlfuzz::reduce {

namespace {
bool odd_float(DType t) { return t == DType::f64 || t == DType::f16 || t == DType::bf16; }
bool narrow_int(DType t) { return t == DType::i32 || t == DType::i16 || t == DType::i8; }
}  // namespace

void reduce_dtypes(Oracle& o, Program& p) {
  bool changed = false;
  for (const auto& in : p.inputs) {
    DType& t = p.values[in.value].type.dtype;
    if ((odd_float(t) || narrow_int(t)) && !o.shouldKeep()) {
      t = odd_float(t) ? DType::f32 : DType::i64;
      changed = true;
    }
  }
  for (Node* n : all_nodes(p.body))
    for (auto& a : n->args)
      if (auto* t = std::get_if<DType>(&a.value); t && odd_float(*t) && !o.shouldKeep()) {
        *t = DType::f32;
        changed = true;
      }
  if (changed) infer_types(p);
}

}  // namespace dlfuzz::reduce
