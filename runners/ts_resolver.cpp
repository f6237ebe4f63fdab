#include "runners/ts_resolver.h"

namespace dlfuzz {

namespace {
struct Resolver : torch::jit::Resolver {
  std::shared_ptr<torch::jit::SugaredValue> resolveValue(const std::string& name, torch::jit::GraphFunction& m,
                                                         const torch::jit::SourceRange& loc) override {
    if (name == "torch") return std::make_shared<torch::jit::BuiltinModule>("aten");
    if (name == "dlfuzz") return std::make_shared<torch::jit::BuiltinModule>("dlfuzz");
    return nullptr;
  }
  torch::jit::TypePtr resolveType(const std::string&, const torch::jit::SourceRange&) override { return nullptr; }
};
}  // namespace

torch::jit::ResolverPtr ts_resolver() { return std::make_shared<Resolver>(); }

}  // namespace dlfuzz
