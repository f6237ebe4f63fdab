// libFuzzer's entry point for one of dlfuzz's own readers, chosen at compile
// time (DLFUZZ_FUZZ_TARGET: dlf, wire, store or merge; see fuzz_checks.h).
// A broken invariant aborts, so libFuzzer keeps the input as a crash.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "libfuzzer/targets/fuzz_checks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const dlfuzz::FuzzTarget* target = [] {
    for (const auto& t : dlfuzz::kFuzzTargets)
      if (std::strcmp(t.name, DLFUZZ_FUZZ_TARGET) == 0) return &t;
    std::fprintf(stderr, "no fuzz target %s\n", DLFUZZ_FUZZ_TARGET);
    std::abort();
  }();
  if (auto broken = target->check(data, size)) {
    std::fprintf(stderr, "dlfuzz fuzz target %s: %s\n", target->name, broken->c_str());
    std::abort();
  }
  return 0;
}
