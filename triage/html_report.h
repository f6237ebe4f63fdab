// `dlfuzz triage html`: one self-contained page (no network, no scripts): the
// bug table, findings and unique bugs over time, and throughput over time, as
// inline SVG.
#pragma once
#include <string>

#include "triage/store.h"

namespace dlfuzz {

std::string html_report(Store& store);

}  // namespace dlfuzz
