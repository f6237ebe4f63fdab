// The table of runners: `dlfuzz run --runners a,b` and the campaign read it.
#include <torch/version.h>

#include <functional>
#include <map>

#include "runners/eager_runner.h"
#include "runners/fault_runners.h"
#include "runners/frozen_runner.h"
#include "runners/on_cpu_runner.h"
#include "runners/plugin_runner.h"
#include "runners/torchscript_runner.h"
#ifdef DLFUZZ_HAVE_STATIC_RUNTIME
#include "runners/static_runner.h"
#endif
#include "runners/runner.h"

#ifndef DLFUZZ_TORCH_FLAVOR
#define DLFUZZ_TORCH_FLAVOR "unknown"
#endif

namespace dlfuzz {

namespace {
const std::map<std::string, std::function<std::unique_ptr<Runner>()>>& table() {
  static const std::map<std::string, std::function<std::unique_ptr<Runner>()>> t = {
      {"eager", [] { return std::make_unique<EagerRunner>(false); }},
      {"eager64", [] { return std::make_unique<EagerRunner>(true); }},
      {"ts", [] { return std::make_unique<TorchScriptRunner>("ts", JitSettings{true, false}); }},
      {"ts-nnc", [] { return std::make_unique<TorchScriptRunner>("ts-nnc", JitSettings{true, true}); }},
      {"ts-legacy", [] { return std::make_unique<TorchScriptRunner>("ts-legacy", JitSettings{false, false}); }},
      {"frozen", [] { return std::make_unique<FrozenRunner>(); }},
#ifdef DLFUZZ_HAVE_STATIC_RUNTIME
      {"static", [] { return std::make_unique<StaticRunner>(); }},
#endif
  };
  return t;
}
}  // namespace

std::unique_ptr<Runner> make_runner(const std::string& name) {
  std::string base, plugin;
  if (split_plugin_runner(name, &base, &plugin)) {
    try {
      return make_plugin_runner(name);
    } catch (const std::exception&) {
      return nullptr;  // load_plugin() says why
    }
  }
  if (std::string base = on_cpu_base(name); !base.empty()) return make_on_cpu_runner(name, make_runner(base));
  auto it = table().find(name);
  if (it == table().end()) return make_fault_runner(name);
  return it->second();
}

std::vector<std::string> runner_names() {
  std::vector<std::string> v;
  for (const auto& [name, _] : table()) v.push_back(name);
  return v;
}

std::string torch_version_string() {
  return std::string("torch ") + TORCH_VERSION + " (" + DLFUZZ_TORCH_FLAVOR + ")";
}

}  // namespace dlfuzz
