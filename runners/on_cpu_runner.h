// "RUNNER@cpu": RUNNER over the same program with its device set to cpu. For a
// program on cuda these are the cross-device references: the GPU paths
// against CPU eager, arbitrated by CPU eager in float64 (oracles/evaluate.cpp).
#pragma once
#include <memory>
#include <string>

#include "runners/runner.h"

namespace dlfuzz {

std::unique_ptr<Runner> make_on_cpu_runner(const std::string& name, std::unique_ptr<Runner> base);

}  // namespace dlfuzz
