#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "libfuzzer/targets/fuzz_checks.h"
#include "libfuzzer/targets/store_files.h"
#include "triage/merge.h"

namespace dlfuzz {

namespace {
std::string row_counts(Store& s) {
  std::string out;
  for (const char* table : {"campaigns", "programs", "bugs", "findings", "bug_envs"})
    out += fmt::format("{}={} ", table, s.count(table));
  auto hits = s.db().prepare("SELECT coalesce(sum(hits), 0) FROM bugs");
  hits.step();
  return out + fmt::format("hits={}", hits.column_int(0));
}
}  // namespace

FuzzVerdict fuzz_merge_shard(const uint8_t* data, size_t size) {
  const std::string& dir = fuzz_scratch_dir();
  // The store merged into already holds the sample store's bugs, so a shard
  // made from the seed takes the "same signature" path as well as the new one.
  // Its bytes are kept and written for each input: std::filesystem::copy_file
  // (sendfile) failed with EINTR when libFuzzer's timer signal came during it.
  static const std::string tmpl = [&] {
    std::string p = dir + "/into-template.db";
    write_sample_store(p);
    std::ifstream in(p, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
  }();
  std::string into_path = dir + "/into.db", shard_path = dir + "/shard.db";
  write_fresh_file(into_path, reinterpret_cast<const uint8_t*>(tmpl.data()), tmpl.size());
  write_fresh_file(shard_path, data, size);
  Store into(into_path);
  std::string before = row_counts(into);
  try {
    merge_store(into, shard_path);
  } catch (const StoreError&) {
    // cli/cmd_triage.cpp reports it and stops; the merged store must be untouched.
    std::string after = row_counts(into);
    if (after != before) return "a failed merge changed the store: " + before + " -> " + after;
    return std::nullopt;
  } catch (const std::exception& e) {
    return std::string("merging a damaged shard threw something other than StoreError: ") + e.what();
  }
  auto check = into.db().prepare("PRAGMA integrity_check");
  if (!check.step() || check.column_text(0) != "ok") return "the merged store fails integrity_check";
  return std::nullopt;
}

}  // namespace dlfuzz
