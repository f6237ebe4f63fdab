/* The dlfuzz plugin API: how a candidate optimization enters `dlfuzz gate`.
 *
 * A plugin is a shared library that exports one C function,
 *
 *     int dlfuzz_plugin_register(dlfuzz_registry* registry);
 *
 * which registers TorchScript graph passes through the registry and returns 0
 * (non-zero: the plugin refuses to load; registering nothing is an error too).
 * dlfuzz runs the passes on every graph the candidate runner's executor
 * optimizes (as custom pre-fusion passes: after differentiation, before NNC),
 * and only there: the baseline in the same process does not see them.
 *
 * A pass receives the graph as `void*` pointing to a
 * `std::shared_ptr<torch::jit::Graph>` and edits it in place. Build plugins
 * against the LibTorch dlfuzz links (see plugins/examples/ and
 * plugins/CMakeLists.txt).
 */
#ifndef DLFUZZ_PLUGIN_H
#define DLFUZZ_PLUGIN_H

#ifdef __cplusplus
extern "C" {
#endif

#define DLFUZZ_PLUGIN_API_VERSION 1

typedef void (*dlfuzz_graph_pass)(void* graph /* std::shared_ptr<torch::jit::Graph>* */);

typedef struct dlfuzz_registry dlfuzz_registry;
struct dlfuzz_registry {
  int api_version; /* DLFUZZ_PLUGIN_API_VERSION of the dlfuzz loading the plugin */
  void* impl;      /* dlfuzz's own state */
  /* Adds a graph pass; `name` is copied. */
  void (*add_graph_pass)(dlfuzz_registry* registry, const char* name, dlfuzz_graph_pass pass);
};

/* The symbol dlfuzz looks up. */
int dlfuzz_plugin_register(dlfuzz_registry* registry);

#ifdef __cplusplus
}
#endif

#endif /* DLFUZZ_PLUGIN_H */
