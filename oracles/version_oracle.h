// The version oracle: one runner on an older and a newer environment (two
// PyTorch installs, or dlfuzz built against two LibTorch versions), each
// already judged against the eager of its own environment. A regression: the
// newer one has a finding where the older agreed with its reference; fixed:
// the reverse. Where either reference failed (the program is not valid on
// that version) there is no verdict.
#pragma once
#include <optional>
#include <string>

#include "oracles/finding.h"

namespace dlfuzz {

struct VersionSide {
  std::string runner;                // e.g. "inductor@system"
  std::string version;               // what it ran on, e.g. "torch 1.13.0a0 (/usr/bin/python3)"
  bool reference_ok = false;         // its own eager ran
  const Finding* finding = nullptr;  // its finding against that eager, if any
};

std::optional<Finding> check_version(const VersionSide& older, const VersionSide& newer);

}  // namespace dlfuzz
