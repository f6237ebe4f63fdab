#include "generator/ops/common.h"

namespace dlfuzz {
void register_ops_linalg(std::vector<OpSpec>& ops) {}
}  // namespace dlfuzz
