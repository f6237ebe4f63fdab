#include "generator/gen_policy.h"

#include <fmt/format.h>

#include "generator/hash.h"

namespace dlfuzz {

uint64_t GenPolicy::hash() const {
  std::string s = fmt::format("{} {} {} {} {} {} {} {} {} {} {} {} {} {}", min_nodes, max_nodes, max_rank, max_dim,
                              p_zero_size_dim, p_zero_dim_tensor, p_training, max_train_steps, p_control_flow,
                              p_inplace, max_outputs, p_special_values, world, 0);
  if (device != "cpu") s += " device=" + device;  // cpu programs keep their old policy hash
  for (const auto& [t, w] : dtype_weights) s += fmt::format(" {}={}", dtype_name(t), w);
  for (const auto& [f, w] : family_weights) s += fmt::format(" {}={}", f, w);
  return fnv1a(s);
}

GenPolicy policy_for_world(int world) {
  GenPolicy p;
  p.world = world;
  if (world > 1) p.family_weights["collective"] = 6;
  return p;
}

}  // namespace dlfuzz
