// Files for the store and merge targets: a private directory (on /dev/shm
// when there is one: every input is written to disk), and a small store of
// every table, the seed of both corpora and the store a shard merges into.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace dlfuzz {

// This process's scratch directory, removed at exit.
const std::string& fuzz_scratch_dir();
// Writes `bytes` to `path`, first removing the file and its -wal/-shm/-journal
// companions, so each input starts from its own bytes alone.
void write_fresh_file(const std::string& path, const uint8_t* data, size_t size);
// A store with two campaigns, three programs, bugs (one reduced, one a
// duplicate, one a performance bug with its evidence), findings, throughput
// samples and an environment check, rolled out of WAL mode with 512-byte
// pages: a few KB, every table. (corpus/*/sample-v3.store: one of schema 3.)
void write_sample_store(const std::string& path);

}  // namespace dlfuzz
