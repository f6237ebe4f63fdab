#include "runners/graph_features.h"

#include <map>
#include <set>

namespace dlfuzz {

namespace {
bool boring(const torch::jit::Node* n) {
  auto k = n->kind();
  return k == c10::prim::Constant || k == c10::prim::ListConstruct || k == c10::prim::TupleConstruct ||
         k == c10::prim::Return || k == c10::prim::Param;
}

std::string size_bucket(size_t n) { return n <= 1 ? "1" : n <= 3 ? "2-3" : n <= 7 ? "4-7" : "8+"; }

void kinds(const torch::jit::Block* b, std::set<std::string>* out) {
  for (const torch::jit::Node* n : b->nodes()) {
    if (!boring(n)) out->insert(n->kind().toQualString());
    for (const torch::jit::Block* inner : n->blocks()) kinds(inner, out);
  }
}

void walk(const torch::jit::Block* b, const std::string& where, std::set<std::string>* f) {
  for (const torch::jit::Node* n : b->nodes()) {
    if (boring(n)) continue;
    std::string kind = n->kind().toQualString();
    f->insert(where + "node:" + kind);
    for (const torch::jit::Value* v : n->outputs()) {
      auto t = v->type()->cast<c10::TensorType>();
      if (t && t->scalarType() && t->dim())
        f->insert(where + "spec:" + kind + ":" + c10::toString(*t->scalarType()) + ":rank" + std::to_string(*t->dim()));
    }
    if (n->hasAttribute(c10::attr::Subgraph)) {  // a fusion, differentiable or static group
      const auto& g = n->g(c10::attr::Subgraph);
      size_t size = 0;
      for (const torch::jit::Node* m : g->nodes()) {
        if (boring(m)) continue;
        ++size;
        for (const torch::jit::Value* in : m->inputs())
          if (in->node()->owningGraph() == g.get() && !boring(in->node()))
            f->insert(where + "pair:" + kind + ":" + in->node()->kind().toQualString() + ">" +
                      m->kind().toQualString());
      }
      f->insert(where + "group:" + kind + ":size" + size_bucket(size));
      walk(g->block(), where + "in:" + kind + "/", f);
    }
    for (const torch::jit::Block* inner : n->blocks()) walk(inner, where, f);
  }
}
bool is_fusion_group(const torch::jit::Node* n) {
  std::string k = n->kind().toQualString();
  return k == "prim::TensorExprGroup" || k == "prim::FusionGroup" || k == "prim::CudaFusionGroup";
}

void count(const torch::jit::Block* b, std::map<std::string, double>* c) {
  for (const torch::jit::Node* n : b->nodes()) {
    if (boring(n)) continue;
    std::string kind = n->kind().toQualString();
    if (is_fusion_group(n)) {
      (*c)["fusion_groups"] += 1;
      continue;  // what it holds is fused
    }
    if (kind == "prim::FallbackGraph") (*c)["fallback_graphs"] += 1;
    if (kind == "prim::DifferentiableGraph") (*c)["differentiable_graphs"] += 1;
    if (kind.rfind("aten::", 0) == 0) (*c)["nodes_outside_fusion"] += 1;
    if (n->hasAttribute(c10::attr::Subgraph)) count(n->g(c10::attr::Subgraph)->block(), c);
    for (const torch::jit::Block* inner : n->blocks()) count(inner, c);
  }
}
}  // namespace

void graph_counters(const torch::jit::Graph& optimized, std::map<std::string, double>* out) {
  (*out)["fusion_groups"] += 0;
  (*out)["nodes_outside_fusion"] += 0;
  count(optimized.block(), out);
}

void graph_features(const torch::jit::Graph& source, const torch::jit::Graph& optimized, const std::string& runner,
                    std::vector<std::string>* out) {
  std::set<std::string> f, before, after;
  walk(optimized.block(), "", &f);
  kinds(source.block(), &before);
  kinds(optimized.block(), &after);
  for (const auto& k : after)
    if (!before.count(k)) f.insert("added:" + k);
  for (const auto& k : before)
    if (!after.count(k)) f.insert("removed:" + k);
  for (const auto& s : f) out->push_back(runner + "|" + s);
}

}  // namespace dlfuzz
