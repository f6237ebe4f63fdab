#include "generator/ops/common.h"

namespace dlfuzz {
void register_ops_pool(std::vector<OpSpec>& ops) {}
}  // namespace dlfuzz
