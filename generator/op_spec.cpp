#include "generator/op_spec.h"

#include <map>

#include "generator/autocast.h"
#include "generator/wide_unsigned.h"

namespace dlfuzz {

#define OP_FAMILY(name) void register_ops_##name(std::vector<OpSpec>& ops);
#include "generator/ops/families.def"
#undef OP_FAMILY

const ParamSpec* OpSpec::param(const std::string& n) const {
  for (const auto& p : params)
    if (p.name == n) return &p;
  return nullptr;
}

const std::vector<OpSpec>& all_ops() {
  static const std::vector<OpSpec> ops = [] {
    std::vector<OpSpec> v;
#define OP_FAMILY(name) register_ops_##name(v);
#include "generator/ops/families.def"
#undef OP_FAMILY
    return v;
  }();
  return ops;
}

std::string infer_node(const OpSpec& s, const Program& p, const Node& n, std::vector<TensorType>& out) {
  if (s.torch2_only && p.target != Target::torch2) return n.op + " needs target=torch2 (PyTorch 1.13 has no such op)";
  // Operands first (the clearer message), then results (a factory's dtype).
  if (auto e = check_wide_unsigned(s, p, n, {}); !e.empty()) return e;
  if (auto e = infer_under_autocast(s, p, n, out); !e.empty()) return e;
  return check_wide_unsigned(s, p, n, out);
}

std::string out_of_place_name(const std::string& op) {
  return !op.empty() && op.back() == '_' ? op.substr(0, op.size() - 1) : op;
}

const OpSpec* find_op(const std::string& name) {
  static const std::map<std::string, const OpSpec*> index = [] {
    std::map<std::string, const OpSpec*> m;
    for (const auto& s : all_ops()) m[s.name] = &s;
    return m;
  }();
  auto it = index.find(name);
  return it == index.end() ? nullptr : it->second;
}

bool is_collective(const OpSpec& s) { return s.family == "collective" || s.family == "tensor_parallel"; }

std::vector<std::string> op_families() {
  std::vector<std::string> v;
#define OP_FAMILY(name) v.push_back(#name);
#include "generator/ops/families.def"
#undef OP_FAMILY
  return v;
}

namespace infer_util {

const TensorType* tensor_arg(const Program& p, const Node& n, const std::string& name) {
  const Arg* a = n.arg(name);
  if (!a) return nullptr;
  if (auto* r = std::get_if<ValueRef>(&a->value); r && !r->item) return &p.type(r->id);
  return nullptr;
}

int64_t int_arg(const Node& n, const std::string& name, int64_t dflt) {
  const Arg* a = n.arg(name);
  if (!a) return dflt;
  if (auto* v = std::get_if<int64_t>(&a->value)) return *v;
  if (auto* b = std::get_if<bool>(&a->value)) return *b;
  return dflt;
}

double float_arg(const Node& n, const std::string& name, double dflt) {
  const Arg* a = n.arg(name);
  if (!a) return dflt;
  if (auto* v = std::get_if<double>(&a->value)) return *v;
  if (auto* i = std::get_if<int64_t>(&a->value)) return static_cast<double>(*i);
  return dflt;
}

bool bool_arg(const Node& n, const std::string& name, bool dflt) {
  const Arg* a = n.arg(name);
  if (!a) return dflt;
  if (auto* v = std::get_if<bool>(&a->value)) return *v;
  return dflt;
}

const IntList* int_list_arg(const Node& n, const std::string& name) {
  const Arg* a = n.arg(name);
  return a ? std::get_if<IntList>(&a->value) : nullptr;
}

std::string str_arg(const Node& n, const std::string& name, const std::string& dflt) {
  const Arg* a = n.arg(name);
  if (!a) return dflt;
  if (auto* s = std::get_if<std::string>(&a->value)) return *s;
  return dflt;
}

bool broadcast(const Shape& a, const Shape& b, Shape& out) {
  size_t r = std::max(a.size(), b.size());
  out.assign(r, 1);
  for (size_t i = 0; i < r; ++i) {
    int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
    if (da != db && da != 1 && db != 1) return false;
    out[i] = da == 1 ? db : da;
  }
  return true;
}

bool wrap_dim(int64_t& dim, int rank) {
  int64_t r = rank == 0 ? 1 : rank;
  if (dim < -r || dim >= r) return false;
  if (dim < 0) dim += r;
  return true;
}

ScalarKind scalar_kind_of(DType t) {
  return is_float(t) ? ScalarKind::floating : is_bool(t) ? ScalarKind::boolean : ScalarKind::integer;
}

ScalarKind scalar_kind(const ArgValue& v) {
  if (std::holds_alternative<double>(v)) return ScalarKind::floating;
  if (std::holds_alternative<int64_t>(v)) return ScalarKind::integer;
  if (std::holds_alternative<bool>(v)) return ScalarKind::boolean;
  return ScalarKind::none;
}

std::optional<DType> promoted(const Program& p, const Node& n, const std::vector<std::string>& names) {
  ResultType rt;
  for (const auto& name : names) {
    const Arg* a = n.arg(name);
    if (!a) continue;
    auto* r = std::get_if<ValueRef>(&a->value);
    if (r && r->item) rt.add_scalar(scalar_kind_of(p.type(r->id).dtype));  // a Python number, as .item() gives
    else if (r) rt.add_tensor(p.type(r->id).dtype, p.type(r->id).rank());
    else rt.add_scalar(scalar_kind(a->value));
  }
  if (!rt.valid()) return std::nullopt;
  return rt.result();
}

}  // namespace infer_util
}  // namespace dlfuzz
