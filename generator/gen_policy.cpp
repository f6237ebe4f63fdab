#include "generator/gen_policy.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "generator/hash.h"
#include "generator/op_spec.h"
#include "generator/templates.h"

namespace dlfuzz {

uint64_t GenPolicy::hash() const {
  std::string s = fmt::format("{} {} {} {} {} {} {} {} {} {} {} {} {} {}", min_nodes, max_nodes, max_rank, max_dim,
                              p_zero_size_dim, p_zero_dim_tensor, p_training, max_train_steps, p_control_flow,
                              p_inplace, max_outputs, p_special_values, world, 0);
  if (device != "cpu") s += " device=" + device;  // cpu programs keep their old policy hash
  if (target != Target::torch113)
    s += fmt::format(" target={} autocast={} checkpoint={} hop={}", target_name(target), p_autocast, p_checkpoint,
                     p_hop);
  if (target != Target::torch113 && p_while_loop != 0.5) s += fmt::format(" while={}", p_while_loop);
  if (target != Target::torch113 && p_region != 0.5) s += fmt::format(" region={}", p_region);
  s += fmt::format(" written={} template={} item={}", p_written_values, p_template, p_item);
  for (const auto& [t, w] : dtype_weights) s += fmt::format(" {}={}", dtype_name(t), w);
  for (const auto& [f, w] : family_weights) s += fmt::format(" {}={}", f, w);
  for (const auto& op : focus_ops) s += " focus=" + op;
  for (const auto& op : exclude_ops) s += " exclude=" + op;
  for (const auto& name : templates) s += " block=" + name;
  return fnv1a(s);
}

GenPolicy policy_for_world(int world, GenPolicy base) {
  base.world = world;
  // As often as before the factory, index, scan and pad families came (a share of the weight).
  if (world > 1 && base.family_weights["collective"] == 0) base.family_weights["collective"] = 7;
  return base;
}

namespace {
// One table of the scalar knobs: the JSON key and the field.
template <class F>
void for_each_knob(GenPolicy& p, F&& f) {
  f("min_nodes", p.min_nodes);
  f("max_nodes", p.max_nodes);
  f("max_rank", p.max_rank);
  f("max_dim", p.max_dim);
  f("p_zero_size_dim", p.p_zero_size_dim);
  f("p_zero_dim_tensor", p.p_zero_dim_tensor);
  f("p_training", p.p_training);
  f("max_train_steps", p.max_train_steps);
  f("p_control_flow", p.p_control_flow);
  f("p_inplace", p.p_inplace);
  f("p_template", p.p_template);
  f("max_outputs", p.max_outputs);
  f("p_special_values", p.p_special_values);
  f("p_written_values", p.p_written_values);
  f("p_item", p.p_item);
  f("p_autocast", p.p_autocast);
  f("p_checkpoint", p.p_checkpoint);
  f("p_hop", p.p_hop);
  f("p_while_loop", p.p_while_loop);
  f("p_region", p.p_region);
  f("world", p.world);
  f("device", p.device);
  f("focus_ops", p.focus_ops);
  f("exclude_ops", p.exclude_ops);
  f("templates", p.templates);
}
}  // namespace

std::string check_policy_ops(const GenPolicy& policy) {
  for (const auto* list : {&policy.focus_ops, &policy.exclude_ops})
    for (const auto& op : *list)
      if (!find_op(op)) return "unknown op '" + op + "'";
  const auto& names = template_names();
  for (const auto& name : policy.templates)
    if (std::find(names.begin(), names.end(), name) == names.end())
      return "unknown template '" + name + "' (" + fmt::format("{}", fmt::join(names, ", ")) + ")";
  return "";
}

std::string policy_from_json(const std::string& text, GenPolicy& policy) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return "a policy must be a JSON object";
  GenPolicy p = policy;
  try {
    for (const auto& item : j.items()) {
      // Named, not structured bindings: a lambda below captures them (C++17).
      const std::string& key = item.key();
      const nlohmann::json& value = item.value();
      bool known = false;
      for_each_knob(p, [&](const char* name, auto& field) {
        if (key != name) return;
        known = true;
        field = value.get<std::decay_t<decltype(field)>>();
      });
      if (key == "dtype_weights") {
        known = true;
        for (const auto& [name, w] : value.items()) {
          auto t = dtype_from_name(name);
          if (!t) return "unknown dtype '" + name + "' in dtype_weights";
          p.dtype_weights[*t] = w.get<double>();
        }
      }
      if (key == "target") {
        known = true;
        std::string name = value.get<std::string>();
        if (name != target_name(Target::torch113) && name != target_name(Target::torch2))
          return "unknown target '" + name + "' (torch1.13 or torch2)";
        p.target = name == target_name(Target::torch2) ? Target::torch2 : Target::torch113;
      }
      if (key == "family_weights") {
        known = true;
        std::vector<std::string> families = op_families();
        for (const auto& [name, w] : value.items()) {
          if (std::find(families.begin(), families.end(), name) == families.end())
            return "unknown op family '" + name + "' in family_weights";
          p.family_weights[name] = w.get<double>();
        }
      }
      if (!known) return "unknown policy key '" + key + "'";
    }
  } catch (const nlohmann::json::exception& e) {
    return std::string("a policy value has the wrong type: ") + e.what();
  }
  if (auto e = check_policy_ops(p); !e.empty()) return e;
  if (p.min_nodes < 1 || p.max_nodes < p.min_nodes) return "need 1 <= min_nodes <= max_nodes";
  if (p.max_rank < 1 || p.max_dim < 1) return "max_rank and max_dim must be at least 1";
  policy = p;
  return "";
}

std::string policy_to_json(const GenPolicy& policy) {
  GenPolicy p = policy;
  nlohmann::json j;
  for_each_knob(p, [&](const char* name, auto& field) { j[name] = field; });
  j["target"] = target_name(p.target);
  for (const auto& [t, w] : p.dtype_weights) j["dtype_weights"][dtype_name(t)] = w;
  for (const auto& [f, w] : p.family_weights) j["family_weights"][f] = w;
  return j.dump(2);
}

}  // namespace dlfuzz
