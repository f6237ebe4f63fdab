// Folding shard stores (from other machines or lanes) into one: programs by
// content hash, bugs by signature (hits summed, first/last seen widened),
// findings and campaigns copied with their ids remapped, eager's rejections by
// reference and reason (hits summed).
#pragma once
#include <string>

#include "triage/store.h"

namespace dlfuzz {

struct MergeStats {
  int64_t campaigns = 0, programs = 0, findings = 0, new_bugs = 0, merged_bugs = 0, rejections = 0;
};

// One transaction per shard. The shard is only read (an older schema is first
// migrated in place, like any store dlfuzz opens).
MergeStats merge_store(Store& into, const std::string& shard_path);

}  // namespace dlfuzz
