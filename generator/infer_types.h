// Recompute every node's output types from its op's type rule, after inputs
// changed type (the reducer shrinking a dim, a shard of another size, a world
// size changed). Returns "" or the first error; on error some types are stale
// and verify() rejects the program.
#pragma once
#include <string>

#include "generator/program.h"

namespace dlfuzz {

std::string infer_types(Program& p);

}  // namespace dlfuzz
