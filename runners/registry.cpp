// The table of runners: `dlfuzz run --runners a,b` and the campaign read it.
#include <fmt/format.h>
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
#include "runners/runner_spec.h"

#ifndef DLFUZZ_TORCH_FLAVOR
#define DLFUZZ_TORCH_FLAVOR "unknown"
#endif

namespace dlfuzz {

namespace {
const std::map<std::string, std::function<std::unique_ptr<Runner>()>>& table() {
  static const std::map<std::string, std::function<std::unique_ptr<Runner>()>> t = {
      {"eager", [] { return std::make_unique<EagerRunner>(false); }},
      {"eager64", [] { return std::make_unique<EagerRunner>(true); }},
      {"ts", [] { return std::make_unique<TorchScriptRunner>("ts", JitSettings{}); }},
      {"ts-nnc", [] { return std::make_unique<TorchScriptRunner>("ts-nnc", JitSettings{true, true}); }},
      {"ts-legacy", [] { return std::make_unique<TorchScriptRunner>("ts-legacy", JitSettings{false, false}); }},
      {"ts-noopt", [] { return std::make_unique<TorchScriptRunner>("ts-noopt", JitSettings{true, false, false}); }},
      {"ts-simple",
       [] { return std::make_unique<TorchScriptRunner>("ts-simple", JitSettings{true, false, true, true}); }},
      {"frozen", [] { return std::make_unique<FrozenRunner>("frozen", FreezeSteps{}); }},
      {"frozen-plain", [] { return std::make_unique<FrozenRunner>("frozen-plain", FreezeSteps{false, false}); }},
      {"frozen-fold", [] { return std::make_unique<FrozenRunner>("frozen-fold", FreezeSteps{true, false}); }},
#ifdef DLFUZZ_HAVE_STATIC_RUNTIME
      {"static", [] { return std::make_unique<StaticRunner>("static", StaticSteps{}); }},
      {"static-noplan", [] { return std::make_unique<StaticRunner>("static-noplan", StaticSteps{true, false}); }},
      {"static-noout", [] { return std::make_unique<StaticRunner>("static-noout", StaticSteps{false, false}); }},
#endif
  };
  return t;
}
}  // namespace

std::unique_ptr<Runner> make_runner(const std::string& name, std::string* error) {
  auto fail = [&](const std::string& why) -> std::unique_ptr<Runner> {
    if (error) *error = why;
    return nullptr;
  };
  std::string why;
  auto spec = parse_runner(name, &why);
  if (!spec) return fail(why);
  if (spec->worker() != WorkerKind::native) return fail(name + " runs in the Python worker");
  if (!spec->env.empty()) return fail(name + " runs in the environment " + spec->env);
  if (spec->one_process || spec->row->needs == RunnerNeeds::dp) return fail(name + " runs over ranks");
  std::unique_ptr<Runner> runner;
  if (auto it = table().find(spec->row->name); it != table().end()) runner = it->second();
  else runner = make_fault_runner(spec->row->name);
  if (!runner) return fail(fmt::format("runner {} is not in this build ({})", spec->row->name, torch_version_string()));
  if (!spec->plugin.empty()) {
    RunnerSpec plain = *spec;
    plain.on_cpu = false;
    try {
      runner = make_plugin_runner(plain.name(), spec->plugin, std::move(runner));
    } catch (const std::exception& e) {
      return fail(e.what());  // load_plugin() says why
    }
  }
  if (spec->on_cpu) runner = make_on_cpu_runner(spec->name(), std::move(runner));
  return runner;
}

std::vector<std::string> runner_names() {
  std::vector<std::string> v;
  for (const auto& row : runner_table())
    if (row.worker == WorkerKind::native &&
        (table().count(row.name) || make_fault_runner(row.name) || row.needs == RunnerNeeds::dp))
      v.push_back(row.name);
  return v;
}

std::string torch_version_string() { return std::string("torch ") + TORCH_VERSION + " (" + DLFUZZ_TORCH_FLAVOR + ")"; }

}  // namespace dlfuzz
