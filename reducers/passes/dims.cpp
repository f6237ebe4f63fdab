// Shrink shapes constructively: change input shapes, re-infer every node's
// types with its op's type rule, and let verify() reject what no longer fits
// (a reshape to a fixed shape, a dim argument out of range).
//
// Targets, biggest first: each size that occurs in the inputs, made 1
// everywhere at once (dims that must agree, as in bmm's inner dims, usually
// share a size, and one at a time they never fit); then per input, its
// leading dim dropped (rank - 1), and per dim larger than 1: made 1, or halved.
#include <functional>
#include <set>

#include "generator/infer_types.h"
#include "reducers/pass.h"
#include "reducers/rewrite.h"

namespace dlfuzz::reduce {

void reduce_dims(Oracle& o, Program& p) {
  std::set<int64_t, std::greater<int64_t>> sizes;
  for (const auto& in : p.inputs)
    for (int64_t d : p.type(in.value).shape)
      if (d > 1) sizes.insert(d);
  std::set<int64_t> to_one;
  for (int64_t s : sizes)
    if (!o.shouldKeep()) to_one.insert(s);

  bool changed = false;
  for (auto& in : p.inputs) {
    Shape& shape = p.values[in.value].type.shape;
    bool drop_leading = !shape.empty() && !o.shouldKeep();
    for (int64_t& d : shape) {
      if (d <= 1) continue;
      bool keep_size = o.shouldKeep();
      bool keep_half = d <= 2 || o.shouldKeep();  // halving 2 is making it 1
      if (to_one.count(d) || !keep_size || !keep_half) {
        d = keep_size && !to_one.count(d) ? d / 2 : 1;
        changed = true;
      }
    }
    if (drop_leading) {
      shape.erase(shape.begin());
      if (in.placement.shard_dim >= 0) in.placement.shard_dim -= 1;  // dim 0 itself: replicated
      changed = true;
    }
  }
  if (changed) infer_types(p);
}

}  // namespace dlfuzz::reduce
