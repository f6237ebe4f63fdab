#include "generator/ops/common.h"

namespace dlfuzz {
void register_ops_reduce(std::vector<OpSpec>& ops) {}
}  // namespace dlfuzz
