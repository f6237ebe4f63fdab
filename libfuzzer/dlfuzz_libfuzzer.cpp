// The coverage-guided fuzz target. libFuzzer's input bytes are the generator's
// choices (ByteChoices): every byte decides an op, a shape, a dtype, an
// argument. LibTorch is not instrumented, so coverage is what the compilers
// were seen to do, fed to libFuzzer as extra counters: the features the
// TorchScript runners report (ops in fusion groups and their neighbours,
// guards and specializations, kinds the passes added or removed), op pairs
// and dtype combinations of the program, and each finding's signature. The
// custom mutator cuts the byte stream where ops begin, so its mutations are
// structural: remove, duplicate or replace an op, change a shape, dtype or
// argument, splice two programs. Findings go to the SQLite store and fuzzing
// goes on (a finding is not a crash).
//
//   build/dlfuzz-libfuzzer CORPUS_DIR -max_total_time=600   (libFuzzer's flags)
//   build/dlfuzz-libfuzzer --generator-only SECONDS          (no feedback: seeds 1, 2, ...)
// Environment: DLFUZZ_DB (libfuzzer.db), DLFUZZ_RUNNERS (ts,ts-nnc,ts-legacy,frozen,static).
// At exit it prints one JSON line: programs, distinct features, distinct bug signatures.
#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "generator/choice_mutator.h"
#include "generator/choices.h"
#include "generator/dlf.h"
#include "generator/generator.h"
#include "generator/hash.h"
#include "generator/op_spec.h"
#include "oracles/evaluate.h"
#include "runners/executor.h"
#include "triage/store.h"

extern "C" int LLVMFuzzerRunDriver(int* argc, char*** argv, int (*cb)(const uint8_t* data, size_t size));
extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace dlfuzz {
namespace {

constexpr size_t kCounters = 1 << 16;
__attribute__((used, section("__libfuzzer_extra_counters"))) uint8_t g_counters[kCounters];

struct Target {
  GenPolicy policy;
  std::vector<std::string> runners;
  std::unique_ptr<Executor> executor;
  std::unique_ptr<Store> store;
  int64_t campaign = 0, programs = 0, findings = 0;
  std::set<std::string> features, signatures;
  bool printed = false;

  Target() {
    const char* env = std::getenv("DLFUZZ_RUNNERS");
    runners = CLI::detail::split(env ? env : "ts,ts-nnc,ts-legacy,frozen,static", ',');
    ExecutorOptions eo = default_executor_options();
    eo.dlfuzz_binary = DLFUZZ_BINARY;
    eo.python.clear();  // LibTorch runners only: Python compiles take seconds per input
    eo.timeout_ms = 20000;
    executor = std::make_unique<Executor>(eo);
    const char* db = std::getenv("DLFUZZ_DB");
    store = std::make_unique<Store>(db ? db : "libfuzzer.db");
    campaign = store->begin_campaign(R"({"libfuzzer":true})", "");
  }

  void count(const std::string& feature) {
    uint8_t& c = g_counters[fnv1a(feature) % kCounters];
    if (c < 255) ++c;
    features.insert(feature);
  }

  // The program's own shape: op pairs (producer > consumer) and op x dtype.
  void program_features(const Program& p) {
    std::vector<const Node*> producer(p.values.size(), nullptr);
    for_each_node(p.body, [&](const Node& n) {
      for (int o : n.outputs) producer[o] = &n;
      for (int v : node_inputs(n)) {
        count("dtype:" + n.op + ":" + dtype_name(p.type(v).dtype));
        if (producer[v]) count("op-pair:" + producer[v]->op + ">" + n.op);
      }
    });
    if (p.is_training()) count("train");
  }

  void run(const Program& p) {
    program_features(p);
    Evaluation ev = evaluate(*executor, p, runners, /*recheck=*/false);
    for (const auto& r : ev.results)
      for (const auto& f : r.features) count(f);
    ++programs;
    if (ev.findings.empty()) return;
    std::string hash = store->add_program(print_program(p), p.seed, p.count_nodes());
    for (const auto& f : ev.findings) {
      store->add_finding(campaign, hash, f, ev.versions);
      ++findings;
      signatures.insert(f.signature());
      count("finding:" + f.signature());  // an input that shows a new bug is worth keeping
    }
  }

  void report() {
    if (printed) return;
    printed = true;
    store->end_campaign(campaign, programs, findings);
    std::cout << fmt::format(R"({{"programs":{},"features":{},"signatures":{},"findings":{}}})", programs,
                             features.size(), signatures.size(), findings)
              << std::endl;
  }
};

Target& target() {
  static Target* t = [] {
    auto* t = new Target();
    std::atexit([] { target().report(); });
    return t;
  }();
  return *t;
}

}  // namespace
}  // namespace dlfuzz

using namespace dlfuzz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ByteChoices choices(data, size);
  // The seed (input values, printed in the program) is the input's hash.
  Program p = generate_program(target().policy, choices, fnv1a(data, size) % 1000000007);
  target().run(p);
  return 0;
}

// Same seed, same mutation (generator/choice_mutator.h).
extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  std::vector<uint8_t> v =
      mutate_choices(std::vector<uint8_t>(data, data + size), max_size, seed, target().policy, LLVMFuzzerMutate);
  std::memcpy(data, v.data(), v.size());
  return v.size();
}

extern "C" size_t LLVMFuzzerCustomCrossOver(const uint8_t* d1, size_t s1, const uint8_t* d2, size_t s2, uint8_t* out,
                                            size_t max_out, unsigned int seed) {
  std::vector<uint8_t> v = splice_choices({d1, d1 + s1}, {d2, d2 + s2}, max_out, seed, target().policy);
  std::memcpy(out, v.data(), v.size());
  return v.size();
}

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--generator-only") {
    // The baseline of bench/bench_coverage.sh: the same target, no feedback.
    double seconds = std::atof(argv[2]);
    auto t0 = std::chrono::steady_clock::now();
    for (uint64_t seed = 1; std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < seconds;
         ++seed)
      target().run(generate_program(target().policy, seed));
    target().report();
    return 0;
  }
  return LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput);
}
