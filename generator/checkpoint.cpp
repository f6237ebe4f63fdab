#include "generator/checkpoint.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include "generator/hop.h"
#include "generator/op_spec.h"
#include "generator/verify.h"

namespace dlfuzz {

namespace {
// Union-find over value ids: a view, a maybe-alias (op_spec.h) or an in-place
// result shares a group with the tensor it aliases (as first_divergence's
// AliasGroups joins them), a structural node's results with what they may be.
struct Aliases {
  std::vector<int> parent;
  explicit Aliases(size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  int find(int v) {
    while (parent[v] != v) v = parent[v] = parent[parent[v]];
    return v;
  }
  void join(int a, int b) {
    if (a >= 0 && b >= 0 && a < int(parent.size()) && b < int(parent.size())) parent[find(a)] = find(b);
  }

  void collect(const Block& b) {
    for (const auto& n : b.nodes) {
      for (const auto& inner : n.blocks) collect(inner);
      std::vector<int> in = node_inputs(n);
      if (n.blocks.empty()) {
        const OpSpec* s = find_op(n.op);
        if (s && (s->inplace || s->view || s->may_alias) && !in.empty())
          for (int o : n.outputs) join(o, in[0]);
        continue;
      }
      for (const auto& inner : n.blocks) {
        // loop and checkpoint params are their carried values / inputs
        for (size_t k = 0; k < inner.params.size() && k < in.size(); ++k) join(inner.params[k], in[k]);
        for (size_t k = 0; k < n.outputs.size() && k < inner.yields.size(); ++k) join(n.outputs[k], inner.yields[k]);
      }
      if (n.op == "loop")
        for (size_t k = 0; k < n.outputs.size() && k < in.size(); ++k) join(n.outputs[k], in[k]);
    }
  }
};

// Values defined inside a block (outputs and params of nested blocks).
void defined_in(const Block& b, std::set<int>& out) {
  out.insert(b.params.begin(), b.params.end());
  for (const auto& n : b.nodes) {
    out.insert(n.outputs.begin(), n.outputs.end());
    for (const auto& inner : n.blocks) defined_in(inner, out);
  }
}

// Values a block reads (arguments, yields), nested blocks included, in order.
void reads_in(const Block& b, std::vector<int>& out) {
  for (const auto& n : b.nodes) {
    for (int v : node_inputs(n)) out.push_back(v);
    for (const auto& inner : n.blocks) reads_in(inner, out);
  }
  out.insert(out.end(), b.yields.begin(), b.yields.end());
}

// The tensors written in place by a node and the nodes nested in it.
void writes_in(const Node& n, std::vector<int>& out) {
  const OpSpec* s = find_op(n.op);
  std::vector<int> in = node_inputs(n);
  if (s && s->inplace && !in.empty()) out.push_back(in[0]);
  for (const auto& inner : n.blocks)
    for (const auto& m : inner.nodes) writes_in(m, out);
}

// Collectives would run again in backward, on one rank only.
bool has_collective(const Node& n) {
  const OpSpec* s = find_op(n.op);
  if (s && is_collective(*s)) return true;
  for (const auto& inner : n.blocks)
    for (const auto& m : inner.nodes)
      if (has_collective(m)) return true;
  return false;
}

}  // namespace

bool has_checkpoint(const Program& p) {
  for (const auto& n : p.body.nodes)
    if (n.op == "checkpoint") return true;
  return false;
}

std::string checkpoint_hazard(const Program& p, size_t index) {
  const Node& n = p.body.nodes.at(index);
  Aliases a(p.values.size());
  a.collect(p.body);
  std::set<int> inside;
  defined_in(n.blocks.at(0), inside);
  std::set<int> outside_groups;
  std::vector<int> reads;
  reads_in(n.blocks[0], reads);
  for (int v : node_inputs(n)) reads.push_back(v);
  for (int v : reads)
    if (!inside.count(v) && v >= 0 && v < int(p.values.size())) outside_groups.insert(a.find(v));
  std::vector<int> writes;
  for (size_t i = index; i < p.body.nodes.size(); ++i) writes_in(p.body.nodes[i], writes);
  for (int w : writes)
    if (w >= 0 && w < int(p.values.size()) && outside_groups.count(a.find(w)))
      return "%" + p.values[w].name + " is written in place at or after the checkpoint that reads it (or an alias)";
  // A selective checkpoint caches what it saves and refuses, in backward, a
  // cached tensor written since ("Tensor cached during selective activation
  // checkpoint has been mutated"): none of its values is written.
  const Arg* selective = n.arg("selective");
  if (selective && std::holds_alternative<bool>(selective->value) && std::get<bool>(selective->value)) {
    std::set<int> inside_groups;
    for (int v : inside) inside_groups.insert(a.find(v));
    for (int w : writes)
      if (w >= 0 && w < int(p.values.size()) && inside_groups.count(a.find(w)))
        return "%" + p.values[w].name + " is written in place, and a selective checkpoint's values may be cached";
  }
  return "";
}

bool add_checkpoint(Program& p, Choices& c) {
  auto& nodes = p.body.nodes;
  if (nodes.size() < 2) return false;
  for (int attempt = 0; attempt < 8; ++attempt) {
    size_t first = c.below(nodes.size() - 1);
    size_t last = first + static_cast<size_t>(c.range(2, int64_t(std::min<size_t>(nodes.size() - first, 16))));
    bool ok = true;
    // No region holds control flow spelled as a higher-order op: PyTorch 2.15
    // compiles none (corpus/bugs/aot-checkpoint-around-cond-no-rule.dlf) and
    // eager fails on a scan's backward there (eager-scan-in-checkpoint-...).
    for (size_t i = first; i < last; ++i)
      ok = ok && nodes[i].op != "checkpoint" && !has_collective(nodes[i]) && !is_hop(nodes[i]);
    if (!ok) continue;

    Program before = p;
    Node ck;
    ck.op = "checkpoint";
    ck.blocks.resize(1);
    Block& body = ck.blocks[0];
    body.nodes.assign(std::make_move_iterator(nodes.begin() + first), std::make_move_iterator(nodes.begin() + last));
    nodes.erase(nodes.begin() + first, nodes.begin() + last);

    // Results: the stretch's values read after it, returned, or the loss.
    std::set<int> inside;
    defined_in(body, inside);
    std::vector<int> results;
    auto result = [&](int v) {
      if (inside.count(v) && std::find(results.begin(), results.end(), v) == results.end()) results.push_back(v);
    };
    std::vector<int> later;
    for (size_t i = first; i < nodes.size(); ++i) {
      for (int v : node_inputs(nodes[i])) later.push_back(v);
      for (const auto& inner : nodes[i].blocks) reads_in(inner, later);
    }
    for (int v : later) result(v);
    for (int y : p.body.yields) result(y);
    if (p.train) result(p.train->loss);
    if (results.empty()) {
      p = std::move(before);
      continue;
    }
    // Arguments: about half of what it reads from before it; the rest it
    // reads as a closure does (Dynamo lifts those as free variables).
    std::vector<int> reads, args;
    reads_in(body, reads);
    std::map<int, int> to_param;
    for (int v : reads) {
      if (inside.count(v) || to_param.count(v) || !c.coin(0.5)) continue;
      int prm = p.add_value("ckp" + std::to_string(p.values.size()), p.type(v));
      to_param[v] = prm;
      args.push_back(v);
      body.params.push_back(prm);
    }
    substitute(body, to_param);
    ck.args = {{"inputs", ValueList{args}}};
    bool selective = c.coin(0.5);
    if (selective) ck.args.push_back({"selective", true});
    body.yields = results;
    std::map<int, int> to_output;
    for (int r : results) {
      int o = p.add_value("cko" + std::to_string(p.values.size()), p.type(r));
      ck.outputs.push_back(o);
      to_output[r] = o;
    }
    substitute(p, to_output);  // the body without the stretch: what reads its results
    nodes.insert(nodes.begin() + first, std::move(ck));
    // verify() refuses the hazards (checkpoint_hazard) and a stretch that
    // would yield an empty_like its caller fills only after it.
    if (selective && !verify(p).empty()) nodes[first].args.pop_back();  // writes its values: a plain one
    if (!verify(p).empty()) {
      p = std::move(before);
      continue;
    }
    return true;
  }
  return false;
}

}  // namespace dlfuzz
