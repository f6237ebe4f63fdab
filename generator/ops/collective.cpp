#include "generator/ops/common.h"

namespace dlfuzz {
void register_ops_collective(std::vector<OpSpec>& ops) {}
}  // namespace dlfuzz
