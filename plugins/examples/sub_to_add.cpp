// A correct candidate pass: x - alpha*y becomes x + (-alpha)*y, for every
// aten::sub whose alpha is a constant. Both produce a fresh tensor of the same
// dtype, and negating a constant is exact, so results are bitwise equal (the
// uint8 case wraps the same way). `dlfuzz gate` should pass it.
#include <torch/csrc/jit/ir/ir.h>

#include "plugins/dlfuzz_plugin.h"

namespace {
void sub_to_add(void* g) {
  auto& graph = *static_cast<std::shared_ptr<torch::jit::Graph>*>(g);
  std::vector<torch::jit::Node*> subs;
  for (torch::jit::Node* n : graph->nodes())  // top-level block only: enough for the example
    if (n->kind() == c10::Symbol::fromQualString("aten::sub") && n->inputs().size() == 3) subs.push_back(n);
  for (torch::jit::Node* n : subs) {
    c10::optional<c10::IValue> alpha = torch::jit::toIValue(n->input(2));
    if (!alpha || !(alpha->isInt() || alpha->isDouble())) continue;
    torch::jit::WithInsertPoint guard(n);
    torch::jit::Value* neg =
        alpha->isInt() ? graph->insertConstant(-alpha->toInt()) : graph->insertConstant(-alpha->toDouble());
    torch::jit::Value* add = graph->insert(c10::Symbol::fromQualString("aten::add"), {n->input(0), n->input(1)},
                                           {torch::jit::NamedValue("alpha", neg)});
    add->setType(n->output()->type());
    n->output()->replaceAllUsesWith(add);
    n->destroy();
  }
}
}  // namespace

extern "C" int dlfuzz_plugin_register(dlfuzz_registry* r) {
  if (r->api_version != DLFUZZ_PLUGIN_API_VERSION) return 1;
  r->add_graph_pass(r, "sub-to-add", sub_to_add);
  return 0;
}
