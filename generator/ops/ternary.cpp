#include "generator/ops/common.h"

namespace dlfuzz {
void register_ops_ternary(std::vector<OpSpec>& ops) {}
}  // namespace dlfuzz
