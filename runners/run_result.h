// What a runner returns. No LibTorch here: oracles, the store and the CLI read
// results as plain host tensors.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "generator/program.h"

namespace dlfuzz {

// A tensor copied to the host: dtype, shape and the raw little-endian bytes of a
// contiguous copy. `defined` is false for a missing gradient.
struct HostTensor {
  bool defined = false;
  DType dtype = DType::f32;
  Shape shape;
  std::vector<uint8_t> bytes;

  int64_t numel() const;
  double at(int64_t i) const;  // element i as a double (exact for ints < 2^53)
};

enum class RunStatus { ok, exception, crash, timeout, oom };
enum class Stage { none, setup, compile, run, backward, optimizer, collective };
const char* status_name(RunStatus s);
const char* stage_name(Stage s);

struct RunResult {
  std::string runner;
  RunStatus status = RunStatus::ok;
  Stage stage = Stage::none;
  std::string error;                // exception text, or the signal for a crash
  std::vector<HostTensor> outputs;  // program outputs (last step's forward)
  std::vector<double> losses;       // one per training step
  std::vector<HostTensor> grads;    // one per param, last step
  std::vector<HostTensor> params;   // one per param, after the last step
  double setup_ms = 0;
  double run_ms = 0;     // warm-up calls and the measured steps: compilation included
  double total_ms = 0;   // the whole run() call, measured by the worker
  std::string versions;  // e.g. "torch 1.13.1 (debian)"
  // A distributed run (world > 1): per rank, a digest of its parameters after
  // each step. Outputs and losses are every rank's in rank order, grads and
  // params rank 0's.
  std::vector<std::vector<std::string>> rank_digests;
  // What the compiled path did (runners/graph_features.h): coverage for
  // libFuzzer. Empty for eager runs.
  std::vector<std::string> features;
  // Timings (oracles/perf_oracle.h): steady-state time of each call after
  // warm-up, compilation and set-up excluded; for a paired timing request,
  // one per pair. Empty when no timed calls were asked for.
  std::vector<double> call_ms;
  // What the compiler did, as numbers (kernels, graph_breaks, recompiles,
  // fusion_groups, ...): the cheap signals that make a timing candidate.
  std::map<std::string, double> counters;
  // torch.compile runners: errors of FakeTensor propagation that Dynamo
  // caught, running the frame uncompiled instead ("OP: ERROR: message";
  // oracles/fake_prop_oracle.h). Empty for a run that compiled all it traced.
  std::vector<std::string> fake_errors;
  // The compiler config the runner drew for this program (inductor-knobs'
  // "cpp.simdlen=0, cpp.threads=1, ..."); empty where it always compiles alike.
  std::string config;
  // A profile of timed calls, when asked for: {"ops": [[name, self_ms,
  // calls], ...] hottest first, "trace": path of a Chrome trace}.
  nlohmann::json profile = nlohmann::json::object();

  bool ok() const { return status == RunStatus::ok; }
};

// A run that failed before or outside the runner: status exception, at `stage`.
RunResult failed_run(const std::string& runner, Stage stage, const std::string& error);

nlohmann::json to_json(const HostTensor& t, bool with_values);
nlohmann::json to_json(const RunResult& r, bool with_values);
// The result's fields, each tensor written by `tensor` (the wire format's
// encoder writes offsets into a byte blob instead of values).
nlohmann::json to_json(const RunResult& r, const std::function<nlohmann::json(const HostTensor&)>& tensor);

}  // namespace dlfuzz
