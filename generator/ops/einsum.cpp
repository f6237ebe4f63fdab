// einsum: an equation over 1-3 tensors. Generated as matmul-like and batched
// contractions, transposes, sums over some labels and outer products, with
// small dims; the type rule also takes repeated labels (diagonals, traces).
// Left out: the "..." ellipsis (broadcast dims), spaces in the equation, and
// size-1 dims broadcasting against a label's size (every dim of one label
// must have the same size here; PyTorch would broadcast a 1).
#include <algorithm>
#include <map>

#include "generator/ops/common.h"

namespace dlfuzz {
using namespace ops;

namespace {
bool is_label(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

std::string infer_einsum(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const Arg* eq_arg = n.arg("equation");
  const Arg* ts_arg = n.arg("tensors");
  if (!eq_arg || !std::holds_alternative<std::string>(eq_arg->value)) return "'equation' must be a string";
  if (!ts_arg || !std::holds_alternative<ValueList>(ts_arg->value)) return "'tensors' must be a list of tensors";
  const std::string& eq = std::get<std::string>(eq_arg->value);
  const std::vector<int>& ids = std::get<ValueList>(ts_arg->value).ids;
  if (ids.empty()) return "einsum needs at least one tensor";
  size_t arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow);
  // The operands' terms, split at commas.
  std::vector<std::string> terms(1);
  for (char c : lhs) {
    if (c == ',') terms.emplace_back();
    else if (is_label(c)) terms.back() += c;
    else return std::string("einsum: invalid character '") + c + "' in the equation (no '...' or spaces here)";
  }
  if (terms.size() != ids.size())
    return "einsum: the equation has " + std::to_string(terms.size()) + " operands but " + std::to_string(ids.size()) +
           " tensors were given";
  const OpSpec* s = find_op(n.op);
  DType dtype = p.type(ids[0]).dtype;
  std::map<char, int64_t> size;
  std::map<char, int> count;  // occurrences over all operands
  for (size_t i = 0; i < ids.size(); ++i) {
    const TensorType& t = p.type(ids[i]);
    if (s && !dtype_allowed(*s, t.dtype, p.target))
      return std::string("dtype ") + dtype_name(t.dtype) + " not supported by einsum";
    if (t.dtype != dtype) return "einsum: the operands must have one dtype";
    if (static_cast<int>(terms[i].size()) != t.rank())
      return "einsum: operand " + std::to_string(i) + " has " + std::to_string(t.rank()) + " dims but its term '" +
             terms[i] + "' names " + std::to_string(terms[i].size());
    for (size_t d = 0; d < terms[i].size(); ++d) {
      char l = terms[i][d];
      auto [it, fresh] = size.emplace(l, t.shape[d]);
      if (!fresh && it->second != t.shape[d])
        return std::string("einsum: label '") + l + "' has sizes " + std::to_string(it->second) + " and " +
               std::to_string(t.shape[d]);
      ++count[l];
    }
  }
  std::string rhs;
  if (arrow == std::string::npos) {
    // Implicit output: the labels seen once, in alphabetical order (A-Z, a-z).
    for (const auto& [l, k] : count)
      if (k == 1) rhs += l;
  } else {
    rhs = eq.substr(arrow + 2);
    for (size_t i = 0; i < rhs.size(); ++i) {
      char l = rhs[i];
      if (!is_label(l)) return std::string("einsum: invalid character '") + l + "' in the output";
      if (!size.count(l)) return std::string("einsum: output label '") + l + "' is not in any operand";
      if (rhs.find(l) != i) return std::string("einsum: output label '") + l + "' appears more than once";
    }
  }
  Shape shape;
  for (char l : rhs) shape.push_back(size[l]);
  out = {{dtype, shape}};
  return "";
}

// Labels start at a random letter so that equations differ in more than shape.
char label(int offset, int k) { return static_cast<char>('a' + (offset + k) % 26); }

bool gen_einsum(GenContext& g, const OpSpec& s, Node& n) {
  Choices& c = g.choices();
  auto small = [&](const TensorType& t) {
    if (!dtype_allowed(s, t.dtype, g.program().target) || t.rank() < 1 || t.rank() > 3 || t.numel() == 0) return false;
    return std::all_of(t.shape.begin(), t.shape.end(), [](int64_t d) { return d <= 8; });
  };
  auto v = g.first(small);
  if (!v) {
    if (g.focus()) return false;
    TensorType fresh{g.random_float_dtype(s.half_ok), g.random_shape(1, 3)};
    if (!small(fresh)) return false;
    v = g.new_input(fresh);
  }
  const TensorType x = g.program().type(*v);
  int offset = static_cast<int>(c.below(26));
  std::string labels;  // every label so far, in order of appearance
  std::vector<int64_t> sizes;
  std::vector<int> uses;
  std::vector<std::string> terms(1);
  for (int d = 0; d < x.rank(); ++d) {
    labels += label(offset, d);
    sizes.push_back(x.shape[d]);
    uses.push_back(1);
    terms[0] += labels.back();
  }
  std::vector<int> ids = {*v};
  // More operands: each shares some labels (contracted, or kept as a batch
  // dim) and brings some new ones (outer products).
  int more = c.weighted({3, 5, 2});
  for (int k = 0; k < more; ++k) {
    std::string term;
    Shape shape;
    int shared = static_cast<int>(c.range(0, std::min<int64_t>(2, labels.size())));
    for (int i = 0; i < shared; ++i) {
      size_t j = c.below(labels.size());
      if (term.find(labels[j]) != std::string::npos) continue;
      term += labels[j];
      shape.push_back(sizes[j]);
      ++uses[j];
    }
    int fresh = static_cast<int>(c.range(term.empty() ? 1 : 0, std::min<int64_t>(2, 3 - term.size())));
    for (int i = 0; i < fresh && labels.size() < 6; ++i) {
      labels += label(offset, static_cast<int>(labels.size()));
      sizes.push_back(c.range(1, 3));
      uses.push_back(1);
      term += labels.back();
      shape.push_back(sizes.back());
    }
    if (term.empty()) break;
    if (c.coin(0.3)) {  // a transposed operand: "ij,kj->ik"
      std::reverse(term.begin(), term.end());
      std::reverse(shape.begin(), shape.end());
    }
    TensorType t{x.dtype, shape};
    ids.push_back(c.coin(0.6) ? g.new_param(t, Init::uniform, -1, 1) : g.new_input(t));
    terms.push_back(term);
  }
  std::string eq;
  for (size_t i = 0; i < terms.size(); ++i) eq += (i ? "," : "") + terms[i];
  // The output keeps at most 4 dims (the policy's rank).
  int once = static_cast<int>(std::count(uses.begin(), uses.end(), 1));
  if (once > 4 || c.coin(0.8)) {
    // Labels of one operand are mostly kept, shared ones mostly summed over.
    std::string rhs;
    for (size_t j = 0; j < labels.size() && rhs.size() < 4; ++j)
      if (c.coin(uses[j] == 1 ? 0.8 : 0.3)) rhs += labels[j];
    if (rhs.size() > 1 && c.coin(0.3)) std::reverse(rhs.begin(), rhs.end());
    eq += "->" + rhs;
  }  // else the implicit output: the labels used once, sorted
  n.args = {{"equation", eq}, {"tensors", ValueList{ids}}};
  return true;
}
}  // namespace

void register_ops_einsum(std::vector<OpSpec>& ops) {
  OpSpec s;
  s.name = "einsum";
  s.family = "einsum";
  s.aten = "aten::einsum";
  s.params = {{"equation", ParamKind::str, false, true}, {"tensors", ParamKind::tensor_list, false, true}};
  s.infer = infer_einsum;
  s.generate = gen_einsum;
  s.float_only = true;
  s.half_ok = false;  // like mm: 1.13's CPU matmuls lack f16
  // One operand and no sum ("jk->kj", "ii->i") gives a view of it: never
  // written in place (a view of a leaf param is an autograd error).
  s.may_alias = true;
  s.python = "torch.einsum";
  ops.push_back(s);
}

}  // namespace dlfuzz
