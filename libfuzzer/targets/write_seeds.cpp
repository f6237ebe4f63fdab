// Writes the seed corpora of the fuzz targets (libfuzzer/corpus/TARGET/):
//   build-fuzz/fuzz-write-seeds libfuzzer/corpus
// dlf: generated programs (small policy: short lines mutate well); wire: the
// encodings of results with every kind of field; store and merge: the sample
// store. Deterministic: rerunning rewrites the same files.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>

#include "generator/dlf.h"
#include "generator/generator.h"
#include "libfuzzer/targets/store_files.h"
#include "runners/wire.h"

namespace fs = std::filesystem;
using namespace dlfuzz;

namespace {
void write(const fs::path& p, const std::string& bytes) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << bytes;
}

HostTensor tensor(DType dt, Shape shape) {
  HostTensor t;
  t.defined = true;
  t.dtype = dt;
  t.shape = shape;
  t.bytes.assign(static_cast<size_t>(t.numel()) * dtype_size(dt), 0x3f);
  return t;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: fuzz-write-seeds CORPUS_DIR\n";
    return 2;
  }
  fs::path dir = argv[1];
  GenPolicy policy;
  policy.min_nodes = 3;
  policy.max_nodes = 8;
  for (uint64_t seed = 1; seed <= 12; ++seed)
    write(dir / "dlf" / fmt::format("gen-{}.dlf", seed), print_program(generate_program(policy, seed)));

  RunResult ok;
  ok.runner = "ts-nnc";
  ok.outputs = {tensor(DType::f32, {2, 3}), tensor(DType::i64, {}), tensor(DType::f16, {4})};
  ok.losses = {0.5, NAN};
  ok.grads = {tensor(DType::bf16, {3}), HostTensor{}};
  ok.params = {tensor(DType::f64, {1, 1})};
  ok.setup_ms = 1.5;
  ok.versions = "torch 1.13.1 (debian)";
  ok.rank_digests = {{"ab", "cd"}, {"ab", "ce"}};
  ok.features = {"fusion:aten::relu", "guard:f32"};
  write(dir / "wire" / "ok.bin", encode_result(ok));
  write(dir / "wire" / "failed.bin",
        encode_result(failed_run("frozen", Stage::compile, "RuntimeError: \"bad\" <input>\n at line 3")));
  RunResult bools;
  bools.runner = "eager";
  bools.outputs = {tensor(DType::b8, {5}), tensor(DType::u8, {2, 2}), tensor(DType::i8, {3}), tensor(DType::i16, {2}),
                   tensor(DType::i32, {0, 4})};
  write(dir / "wire" / "dtypes.bin", encode_result(bools));

  for (const char* target : {"store", "merge"}) {
    fs::create_directories(dir / target);
    write_sample_store((dir / target / "sample.store").string());
  }
  std::cout << "seeds written under " << dir.string() << "\n";
  return 0;
}
