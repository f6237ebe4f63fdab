#include "runners/plugin_runner.h"

#include <dlfcn.h>
#include <torch/csrc/jit/passes/pass_manager.h>

#include <filesystem>
#include <map>
#include <mutex>
#include <stdexcept>

#include "plugins/dlfuzz_plugin.h"

namespace dlfuzz {

namespace {
struct LoadedPlugin {
  PluginInfo info;
  std::vector<dlfuzz_graph_pass> passes;
};

std::mutex plugins_mutex;
std::map<std::string, LoadedPlugin>& plugins() {
  static std::map<std::string, LoadedPlugin> m;
  return m;
}

// The plugin whose passes the calling thread's runner has switched on (the
// executor optimizes graphs on the thread that calls them).
thread_local const LoadedPlugin* active_plugin = nullptr;

void add_graph_pass(dlfuzz_registry* r, const char* name, dlfuzz_graph_pass pass) {
  auto* p = static_cast<LoadedPlugin*>(r->impl);
  p->info.passes.push_back(name ? name : "(unnamed)");
  p->passes.push_back(pass);
}

// One pre-fusion pass for all plugins, a no-op unless a plugin runner is
// running on this thread.
void run_active_plugin(std::shared_ptr<torch::jit::Graph>& graph) {
  if (!active_plugin) return;
  for (dlfuzz_graph_pass pass : active_plugin->passes) pass(&graph);
}

class PluginRunner : public Runner {
 public:
  PluginRunner(std::string name, std::unique_ptr<Runner> base, const LoadedPlugin* plugin)
      : name_(std::move(name)), base_(std::move(base)), plugin_(plugin) {}
  std::string name() const override { return name_; }
  RunResult run(const Program& p, const RunConfig& cfg) override {
    const LoadedPlugin* before = active_plugin;
    active_plugin = plugin_;
    RunResult r = base_->run(p, cfg);
    active_plugin = before;
    r.runner = name_;
    return r;
  }

 private:
  std::string name_;
  std::unique_ptr<Runner> base_;
  const LoadedPlugin* plugin_;
};

const LoadedPlugin& load(const std::string& path) {
  std::lock_guard<std::mutex> lock(plugins_mutex);
  std::string key = std::filesystem::absolute(path).string();
  if (auto it = plugins().find(key); it != plugins().end()) return it->second;
  if (!std::filesystem::exists(key)) throw std::runtime_error("plugin " + path + ": no such file");
  void* handle = dlopen(key.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) throw std::runtime_error("plugin " + path + ": cannot load: " + dlerror());
  auto entry = reinterpret_cast<int (*)(dlfuzz_registry*)>(dlsym(handle, "dlfuzz_plugin_register"));
  if (!entry) {
    dlclose(handle);
    throw std::runtime_error("plugin " + path + ": no dlfuzz_plugin_register symbol (see plugins/dlfuzz_plugin.h)");
  }
  LoadedPlugin p;
  p.info.path = key;
  dlfuzz_registry registry{DLFUZZ_PLUGIN_API_VERSION, &p, add_graph_pass};
  if (int rc = entry(&registry); rc != 0)
    throw std::runtime_error("plugin " + path + ": dlfuzz_plugin_register refused to load (returned " +
                             std::to_string(rc) + ")");
  if (p.passes.empty()) throw std::runtime_error("plugin " + path + ": registers nothing (no graph pass)");
  static const bool registered = [] {
    torch::jit::registerPrePass(run_active_plugin);
    return true;
  }();
  (void)registered;
  return plugins().emplace(key, std::move(p)).first->second;  // the handle stays open: passes live in it
}
}  // namespace

const PluginInfo& load_plugin(const std::string& path) { return load(path).info; }

std::unique_ptr<Runner> make_plugin_runner(const std::string& name, const std::string& path,
                                           std::unique_ptr<Runner> base) {
  const LoadedPlugin& plugin = load(path);
  return std::make_unique<PluginRunner>(name, std::move(base), &plugin);
}

}  // namespace dlfuzz
