#include <fmt/format.h>

#include <string>

#include "generator/infer_types.h"
#include "generator/mutators/mutators.h"

namespace dlfuzz {

namespace {

void collect(Block& b, std::vector<Arg*>& out) {
  for (auto& n : b.nodes) {
    for (auto& a : n.args)
      if (std::holds_alternative<double>(a.value) || std::holds_alternative<int64_t>(a.value) ||
          std::holds_alternative<bool>(a.value))
        out.push_back(&a);
    for (auto& inner : n.blocks) collect(inner, out);
  }
}

}  // namespace

bool change_attribute_mutator(Program& p, Choices& c, const GenPolicy&) {
  std::vector<Arg*> args;
  collect(p.body, args);
  if (args.empty()) return false;
  ArgValue& v = c.pick(args)->value;
  if (auto* d = std::get_if<double>(&v)) {
    // A scalar keeps its sign: a domain guard (add 0.5 after abs) stays one.
    double old = *d;
    // Three significant digits, as generation writes scalars (Choices::uniform).
    *d = old == 0 ? c.uniform(-1, 1) : std::stod(fmt::format("{:.3g}", old * c.uniform(0.5, 2)));
    if (*d == old) return false;
  } else if (auto* i = std::get_if<int64_t>(&v)) {
    *i += c.coin(0.5) ? c.range(1, 2) : -c.range(1, 2);  // dims, sizes, counts: near the old one
  } else {
    v = !std::get<bool>(v);
  }
  return infer_types(p).empty();
}

}  // namespace dlfuzz
