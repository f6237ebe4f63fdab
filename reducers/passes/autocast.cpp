// Run the program without autocast, where the bug does not need it: every
// node's type is then re-inferred (a type the rules now give otherwise, such
// as a matmul's bf16 becoming f32, follows through the program).
#include "generator/infer_types.h"
#include "reducers/pass.h"

namespace dlfuzz::reduce {

void reduce_autocast(Oracle& o, Program& p) {
  if (!p.autocast || o.shouldKeep()) return;
  p.autocast.reset();
  infer_types(p);
}

}  // namespace dlfuzz::reduce
