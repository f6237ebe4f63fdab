#include "generator/ops/common.h"

namespace dlfuzz {
void register_ops_conv(std::vector<OpSpec>& ops) {}
}  // namespace dlfuzz
