// Structural and type checking of a program. Run after every generate, parse,
// mutate and reduce step; the message names the offending node.
#pragma once
#include <string>

#include "generator/program.h"

namespace dlfuzz {

// Empty string when the program is well formed.
std::string verify(const Program& p);

}  // namespace dlfuzz
