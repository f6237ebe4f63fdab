#include <fmt/format.h>

#include "libfuzzer/targets/fuzz_checks.h"
#include "runners/wire.h"

namespace dlfuzz {

namespace {
FuzzVerdict check_tensors(const std::vector<HostTensor>& ts, const char* what) {
  for (const auto& t : ts) {
    if (!t.defined) continue;
    for (auto d : t.shape)
      if (d < 0) return fmt::format("decoded {} tensor has a negative dimension", what);
    if (t.bytes.size() != static_cast<size_t>(t.numel()) * dtype_size(t.dtype))
      return fmt::format("decoded {} tensor holds {} bytes for {} elements", what, t.bytes.size(), t.numel());
    for (int64_t i = 0; i < t.numel(); ++i) t.at(i);  // what the oracles do with it
  }
  return std::nullopt;
}
}  // namespace

FuzzVerdict fuzz_wire_decode(const uint8_t* data, size_t size) {
  std::string payload(reinterpret_cast<const char*>(data), size);
  // The worker's side: an error text of any bytes is sent and arrives.
  try {
    RunResult failed = failed_run("fuzz", Stage::compile, payload);
    if (decode_result(encode_result(failed)).error.size() < payload.size())
      return "an error text lost bytes over the wire";
  } catch (const std::exception& e) {
    return std::string("a result whose error text is arbitrary bytes does not encode and decode: ") + e.what();
  }
  RunResult r;
  try {
    r = decode_result(payload);
  } catch (const std::exception&) {
    return std::nullopt;  // the worker client reports a malformed reply as a failed run
  }
  for (auto [ts, what] : {std::pair{&r.outputs, "output"}, {&r.grads, "grad"}, {&r.params, "param"}})
    if (auto bad = check_tensors(*ts, what)) return bad;
  std::string encoded = encode_result(r);
  RunResult again;
  try {
    again = decode_result(encoded);
  } catch (const std::exception& e) {
    return std::string("a decoded result does not decode after encoding: ") + e.what();
  }
  if (encode_result(again) != encoded) return "encode(decode(encode(r))) != encode(r)";
  return std::nullopt;
}

}  // namespace dlfuzz
