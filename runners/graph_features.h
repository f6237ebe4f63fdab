// What a TorchScript path did to a program, as feature strings that
// coverage-guided fuzzing counts (libfuzzer/): the node kinds of the graph the
// executor last ran, the ops inside fusion and differentiable groups and their
// producer->consumer neighbours, dtype/rank specializations, and the kinds
// the optimization pipeline added or removed relative to the source graph.
#pragma once
#include <torch/csrc/jit/ir/ir.h>

#include <map>
#include <string>
#include <vector>

namespace dlfuzz {

// Appends "RUNNER|..." features of `optimized` (compared with `source`).
void graph_features(const torch::jit::Graph& source, const torch::jit::Graph& optimized, const std::string& runner,
                    std::vector<std::string>* out);

// What the executor made of the program, as numbers for the timing oracle:
// fusion_groups, nodes_outside_fusion (ATen nodes left to the interpreter),
// fallback_graphs and differentiable_graphs.
void graph_counters(const torch::jit::Graph& optimized, std::map<std::string, double>* out);

}  // namespace dlfuzz
