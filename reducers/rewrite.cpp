#include "reducers/rewrite.h"

#include <numeric>

#include "generator/canonicalize.h"
#include "generator/op_spec.h"

namespace dlfuzz::reduce {

namespace {
void collect(Block& b, std::vector<Node*>& out) {
  for (auto& n : b.nodes) {
    out.push_back(&n);
    for (auto& inner : n.blocks) collect(inner, out);
  }
}

bool valid_id(const Program& p, int id) { return id >= 0 && id < int(p.values.size()); }

bool used_in(const Block& b, int id) {
  for (const auto& n : b.nodes) {
    for (int v : node_inputs(n))
      if (v == id) return true;
    for (const auto& inner : n.blocks)
      if (used_in(inner, id)) return true;
  }
  for (int y : b.yields)
    if (y == id) return true;
  return false;
}

void define_ids(const Block& b, std::set<int>& ids) {
  for (const auto& n : b.nodes) {
    ids.insert(n.outputs.begin(), n.outputs.end());
    for (const auto& inner : n.blocks) {
      ids.insert(inner.params.begin(), inner.params.end());
      define_ids(inner, ids);
    }
  }
}

void keep_only(Block& b, const std::set<const Node*>& live) {
  std::vector<Node> kept;
  for (auto& n : b.nodes) {
    if (!live.count(&n)) continue;
    for (auto& inner : n.blocks) keep_only(inner, live);
    kept.push_back(std::move(n));
  }
  b.nodes = std::move(kept);
}

struct Site {
  Node* node;
  int parent;  // index into the site list, -1 at top level
};
void sites(Block& b, int parent, std::vector<Site>& out) {
  for (auto& n : b.nodes) {
    int me = static_cast<int>(out.size());
    out.push_back({&n, parent});
    for (auto& inner : n.blocks) sites(inner, me, out);
  }
}
}  // namespace

std::vector<Node*> all_nodes(Block& b) {
  std::vector<Node*> out;
  collect(b, out);
  return out;
}

void erase_nodes(Block& b, const std::set<const Node*>& drop) {
  std::vector<Node> kept;
  for (auto& n : b.nodes) {
    if (drop.count(&n)) continue;
    for (auto& inner : n.blocks) erase_nodes(inner, drop);
    kept.push_back(std::move(n));
  }
  b.nodes = std::move(kept);
}

void tidy(Program& p) {
  std::set<int> defined;
  for (const auto& in : p.inputs) defined.insert(in.value);
  define_ids(p.body, defined);
  size_t count = 0;
  for (int id : defined) count += valid_id(p, id);
  canonicalize(p);  // defined values first, in textual order; orphans after
  if (p.values.size() > count) p.values.resize(count);
}

void remove_dead_nodes(Program& p) {
  std::vector<Site> all;
  sites(p.body, -1, all);
  // A view or an in-place result aliases its first operand: writes to any
  // alias of a live tensor are live.
  std::vector<int> root(p.values.size());
  std::iota(root.begin(), root.end(), 0);
  auto root_of = [&](int v) { return valid_id(p, v) ? root[v] : v; };
  for (const auto& s : all) {
    const OpSpec* spec = find_op(s.node->op);
    std::vector<int> in = node_inputs(*s.node);
    if (spec && (spec->inplace || spec->view) && !in.empty() && !s.node->outputs.empty() &&
        valid_id(p, s.node->outputs[0]))
      root[s.node->outputs[0]] = root_of(in[0]);
  }
  std::set<int> live, live_roots;
  auto mark = [&](int v) {
    live.insert(v);
    live_roots.insert(root_of(v));
  };
  for (int y : p.body.yields) mark(y);
  if (p.train) mark(p.train->loss);
  std::vector<bool> needed(all.size(), false);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < all.size(); ++i) {
      if (needed[i]) continue;
      const Node& n = *all[i].node;
      bool need = false;
      for (int o : n.outputs) need = need || live.count(o);
      const OpSpec* spec = find_op(n.op);
      std::vector<int> in = node_inputs(n);
      if (spec && spec->inplace && !in.empty() && live_roots.count(root_of(in[0]))) need = true;
      if (!need) continue;
      // A needed node keeps its enclosing loops and branches.
      for (int k = static_cast<int>(i); k >= 0 && !needed[k]; k = all[k].parent) {
        needed[k] = true;
        for (int v : node_inputs(*all[k].node)) mark(v);
        for (const auto& inner : all[k].node->blocks)
          for (int y : inner.yields) mark(y);
      }
      changed = true;
    }
  }
  std::set<const Node*> keep;
  for (size_t i = 0; i < all.size(); ++i)
    if (needed[i]) keep.insert(all[i].node);
  keep_only(p.body, keep);
}

bool is_used(const Program& p, int id) { return used_in(p.body, id) || (p.train && p.train->loss == id); }

}  // namespace dlfuzz::reduce
