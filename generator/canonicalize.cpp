#include "generator/canonicalize.h"

#include <string>

namespace dlfuzz {

namespace {
struct Renumber {
  const Program& old;
  std::vector<int> map;  // old id -> new id
  std::deque<Value> values;
  int next_name = 1;

  explicit Renumber(const Program& p) : old(p), map(p.values.size(), -1) {}

  void define(int id, bool rename) {
    if (id < 0 || id >= int(map.size()) || map[id] >= 0) return;
    map[id] = static_cast<int>(values.size());
    Value v = old.values[id];
    if (rename) v.name = std::to_string(next_name++);
    values.push_back(v);
  }

  void block(const Block& b) {
    for (const auto& n : b.nodes) {
      for (int o : n.outputs) define(o, true);
      for (const auto& inner : n.blocks) {
        for (int prm : inner.params) define(prm, true);
        block(inner);
      }
    }
  }

  int at(int id) const { return id >= 0 && id < int(map.size()) ? map[id] : id; }

  void apply(Block& b) const {
    for (int& prm : b.params) prm = at(prm);
    for (int& y : b.yields) y = at(y);
    for (auto& n : b.nodes) {
      for (int& o : n.outputs) o = at(o);
      for (auto& a : n.args) {
        if (auto* r = std::get_if<ValueRef>(&a.value)) r->id = at(r->id);
        if (auto* l = std::get_if<ValueList>(&a.value))
          for (int& id : l->ids) id = at(id);
      }
      for (auto& inner : n.blocks) apply(inner);
    }
  }
};
}  // namespace

void canonicalize(Program& p) {
  Renumber r(p);
  for (const auto& in : p.inputs) r.define(in.value, false);
  r.block(p.body);
  // Values nothing defines (should not happen in a verified program) keep a slot.
  for (size_t i = 0; i < p.values.size(); ++i) r.define(static_cast<int>(i), false);
  for (auto& in : p.inputs) in.value = r.at(in.value);
  r.apply(p.body);
  if (p.train) p.train->loss = r.at(p.train->loss);
  p.values = std::move(r.values);
}

}  // namespace dlfuzz
