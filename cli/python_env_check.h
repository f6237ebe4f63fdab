// What PyTorch 2.x's Inductor gets from the Python install a campaign runs in,
// as a plain user process gets it (runners/python/env_check.py): the vector
// ISA it compiles C++ kernels for and the libtorch it links them to. dlfuzz's
// workers load libtorch RTLD_GLOBAL, which can hide a broken install; the
// campaign stores this and prints its warnings.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "runners/executor.h"

namespace dlfuzz::cli {

// env_check.py's answer ({"warnings": [...], ...}), or {"error": why} when it
// could not run. Cached on disk per install by the script (the first call
// compiles Inductor's probe: about half a minute).
nlohmann::json check_python_env(const ExecutorOptions& eo);

}  // namespace dlfuzz::cli
