// Length-prefixed frames over pipes, and the compact encoding of RunResults
// that worker processes (C++ and Python) send back: a JSON header followed by
// the tensors' raw bytes.
#pragma once
#include <optional>
#include <string>

#include "runners/run_result.h"

namespace dlfuzz {

// Write one frame (u32 little-endian length + payload); false on a broken pipe.
bool write_frame(int fd, const std::string& payload);

enum class ReadStatus { ok, eof, timeout, error };
// Read one frame, waiting at most timeout_ms (< 0: forever).
ReadStatus read_frame(int fd, std::string& payload, int timeout_ms);

std::string encode_result(const RunResult& r);
// Throws std::runtime_error on a malformed payload.
RunResult decode_result(const std::string& payload);

}  // namespace dlfuzz
