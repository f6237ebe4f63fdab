#include "generator/ops/common.h"

namespace dlfuzz {
void register_ops_cast(std::vector<OpSpec>& ops) {}
}  // namespace dlfuzz
