#include "libfuzzer/targets/fuzz_checks.h"

namespace dlfuzz {

const FuzzTarget kFuzzTargets[4] = {
    {"dlf", fuzz_dlf_round_trip},
    {"wire", fuzz_wire_decode},
    {"store", fuzz_store_open},
    {"merge", fuzz_merge_shard},
};

}  // namespace dlfuzz
