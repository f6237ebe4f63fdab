// What a long campaign holds, sampled with each throughput row: its own and
// its workers' resident memory, its open file descriptors and the store's
// size on disk. A soak (bench/soak.sh) reads growth from these columns.
// Linux only (/proc); elsewhere every field stays 0.
#pragma once
#include <cstdint>
#include <string>

namespace dlfuzz {

struct ResourceUsage {
  int64_t campaign_rss_kb = 0;
  int64_t workers_rss_kb = 0;  // every descendant process together
  int64_t workers = 0;         // how many descendants
  int64_t open_fds = 0;
  int64_t store_bytes = 0;  // the database file with its WAL
};

// This process's usage; the store at db_path (and db_path-wal) is measured.
ResourceUsage sample_resources(const std::string& db_path);

}  // namespace dlfuzz
