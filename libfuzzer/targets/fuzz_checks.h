// The checks behind dlfuzz's own fuzz targets (scripts/check_fuzz_targets.sh):
// each takes arbitrary bytes, feeds them to one of dlfuzz's readers, and says
// what invariant broke, if any. Rejecting bad input with an error is fine; a
// crash, a sanitizer report, an exception the caller does not expect, or a
// round trip that changes the program is not. The libFuzzer entry points
// (fuzz_main.cpp) abort on a broken invariant; the regression test
// (tests/libfuzzer/replay_test.cpp) replays the seeds and every crash ever
// found through the same functions. LibTorch-free.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace dlfuzz {

// The broken invariant, or nullopt when the input was handled.
using FuzzVerdict = std::optional<std::string>;

// .dlf text: parse (strict, which verifies), and for a program that parsed,
// print -> parse -> print must give the same program and the same text.
FuzzVerdict fuzz_dlf_round_trip(const uint8_t* data, size_t size);
// A worker's reply frame: decode_result throws std::runtime_error or returns a
// result whose tensors all lie inside the frame; re-encoding it decodes equal.
FuzzVerdict fuzz_wire_decode(const uint8_t* data, size_t size);
// A database file: Store opens it or throws StoreError, and everything that
// reads a store (bug list, report, JSON export, HTML page) reads it or throws.
FuzzVerdict fuzz_store_open(const uint8_t* data, size_t size);
// A shard file merged into a fresh store: merge_store merges it or throws
// StoreError, and a failed merge leaves the store as it was.
FuzzVerdict fuzz_merge_shard(const uint8_t* data, size_t size);

struct FuzzTarget {
  const char* name;
  FuzzVerdict (*check)(const uint8_t*, size_t);
};
// Every target, by the name its corpus and regression directories carry.
extern const FuzzTarget kFuzzTargets[4];

}  // namespace dlfuzz
