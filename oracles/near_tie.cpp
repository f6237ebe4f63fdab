#include "oracles/near_tie.h"

#include <map>
#include <variant>

namespace dlfuzz {

namespace {
using Comparison = bool (*)(double, double);

// The comparison ops and what each computes (IEEE: NaN compares unequal).
const std::map<std::string, Comparison>& comparisons() {
  static const std::map<std::string, Comparison> table = {
      {"lt", [](double a, double b) { return a < b; }},  {"le", [](double a, double b) { return a <= b; }},
      {"gt", [](double a, double b) { return a > b; }},  {"ge", [](double a, double b) { return a >= b; }},
      {"eq", [](double a, double b) { return a == b; }}, {"ne", [](double a, double b) { return a != b; }}};
  return table;
}

// Element i of `out` read from `in` broadcast to it (dims aligned at the right).
int64_t broadcast_index(const Shape& out, const Shape& in, int64_t i) {
  int64_t index = 0, stride = 1;
  for (size_t d = 0; d < out.size(); ++d) {
    size_t od = out.size() - 1 - d;
    int64_t coord = i % out[od];
    i /= out[od];
    if (d >= in.size()) continue;
    int64_t size = in[in.size() - 1 - d];
    index += (size == 1 ? 0 : coord) * stride;
    stride *= size;
  }
  return index;
}

// An operand: a tensor of the run, or a number written in the program.
struct Operand {
  const HostTensor* tensor = nullptr;
  double number = 0;
  bool known = false;
  double at(const Shape& out, int64_t i) const {
    return tensor ? tensor->at(broadcast_index(out, tensor->shape, i)) : number;
  }
};

Operand operand_of(const Arg& a, const OperandLookup& lookup) {
  Operand o;
  if (const auto* r = std::get_if<ValueRef>(&a.value)) {
    o.tensor = lookup(r->id);
    o.known = o.tensor && o.tensor->defined;
  } else if (const auto* d = std::get_if<double>(&a.value)) {
    o.number = *d, o.known = true;
  } else if (const auto* k = std::get_if<int64_t>(&a.value)) {
    o.number = static_cast<double>(*k), o.known = true;
  } else if (const auto* b = std::get_if<bool>(&a.value)) {
    o.number = *b, o.known = true;
  }
  return o;
}
}  // namespace

bool follows_from_operands(const Node& n, const HostTensor& result, const OperandLookup& lookup) {
  auto it = comparisons().find(n.op);
  if (it == comparisons().end() || n.args.size() < 2 || !result.defined || result.dtype != DType::b8) return false;
  Operand a = operand_of(n.args[0], lookup), b = operand_of(n.args[1], lookup);
  if (!a.known || !b.known) return false;
  for (int64_t i = 0; i < result.numel(); ++i)
    if ((result.at(i) != 0) != it->second(a.at(result.shape, i), b.at(result.shape, i))) return false;
  return true;
}

}  // namespace dlfuzz
