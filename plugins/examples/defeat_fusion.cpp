// A correct but slow candidate pass: every tensor an op produces goes through
// aten::alias before its users, an op NNC does not fuse, so the elementwise
// chains NNC would have fused into one kernel run op by op. Values are bitwise
// the same (alias is the same tensor), so only the timing oracle can tell:
// `dlfuzz gate --baseline ts-nnc` should block it as a slowdown, and the
// profile diff should show NNC's fused_ kernels replaced by ATen ops.
#include <torch/csrc/jit/ir/ir.h>

#include "plugins/dlfuzz_plugin.h"

namespace {
void defeat_fusion(void* g) {
  auto& graph = *static_cast<std::shared_ptr<torch::jit::Graph>*>(g);
  static const auto alias = c10::Symbol::fromQualString("aten::alias");
  std::vector<torch::jit::Value*> produced;
  for (torch::jit::Node* n : graph->nodes())  // top-level block only: enough for the example
    if (n->kind().is_aten() && n->kind() != alias && n->outputs().size() == 1 &&
        n->output()->type()->cast<c10::TensorType>() && n->output()->hasUses())
      produced.push_back(n->output());
  for (torch::jit::Value* v : produced) {
    torch::jit::WithInsertPoint guard(v->node()->next());
    torch::jit::Value* a = graph->insert(alias, {v});
    a->setType(v->type());
    v->replaceAllUsesAfterNodeWith(a->node(), a);
  }
}
}  // namespace

extern "C" int dlfuzz_plugin_register(dlfuzz_registry* r) {
  if (r->api_version != DLFUZZ_PLUGIN_API_VERSION) return 1;
  r->add_graph_pass(r, "defeat-fusion", defeat_fusion);
  return 0;
}
