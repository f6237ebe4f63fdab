// Drop parameters. Per param: merge it into another input of the same type
// (its uses read that input; the param goes), or make it a plain data input
// (no gradient, no optimizer state). Only inputs can stand in for a param:
// they are the only values visible at every use.
#include <map>

#include "reducers/pass.h"
#include "reducers/rewrite.h"

namespace dlfuzz::reduce {

void reduce_params(Oracle& o, Program& p) {
  std::map<int, int> to;
  std::vector<bool> gone(p.inputs.size(), false);
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    InputDecl& in = p.inputs[i];
    if (in.kind != InputKind::param) continue;
    bool keep_param = o.shouldKeep();
    bool keep_kind = o.shouldKeep();
    if (!keep_param) {
      for (size_t j = 0; j < p.inputs.size(); ++j) {
        if (j == i || gone[j] || p.type(p.inputs[j].value) != p.type(in.value)) continue;
        to[in.value] = p.inputs[j].value;
        gone[i] = true;
        break;
      }
    }
    if (!gone[i] && !keep_kind) in.kind = InputKind::data;
  }
  std::vector<InputDecl> kept;
  for (size_t i = 0; i < p.inputs.size(); ++i)
    if (!gone[i]) kept.push_back(p.inputs[i]);
  p.inputs = std::move(kept);
  substitute(p, to);
}

}  // namespace dlfuzz::reduce
