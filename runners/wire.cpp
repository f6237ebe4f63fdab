#include "runners/wire.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace dlfuzz {

namespace {
bool write_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t k = ::write(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= static_cast<size_t>(k);
  }
  return true;
}

ReadStatus read_all(int fd, char* p, size_t n, std::chrono::steady_clock::time_point deadline, bool has_deadline) {
  while (n > 0) {
    int wait = -1;
    if (has_deadline) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return ReadStatus::timeout;
      wait = static_cast<int>(left.count());
    }
    pollfd pfd{fd, POLLIN, 0};
    int r = ::poll(&pfd, 1, wait);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return ReadStatus::error;
    if (r == 0) return ReadStatus::timeout;
    ssize_t k = ::read(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return ReadStatus::error;
    if (k == 0) return ReadStatus::eof;
    p += k;
    n -= static_cast<size_t>(k);
  }
  return ReadStatus::ok;
}

nlohmann::json tensor_meta(const HostTensor& t, std::string& blob) {
  if (!t.defined) return nullptr;
  nlohmann::json j = {
      {"dtype", dtype_name(t.dtype)}, {"shape", t.shape}, {"offset", blob.size()}, {"nbytes", t.bytes.size()}};
  blob.append(reinterpret_cast<const char*>(t.bytes.data()), t.bytes.size());
  return j;
}

// nlohmann converts a float to an integer with a cast, undefined past the
// integer's range: a size in a reply must be written as an integer.
int64_t integer_field(const nlohmann::json& v) {
  if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX)))
    throw std::runtime_error("tensor size in result is not an integer");
  return v.get<int64_t>();
}

size_t size_field(const nlohmann::json& v) {
  int64_t n = integer_field(v);
  if (n < 0) throw std::runtime_error("negative tensor size in result");
  return static_cast<size_t>(n);
}

HostTensor tensor_from(const nlohmann::json& j, const std::string& blob, size_t base) {
  HostTensor t;
  if (j.is_null()) return t;
  t.defined = true;
  auto dt = dtype_from_name(j.at("dtype").get<std::string>());
  if (!dt) throw std::runtime_error("unknown dtype in result");
  t.dtype = *dt;
  if (!j.at("shape").is_array()) throw std::runtime_error("tensor shape in result is not a list");
  for (const auto& d : j.at("shape")) t.shape.push_back(integer_field(d));
  // A reply is untrusted bytes (a worker may die mid-write): every size is
  // checked without overflow before it is used.
  size_t bytes = dtype_size(t.dtype);
  for (auto d : t.shape)
    if (d < 0 || __builtin_mul_overflow(bytes, static_cast<size_t>(d), &bytes))
      throw std::runtime_error("impossible tensor shape in result");
  if (size_bound(t.shape) > kMaxElements) throw std::runtime_error("impossible tensor shape in result");
  size_t off = size_field(j.at("offset")), n = size_field(j.at("nbytes"));
  if (base > blob.size() || off > blob.size() - base || n > blob.size() - base - off)
    throw std::runtime_error("tensor bytes out of range in result");
  if (n != bytes) throw std::runtime_error("tensor bytes do not match its shape in result");
  t.bytes.assign(blob.begin() + base + off, blob.begin() + base + off + n);
  return t;
}
}  // namespace

bool write_frame(int fd, const std::string& payload) {
  uint32_t n = static_cast<uint32_t>(payload.size());
  char len[4];
  std::memcpy(len, &n, 4);
  return write_all(fd, len, 4) && write_all(fd, payload.data(), payload.size());
}

ReadStatus read_frame(int fd, std::string& payload, int timeout_ms) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  char len[4];
  ReadStatus s = read_all(fd, len, 4, deadline, timeout_ms >= 0);
  if (s != ReadStatus::ok) return s;
  uint32_t n;
  std::memcpy(&n, len, 4);
  payload.resize(n);
  return read_all(fd, payload.data(), n, deadline, timeout_ms >= 0);
}

std::string encode_result(const RunResult& r) {
  std::string blob;
  nlohmann::json j = to_json(r, [&](const HostTensor& t) { return tensor_meta(t, blob); });
  // An error text is any bytes a compiler printed: not-UTF-8 becomes U+FFFD
  // rather than an exception in the worker.
  std::string meta = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  uint32_t n = static_cast<uint32_t>(meta.size());
  std::string out(4, '\0');
  std::memcpy(out.data(), &n, 4);
  return out + meta + blob;
}

RunResult decode_result(const std::string& payload) {
  if (payload.size() < 4) throw std::runtime_error("short result frame");
  uint32_t n;
  std::memcpy(&n, payload.data(), 4);
  if (4 + size_t(n) > payload.size()) throw std::runtime_error("truncated result header");
  nlohmann::json j = nlohmann::json::parse(payload.substr(4, n));
  size_t base = 4 + n;
  RunResult r;
  r.runner = j.at("runner").get<std::string>();
  std::string status = j.at("status").get<std::string>(), stage = j.at("stage").get<std::string>();
  for (auto s : {RunStatus::ok, RunStatus::exception, RunStatus::crash, RunStatus::timeout, RunStatus::oom})
    if (status == status_name(s)) r.status = s;
  for (auto s :
       {Stage::none, Stage::setup, Stage::compile, Stage::run, Stage::backward, Stage::optimizer, Stage::collective})
    if (stage == stage_name(s)) r.stage = s;
  r.error = j.value("error", "");
  for (const auto& l : j.at("losses")) r.losses.push_back(l.is_null() ? NAN : l.get<double>());
  r.setup_ms = j.value("setup_ms", 0.0);
  r.run_ms = j.value("run_ms", 0.0);
  r.total_ms = j.value("total_ms", 0.0);
  r.versions = j.value("versions", "");
  for (const auto& t : j.at("outputs")) r.outputs.push_back(tensor_from(t, payload, base));
  for (const auto& t : j.at("grads")) r.grads.push_back(tensor_from(t, payload, base));
  for (const auto& t : j.at("params")) r.params.push_back(tensor_from(t, payload, base));
  if (j.contains("rank_digests")) r.rank_digests = j["rank_digests"].get<std::vector<std::vector<std::string>>>();
  if (j.contains("features")) r.features = j["features"].get<std::vector<std::string>>();
  if (j.contains("call_ms")) r.call_ms = j["call_ms"].get<std::vector<double>>();
  if (j.contains("counters")) r.counters = j["counters"].get<std::map<std::string, double>>();
  if (j.contains("fake_errors")) r.fake_errors = j["fake_errors"].get<std::vector<std::string>>();
  r.config = j.value("config", "");
  if (j.contains("profile") && j["profile"].is_object()) r.profile = j["profile"];
  return r;
}

}  // namespace dlfuzz
