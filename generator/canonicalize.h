// Renumber a program's values into textual order (inputs, then each node's
// outputs, a loop's parameters, nested nodes, ...) and name node values %1,
// %2, ... in that order, so printing and parsing give back the same Program.
#pragma once
#include "generator/program.h"

namespace dlfuzz {

void canonicalize(Program& p);

}  // namespace dlfuzz
