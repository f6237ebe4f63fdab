// Program surgery shared by the reducer passes. A pass edits a copy of the
// program freely; the driver then tidies and verifies it, so these helpers may
// leave a program invalid (verify() rejects it) but never crash on one that
// was valid before the edit.
#pragma once
#include <map>
#include <set>
#include <vector>

#include "generator/program.h"

namespace dlfuzz::reduce {

// Every node of a block and its nested blocks, outermost first (the order in
// which passes number their targets).
std::vector<Node*> all_nodes(Block& b);

// (substitute and resolve, which passes use too, are in generator/program.h.)

// Remove the given nodes (by address) wherever they are nested.
void erase_nodes(Block& b, const std::set<const Node*>& drop);

// Canonical numbering, and the value table cut to the values still defined:
// removed nodes leave orphan values whose names would clash after renaming.
void tidy(Program& p);

// Keep only the nodes the outputs and the loss depend on, in-place writes to
// live tensors included.
void remove_dead_nodes(Program& p);

// True when any node, yield or the loss reads `id`.
bool is_used(const Program& p, int id);

}  // namespace dlfuzz::reduce
