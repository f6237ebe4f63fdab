#include "libfuzzer/targets/store_files.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "triage/store.h"

namespace fs = std::filesystem;

namespace dlfuzz {

namespace {
struct ScratchDir {
  std::string path;
  ScratchDir() {
    std::string base = fs::is_directory("/dev/shm") ? "/dev/shm" : fs::temp_directory_path().string();
    std::string tmpl = base + "/dlfuzz-fuzz-XXXXXX";
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed under " + base);
    path = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};
}  // namespace

const std::string& fuzz_scratch_dir() {
  static ScratchDir dir;
  return dir.path;
}

void write_fresh_file(const std::string& path, const uint8_t* data, size_t size) {
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) std::remove((path + suffix).c_str());
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
}

void write_sample_store(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) std::remove((path + suffix).c_str());
  {
    Store s(path);
    int64_t c1 = s.begin_campaign(R"({"seed":1})", "torch 1.13.1 (debian)");
    std::string p1 = s.add_program(
        "dlfuzz 1 seed=1 policy=0000000000000000 mode=infer device=cpu world=1 plan=none\n"
        "input %x0 : f32[2,3] range(-1,1)\n"
        "%1 : f32[2,3] = relu %x0\n"
        "return %1\n",
        1, 1);
    std::string p2 = s.add_program("dlfuzz 1 seed=2\nreturn\n", 2, 0);  // no longer parses: kept as text
    Finding status;
    status.oracle = "status";
    status.ref_runner = "eager";
    status.test_runner = "ts-nnc";
    status.stage = "compile";
    status.detail = "RuntimeError: <bad> & \"quoted\"";
    status.error_text = "RuntimeError: <bad>";
    Finding numeric;
    numeric.oracle = "numeric";
    numeric.ref_runner = "eager";
    numeric.test_runner = "frozen";
    numeric.stage = "run";
    numeric.detail = "max abs diff 0.5 at [1, 2]";
    numeric.error_text = "";
    int64_t bug = s.add_finding(c1, p1, status, "torch 1.13.1 (debian)");
    s.add_finding(c1, p2, numeric, "torch 1.13.1 (debian)");
    s.sample_throughput(c1, 10, 2, 2);
    s.end_campaign(c1, 10, 2);
    int64_t c2 = s.begin_campaign("{}", "torch 2.15.0");
    Finding again = status;
    again.test_runner = "ts";
    int64_t dup = s.add_finding(c2, p1, again, "torch 2.15.0");
    std::string reduced = s.add_program("dlfuzz 1 seed=1\nreturn\n", 1, 0);
    s.record_reduction(bug, reduced, "relu");
    s.record_reduction(dup, reduced, "relu");
    s.record_env_check(bug, "venv", "torch 2.15.0", true);
    Finding slow;
    slow.oracle = "performance";
    slow.ref_runner = "eager";
    slow.test_runner = "inductor";
    slow.stage = "slower";
    slow.detail = "inductor 1.50x the time of eager";
    slow.error_text = "hot: mm";
    slow.kind = FindingKind::performance;
    nlohmann::json estimate = {{"pairs", 20},    {"ratio", 1.5},         {"ci_low", 1.3},
                               {"ci_high", 1.7}, {"ref_median_ms", 0.2}, {"test_median_ms", 0.3}};
    slow.evidence = {{"kind", "slower"},
                     {"threshold", 0.2},
                     {"first", estimate},
                     {"second", estimate},
                     {"counters", {{"inductor.kernels", 2}}},
                     {"ref_profile", {{"ops", {{"aten::mm", 0.1, 1}}}, {"trace", "/tmp/ref <trace>.json"}}},
                     {"test_profile", {{"ops", {{"triton_<b>|mm", 0.2, 2}}}}}};
    s.add_finding(c2, p1, slow, "torch 2.15.0");
    s.sample_throughput(c2, 5, 1, 1);
    s.db().exec("PRAGMA journal_mode=DELETE");
    s.db().exec("PRAGMA page_size=512");
    s.db().exec("VACUUM");
  }
  for (const char* suffix : {"-wal", "-shm", "-journal"}) std::remove((path + suffix).c_str());
}

}  // namespace dlfuzz
