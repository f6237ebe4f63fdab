// Drop program outputs. The nodes that only fed them become dead and go in the
// next round's fan-in cut or in the `nodes` pass.
#include "reducers/pass.h"

namespace dlfuzz::reduce {

void reduce_outputs(Oracle& o, Program& p) {
  std::vector<int> kept;
  for (int y : p.body.yields)
    if (o.shouldKeep()) kept.push_back(y);
  p.body.yields = std::move(kept);
}

}  // namespace dlfuzz::reduce
