// Drop inputs nothing reads (left behind by removed nodes and a dropped
// training step). Not done silently by tidy(): an input's values depend on its
// position in the list, so dropping one changes the values of those after it,
// and the interestingness test has to agree.
#include "reducers/pass.h"
#include "reducers/rewrite.h"

namespace dlfuzz::reduce {

void reduce_inputs(Oracle& o, Program& p) {
  std::vector<InputDecl> kept;
  for (const auto& in : p.inputs)
    if (is_used(p, in.value) || o.shouldKeep()) kept.push_back(in);
  p.inputs = std::move(kept);
}

}  // namespace dlfuzz::reduce
