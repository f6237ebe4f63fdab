// Golden test of the dedup key on real error texts from LibTorch 1.13 and
// PyTorch 2.15 (collected from campaigns; each group is one bug, judged by
// reading its reduced repro): the same bug must normalize to one text, two
// different bugs to two.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <set>

#include "oracles/finding.h"

namespace dlfuzz {

TEST(Signature, RealErrorTextsSameBugSameKeyDifferentBugsDifferentKeys) {
  std::ifstream in(std::string(DLFUZZ_SOURCE_DIR) + "/tests/oracles/real_error_texts.json");
  ASSERT_TRUE(in) << "missing tests/oracles/real_error_texts.json";
  nlohmann::json groups = nlohmann::json::parse(in);
  ASSERT_GE(groups.size(), 10u);
  std::map<std::string, std::string> key_of_bug;
  for (const auto& [bug, texts] : groups.items()) {
    std::set<std::string> keys;
    for (const auto& t : texts) keys.insert(normalize_error(t.get<std::string>()));
    EXPECT_EQ(keys.size(), 1u) << bug << " splits into " << keys.size() << " keys, e.g. " << *keys.begin() << " / "
                               << *keys.rbegin();
    key_of_bug[bug] = *keys.begin();
  }
  std::map<std::string, std::string> bug_of_key;
  for (const auto& [bug, key] : key_of_bug) {
    auto [it, fresh] = bug_of_key.emplace(key, bug);
    EXPECT_TRUE(fresh) << "'" << bug << "' and '" << it->second << "' merge into one key: " << key;
  }
}

TEST(Signature, WrappedCompilerErrorsNameTheInnerError) {
  // The Python worker appends the wrapped exception to BackendCompilerFailed.
  std::string a = "BackendCompilerFailed: backend='inductor' raised: LoweringException: AssertionError: x";
  std::string b = "BackendCompilerFailed: backend='inductor' raised: CppCompileError: C++ compile error";
  EXPECT_NE(normalize_error(a), normalize_error(b));
}

TEST(Signature, StripsDtypeNamesAndShapesOfAnyRank) {
  EXPECT_EQ(normalize_error("result type Float can't be cast to the desired output type Long"),
            normalize_error("result type Half can't be cast to the desired output type Byte"));
  EXPECT_EQ(normalize_error("modified by an inplace operation: [CPUFloatType [1, 4]]"),
            normalize_error("modified by an inplace operation: [CPUDoubleType [2, 3, 5]]"));
  EXPECT_EQ(normalize_error("Expected out tensor to have dtype float, but got double instead"),
            "Expected out tensor to have dtype DTYPE, but got DTYPE instead");
  // Words that merely start like a dtype name stay.
  EXPECT_EQ(normalize_error("Integer overflow in Boolean mask"), "Integer overflow in Boolean mask");
}

TEST(Signature, WithoutRanksIsTheSameBugAtWorldOne) {
  EXPECT_EQ(signature_without_ranks("numeric|eager@1|ts-nnc|output|"), "numeric|eager|ts-nnc|output|");
  EXPECT_EQ(signature_without_ranks("status|eager@1|ts|backward|exception: rank N: element N of tensors"),
            "status|eager|ts|backward|exception: element N of tensors");
  EXPECT_EQ(signature_without_ranks("status|eager|ts|run|exception: boom"), "status|eager|ts|run|exception: boom");
  EXPECT_NE(signature_without_ranks("numeric|eager@1|ts|output|"),
            signature_without_ranks("numeric|eager@cpu|ts|output|"));
}

TEST(Signature, WithoutRunnersIsTheSameBugOnAnotherEnvironment) {
  EXPECT_EQ(signature_without_runners("status|eager@build-pip|ts@build-pip|run|exception: a|b"),
            "status|run|exception: a|b");
  EXPECT_EQ(signature_without_runners(signature_without_runners("numeric|eager|ts|output|")), "numeric|output|")
      << "the runners are gone, and a signature without them is left alone";
}

// The store's key adds the ladder's layer and the first diverging op; the
// reducer and retest compare the base, which a fresh finding's signature()
// gives.
TEST(Signature, BugSignatureRefinesAndBaseSignatureUndoes) {
  Finding f{"numeric", "eager", "ts-nnc", "output", "max abs diff 1", ""};
  EXPECT_EQ(f.bug_signature(), f.signature()) << "nothing located, no ladder: the signature as is";
  f.first_op = "frac";
  f.layer = "TorchScript NNC fuser";  // a runner's own layer: no ladder ran, not added
  EXPECT_EQ(f.bug_signature(), "numeric|eager|ts-nnc|output||first=frac");
  Finding g = f;
  g.first_op = "round";
  EXPECT_NE(f.bug_signature(), g.bug_signature()) << "two ops, two bugs";
  Finding h{"status", "py-eager", "inductor", "compile", "", "exception: boom|x"};
  h.layer = "AOTAutograd decompositions";
  h.ablation = nlohmann::json::array();
  EXPECT_EQ(h.bug_signature(), "status|py-eager|inductor|compile|exception: boom|x|layer=AOTAutograd decompositions");
  for (const Finding* x : {&f, &g, &h}) EXPECT_EQ(base_signature(x->bug_signature()), x->signature());
  EXPECT_EQ(base_signature("numeric|eager|ts|output|"), "numeric|eager|ts|output|");
}

}  // namespace dlfuzz
