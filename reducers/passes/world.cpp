// Shrink the world: one rank (no plan, every input replicated, tensor-parallel
// params whole), else half the ranks (shards even). A data-parallel program's
// shapes are per rank, so it stays valid at any world; explicit collectives
// are re-inferred and rejected by verify() where their shapes depended on the
// old world.
#include "generator/infer_types.h"
#include "reducers/pass.h"
#include "reducers/rewrite.h"

namespace dlfuzz::reduce {

void reduce_world(Oracle& o, Program& p) {
  if (p.plan.world <= 1) return;
  if (!o.shouldKeep()) {
    to_one_rank(p);
  } else if (p.plan.world >= 4 && !o.shouldKeep()) {
    change_world(p, p.plan.world / 2);
  } else {
    return;
  }
  infer_types(p);
}

}  // namespace dlfuzz::reduce
