// A subtly wrong candidate pass: division by a constant becomes
// multiplication by its reciprocal (a classic strength reduction). It forgets
// that aten::div has a rounding_mode overload: div(x, c, rounding_mode="floor")
// turns into x * (1/c), unrounded. For plain division it is right up to the
// last bit, which the oracles accept. `dlfuzz gate` should block it.
#include <torch/csrc/jit/ir/ir.h>

#include "plugins/dlfuzz_plugin.h"

namespace {
void div_to_mul(void* g) {
  auto& graph = *static_cast<std::shared_ptr<torch::jit::Graph>*>(g);
  std::vector<torch::jit::Node*> divs;
  for (torch::jit::Node* n : graph->nodes())
    if (n->kind() == c10::Symbol::fromQualString("aten::div") && n->inputs().size() >= 2) divs.push_back(n);
  for (torch::jit::Node* n : divs) {
    c10::optional<c10::IValue> c = torch::jit::toIValue(n->input(1));
    if (!c || !c->isDouble() || c->toDouble() == 0.0) continue;
    torch::jit::WithInsertPoint guard(n);
    torch::jit::Value* inv = graph->insertConstant(1.0 / c->toDouble());
    torch::jit::Value* mul = graph->insert(c10::Symbol::fromQualString("aten::mul"), {n->input(0), inv});
    mul->setType(n->output()->type());
    n->output()->replaceAllUsesWith(mul);
    n->destroy();
  }
}
}  // namespace

extern "C" int dlfuzz_plugin_register(dlfuzz_registry* r) {
  if (r->api_version != DLFUZZ_PLUGIN_API_VERSION) return 1;
  r->add_graph_pass(r, "div-to-mul", div_to_mul);
  return 0;
}
