// Replace inputs by simpler values: zeros, ones, uniform in [0, 1], uniform
// in [-1, 1], simplest first. Each input gets one target per simpler choice
// than the one it has, so the pass only moves down this order and rounds end.
// Integer inputs (indices, class labels) only try zeros and ones.
#include <algorithm>

#include "reducers/pass.h"

namespace dlfuzz::reduce {

namespace {
struct Simple {
  Init init;
  double lo, hi;
};
const Simple kSimple[] = {{Init::zeros, -1, 1}, {Init::ones, -1, 1}, {Init::uniform, 0, 1}, {Init::uniform, -1, 1}};

// Position of an input's init in kSimple, or past its end when none matches.
int rank_of(const InputDecl& in) {
  if (in.init == Init::zeros) return 0;
  if (in.init == Init::ones) return 1;
  if (in.init == Init::uniform && in.lo == 0 && in.hi == 1) return 2;
  if (in.init == Init::uniform && in.lo == -1 && in.hi == 1) return 3;
  return 4;
}
}  // namespace

void reduce_input_values(Oracle& o, Program& p) {
  for (auto& in : p.inputs) {
    int limit = is_float(p.type(in.value).dtype) ? 4 : 2;
    int choice = -1;
    for (int k = 0; k < std::min(rank_of(in), limit); ++k)
      if (!o.shouldKeep() && choice < 0) choice = k;
    if (choice >= 0) {
      in.init = kSimple[choice].init;
      in.lo = kSimple[choice].lo;
      in.hi = kSimple[choice].hi;
    }
  }
}

}  // namespace dlfuzz::reduce
