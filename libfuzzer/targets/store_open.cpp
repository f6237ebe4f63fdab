#include "libfuzzer/targets/fuzz_checks.h"
#include "libfuzzer/targets/store_files.h"
#include "triage/html_report.h"
#include "triage/report.h"
#include "triage/store.h"

namespace dlfuzz {

FuzzVerdict fuzz_store_open(const uint8_t* data, size_t size) {
  std::string path = fuzz_scratch_dir() + "/store.db";
  write_fresh_file(path, data, size);
  // What `triage list|show|report|export|html` do with a store, under the
  // handler they all share (cli/cmd_triage.cpp: with_store catches StoreError).
  try {
    Store s(path);
    for (const auto& b : s.bugs()) {
      s.env_checks(b.id);
      if (auto d = load_bug(s, b.id)) markdown_report(*d, path);
    }
    export_json_text(s);
    html_report(s);
  } catch (const StoreError&) {
    return std::nullopt;
  } catch (const std::exception& e) {
    return std::string("reading a damaged store threw something other than StoreError: ") + e.what();
  }
  return std::nullopt;
}

}  // namespace dlfuzz
