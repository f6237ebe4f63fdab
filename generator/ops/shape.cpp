#include "generator/ops/common.h"

namespace dlfuzz {
void register_ops_shape(std::vector<OpSpec>& ops) {}
}  // namespace dlfuzz
