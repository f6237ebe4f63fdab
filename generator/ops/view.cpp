#include "generator/ops/common.h"

namespace dlfuzz {
void register_ops_view(std::vector<OpSpec>& ops) {}
}  // namespace dlfuzz
