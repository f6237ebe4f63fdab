// Structural mutations of a choice stream (the bytes ByteChoices reads), for
// coverage-guided fuzzing: the stream is cut where each op's decisions begin
// (Choices::mark_node), so a mutation removes, duplicates or replaces a whole
// op, or changes the prologue (training or not, size, the first input's dtype
// and shape) or one op's arguments; a splice joins the ops of one program to
// those of another. Same seed, same mutation.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "generator/gen_policy.h"

namespace dlfuzz {

// Byte-level fallback (libFuzzer's LLVMFuzzerMutate): mutates data[0, size)
// in place within max_size, returns the new size.
using ByteMutator = std::function<size_t(uint8_t* data, size_t size, size_t max_size)>;

// Where each op's decisions begin, as byte offsets inside the stream.
std::vector<size_t> op_cut_points(const std::vector<uint8_t>& bytes, const GenPolicy& policy);

std::vector<uint8_t> mutate_choices(std::vector<uint8_t> bytes, size_t max_size, unsigned seed, const GenPolicy& policy,
                                    const ByteMutator& fallback);
std::vector<uint8_t> splice_choices(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b, size_t max_size,
                                    unsigned seed, const GenPolicy& policy);

}  // namespace dlfuzz
