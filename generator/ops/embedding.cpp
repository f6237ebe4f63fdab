#include "generator/ops/common.h"

namespace dlfuzz {
void register_ops_embedding(std::vector<OpSpec>& ops) {}
}  // namespace dlfuzz
