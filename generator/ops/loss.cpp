#include "generator/ops/common.h"

namespace dlfuzz {
void register_ops_loss(std::vector<OpSpec>& ops) {}
}  // namespace dlfuzz
