// Candidate optimizations as plugins (plugins/dlfuzz_plugin.h): a shared
// library registers TorchScript graph passes; the runner "BASE+plugin:PATH"
// is the TorchScript runner BASE (ts, ts-nnc, ts-legacy) with those passes
// run on every graph its executor optimizes. What `dlfuzz gate` compares.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "runners/runner.h"

namespace dlfuzz {

struct PluginInfo {
  std::string path;
  std::vector<std::string> passes;  // the names it registered
};

// Loads the plugin (once per process) and returns what it registered, or
// throws std::runtime_error naming the file and what is wrong with it: no such
// file, not a shared library, no dlfuzz_plugin_register, a refusal, no pass.
const PluginInfo& load_plugin(const std::string& path);

// `base` (a TorchScript runner: the runner table says which) with the plugin at
// `path` switched on; throws like load_plugin.
std::unique_ptr<Runner> make_plugin_runner(const std::string& name, const std::string& path,
                                           std::unique_ptr<Runner> base);

}  // namespace dlfuzz
