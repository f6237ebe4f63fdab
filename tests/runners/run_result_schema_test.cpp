// The C++ side of the one description of a run result
// (runners/run_result_schema.json): what to_json and the wire encoder write,
// and what the decoder reads, are exactly the schema's fields and values.
// tests/python/test_result_schema.py checks the Python worker against it.
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "runners/run_result.h"
#include "runners/wire.h"

namespace dlfuzz {
namespace {

// The schema's fields (a copy: a range-for over a temporary's member would dangle).
nlohmann::json schema_fields() {
  std::ifstream f(std::string(DLFUZZ_SOURCE_DIR) + "/runners/run_result_schema.json");
  return nlohmann::json::parse(f).at("fields");
}

std::set<std::string> field_names(bool required_only) {
  std::set<std::string> s;
  for (const auto& f : schema_fields())
    if (!required_only || f["required"].get<bool>()) s.insert(f["name"].get<std::string>());
  return s;
}

std::set<std::string> keys(const nlohmann::json& j) {
  std::set<std::string> s;
  for (const auto& [k, _] : j.items()) s.insert(k);
  return s;
}

RunResult full_result() {
  RunResult r;
  r.runner = "ts";
  r.status = RunStatus::exception;
  r.stage = Stage::backward;
  r.error = "boom";
  r.losses = {1.5, NAN};
  HostTensor t;
  t.defined = true;
  t.shape = {2};
  t.bytes.assign(8, 0);
  r.outputs = {t};
  r.grads = {HostTensor{}};
  r.params = {t};
  r.versions = "torch 0 (test)";
  r.rank_digests = {{"a"}, {"b"}};
  r.features = {"node:aten::add"};
  r.call_ms = {0.5, 0.25};
  r.counters = {{"kernels", 2}};
  r.fake_errors = {"layer_norm: RuntimeError: boom"};
  r.config = "cpp.simdlen=0";
  r.profile = {{"ops", {{"aten::add", 0.1, 1}}}};
  return r;
}

TEST(RunResultSchema, JsonHasExactlyTheSchemasFields) {
  EXPECT_EQ(keys(to_json(full_result(), true)), field_names(false));
  EXPECT_EQ(keys(to_json(RunResult{}, true)), field_names(true)) << "optional fields are left out when empty";
}

TEST(RunResultSchema, EnumsMatch) {
  std::map<std::string, std::set<std::string>> values;
  for (const auto& f : schema_fields())
    if (f["type"] == "enum") values[f["name"]] = f["values"].get<std::set<std::string>>();
  std::set<std::string> statuses, stages;
  for (auto s : {RunStatus::ok, RunStatus::exception, RunStatus::crash, RunStatus::timeout, RunStatus::oom})
    statuses.insert(status_name(s));
  for (auto s :
       {Stage::none, Stage::setup, Stage::compile, Stage::run, Stage::backward, Stage::optimizer, Stage::collective})
    stages.insert(stage_name(s));
  EXPECT_EQ(values["status"], statuses);
  EXPECT_EQ(values["stage"], stages);
}

// A header with only the schema's defaults (what worker.py's new_result()
// builds from the same file) decodes to an empty ok result.
TEST(RunResultSchema, DefaultsDecode) {
  nlohmann::json header;
  for (const auto& f : schema_fields())
    if (f["required"].get<bool>()) header[f["name"].get<std::string>()] = f["default"];
  header["runner"] = "py-eager";
  std::string meta = header.dump();
  uint32_t n = meta.size();
  std::string payload(4, '\0');
  std::memcpy(payload.data(), &n, 4);
  RunResult r = decode_result(payload + meta);
  EXPECT_EQ(r.runner, "py-eager");
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.stage, Stage::none);
  EXPECT_TRUE(r.outputs.empty() && r.losses.empty());
}

TEST(RunResultSchema, WireRoundTripKeepsEveryField) {
  RunResult a = full_result();
  RunResult b = decode_result(encode_result(a));
  nlohmann::json ja = to_json(a, true), jb = to_json(b, true);
  // NaN does not compare equal to itself: compare the losses apart.
  ASSERT_EQ(jb["losses"].size(), 2u);
  EXPECT_TRUE(std::isnan(b.losses[1]));
  ja.erase("losses"), jb.erase("losses");
  EXPECT_EQ(ja, jb);
}

}  // namespace
}  // namespace dlfuzz
