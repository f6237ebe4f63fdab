#include "runners/run_result.h"

#include <cstring>

namespace dlfuzz {

int64_t HostTensor::numel() const {
  int64_t n = 1;
  for (auto d : shape) n = mul_saturating(n, d);
  return n;
}

namespace {
// IEEE half and bfloat16 to float, without a dependency.
float half_to_float(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) bits = sign;
    else {  // subnormal
      exp = 127 - 15 + 1;
      while (!(mant & 0x400)) mant <<= 1, --exp;
      bits = sign | (exp << 23) | ((mant & 0x3ff) << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
template <class T>
T load(const std::vector<uint8_t>& b, int64_t i) {
  T v;
  std::memcpy(&v, b.data() + i * sizeof(T), sizeof(T));
  return v;
}
}  // namespace

double HostTensor::at(int64_t i) const {
  switch (dtype) {
    case DType::f32: return load<float>(bytes, i);
    case DType::f64: return load<double>(bytes, i);
    case DType::f16: return half_to_float(load<uint16_t>(bytes, i));
    case DType::bf16: {
      uint32_t bits = static_cast<uint32_t>(load<uint16_t>(bytes, i)) << 16;
      float f;
      std::memcpy(&f, &bits, 4);
      return f;
    }
    case DType::i64: return static_cast<double>(load<int64_t>(bytes, i));
    case DType::i32: return load<int32_t>(bytes, i);
    case DType::i16: return load<int16_t>(bytes, i);
    case DType::i8: return load<int8_t>(bytes, i);
    case DType::u8: return load<uint8_t>(bytes, i);
    case DType::b8: return load<uint8_t>(bytes, i) ? 1 : 0;
    case DType::u16: return load<uint16_t>(bytes, i);
    case DType::u32: return load<uint32_t>(bytes, i);
    case DType::u64: return static_cast<double>(load<uint64_t>(bytes, i));  // as i64: exact below 2^53
  }
  return 0;
}

const char* status_name(RunStatus s) {
  switch (s) {
    case RunStatus::ok: return "ok";
    case RunStatus::exception: return "exception";
    case RunStatus::crash: return "crash";
    case RunStatus::timeout: return "timeout";
    case RunStatus::oom: return "oom";
  }
  return "?";
}

const char* stage_name(Stage s) {
  switch (s) {
    case Stage::none: return "none";
    case Stage::setup: return "setup";
    case Stage::compile: return "compile";
    case Stage::run: return "run";
    case Stage::backward: return "backward";
    case Stage::optimizer: return "optimizer";
    case Stage::collective: return "collective";
  }
  return "?";
}

nlohmann::json to_json(const HostTensor& t, bool with_values) {
  if (!t.defined) return nullptr;
  nlohmann::json j = {{"dtype", dtype_name(t.dtype)}, {"shape", t.shape}};
  if (with_values) {
    std::vector<double> v;
    for (int64_t i = 0; i < t.numel(); ++i) v.push_back(t.at(i));
    j["values"] = v;
  }
  return j;
}

nlohmann::json to_json(const RunResult& r, const std::function<nlohmann::json(const HostTensor&)>& tensor) {
  nlohmann::json j = {{"runner", r.runner},           {"status", status_name(r.status)},
                      {"stage", stage_name(r.stage)}, {"error", r.error},
                      {"losses", r.losses},           {"setup_ms", r.setup_ms},
                      {"run_ms", r.run_ms},           {"total_ms", r.total_ms},
                      {"versions", r.versions}};
  for (const char* key : {"outputs", "grads", "params"}) j[key] = nlohmann::json::array();
  for (const auto& t : r.outputs) j["outputs"].push_back(tensor(t));
  for (const auto& t : r.grads) j["grads"].push_back(tensor(t));
  for (const auto& t : r.params) j["params"].push_back(tensor(t));
  if (!r.rank_digests.empty()) j["rank_digests"] = r.rank_digests;
  if (!r.features.empty()) j["features"] = r.features;
  if (!r.call_ms.empty()) j["call_ms"] = r.call_ms;
  if (!r.counters.empty()) j["counters"] = r.counters;
  if (!r.fake_errors.empty()) j["fake_errors"] = r.fake_errors;
  if (!r.config.empty()) j["config"] = r.config;
  if (!r.profile.empty()) j["profile"] = r.profile;
  return j;
}

nlohmann::json to_json(const RunResult& r, bool with_values) {
  return to_json(r, [&](const HostTensor& t) { return to_json(t, with_values); });
}

RunResult failed_run(const std::string& runner, Stage stage, const std::string& error) {
  RunResult r;
  r.runner = runner;
  r.status = RunStatus::exception;
  r.stage = stage;
  r.error = error;
  return r;
}

}  // namespace dlfuzz
