#include "generator/ops/common.h"

namespace dlfuzz {
void register_ops_norm(std::vector<OpSpec>& ops) {}
}  // namespace dlfuzz
