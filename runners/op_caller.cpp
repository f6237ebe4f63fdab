#include "runners/op_caller.h"

#include <torch/csrc/jit/runtime/operator.h>

#include <stdexcept>

#include "generator/op_spec.h"
#include "runners/aten_types.h"

namespace dlfuzz {

namespace {

using c10::TypeKind;

// Can a dlfuzz argument value bind to a schema argument of this type?
bool binds(const c10::TypePtr& type_in, const ArgValue& v) {
  c10::TypePtr type = type_in;
  if (type->kind() == TypeKind::OptionalType) {
    if (std::holds_alternative<None>(v)) return true;
    type = type->expectRef<c10::OptionalType>().getElementType();
  }
  switch (type->kind()) {
    case TypeKind::TensorType: return std::holds_alternative<ValueRef>(v) && !std::get<ValueRef>(v).item;
    case TypeKind::NumberType:
      return std::holds_alternative<int64_t>(v) || std::holds_alternative<double>(v) || std::holds_alternative<bool>(v) ||
             (std::holds_alternative<ValueRef>(v) && std::get<ValueRef>(v).item);
    case TypeKind::IntType:
      return std::holds_alternative<int64_t>(v) || std::holds_alternative<DType>(v) ||
             std::holds_alternative<MemFormat>(v);
    case TypeKind::FloatType: return std::holds_alternative<double>(v) || std::holds_alternative<int64_t>(v);
    case TypeKind::BoolType: return std::holds_alternative<bool>(v);
    case TypeKind::StringType: return std::holds_alternative<std::string>(v);
    case TypeKind::ScalarTypeType: return std::holds_alternative<DType>(v);
    case TypeKind::MemoryFormatType: return std::holds_alternative<MemFormat>(v);
    case TypeKind::ListType: {
      auto elem = type->expectRef<c10::ListType>().getElementType();
      if (elem->kind() == TypeKind::OptionalType) elem = elem->expectRef<c10::OptionalType>().getElementType();
      if (elem->kind() == TypeKind::TensorType) return std::holds_alternative<ValueList>(v);
      if (elem->kind() == TypeKind::IntType)
        return std::holds_alternative<IntList>(v) || std::holds_alternative<int64_t>(v);
      return false;
    }
    default: return false;
  }
}

c10::IValue to_ivalue(const c10::TypePtr& type_in, const ArgValue& v, const OpCaller::Env& env, bool fp64) {
  c10::TypePtr type = type_in;
  if (type->kind() == TypeKind::OptionalType) type = type->expectRef<c10::OptionalType>().getElementType();
  struct V {
    const c10::TypePtr& type;
    const OpCaller::Env& env;
    bool fp64;
    c10::IValue operator()(const None&) const { return c10::IValue(); }
    c10::IValue operator()(bool b) const { return b; }
    c10::IValue operator()(int64_t i) const {
      if (type->kind() == TypeKind::FloatType) return static_cast<double>(i);
      if (type->kind() == TypeKind::ListType) return c10::List<int64_t>({i});
      return i;
    }
    c10::IValue operator()(double d) const { return d; }
    c10::IValue operator()(const IntList& l) const { return c10::List<int64_t>(l); }
    c10::IValue operator()(const std::string& s) const { return s; }
    c10::IValue operator()(DType t) const {
      DType d = fp64 && is_float(t) ? DType::f64 : t;
      return static_cast<int64_t>(to_aten(d));
    }
    c10::IValue operator()(MemFormat m) const { return static_cast<int64_t>(to_aten(m)); }
    c10::IValue operator()(const ValueRef& r) const {
      if (r.item) return env(r.id).item();  // Tensor.item(): the program's Python number
      return env(r.id);
    }
    c10::IValue operator()(const ValueList& l) const {
      // Tensor?[] (index_put's indices) is a list of optional tensors.
      auto elem = type->expectRef<c10::ListType>().getElementType();
      if (elem->kind() == TypeKind::OptionalType) {
        c10::List<c10::optional<at::Tensor>> ts;
        for (int id : l.ids) ts.push_back(env(id));
        return ts;
      }
      c10::List<at::Tensor> ts;
      for (int id : l.ids) ts.push_back(env(id));
      return ts;
    }
  };
  return std::visit(V{type, env, fp64}, v);
}

std::string signature(const std::string& aten, const Node& n) {
  std::string s = aten;
  for (const auto& a : n.args) {
    s += "," + a.name + ":" + std::to_string(a.value.index());
    if (auto* r = std::get_if<ValueRef>(&a.value); r && r->item) s += "i";  // a number, not a tensor
  }
  return s;
}

}  // namespace

std::shared_ptr<torch::jit::Operator> OpCaller::resolve(const std::string& aten, const Node& n) {
  std::string key = signature(aten, n);
  auto it = cache_.find(key);
  if (it != cache_.end()) return it->second;
  std::shared_ptr<torch::jit::Operator> found;
  const OpSpec* spec = find_op(n.op);
  for (const auto& op : torch::jit::getAllOperatorsFor(c10::Symbol::fromQualString(aten))) {
    const auto& schema = op->schema();
    bool ok = true;
    for (const auto& a : n.args) {
      if (const ParamSpec* ps = spec ? spec->param(a.name) : nullptr; ps && !ps->in_aten) continue;
      auto idx = schema.argumentIndexWithName(a.name);
      if (!idx || !binds(schema.arguments()[*idx].type(), a.value)) {
        ok = false;
        break;
      }
    }
    for (const auto& arg : schema.arguments())
      if (!n.arg(arg.name()) && !arg.default_value() && arg.type()->kind() != TypeKind::OptionalType) ok = false;
    // Out= variants and overloads returning nothing are not what the IR means.
    if (ok && !schema.returns().empty()) {
      found = op;
      break;
    }
  }
  if (!found) throw std::runtime_error("no overload of " + aten + " accepts these arguments");
  cache_[key] = found;
  return found;
}

std::vector<at::Tensor> OpCaller::call(const std::string& aten, const Node& n, const Env& env, bool fp64) {
  auto op = resolve(aten, n);
  const auto& schema = op->schema();
  torch::jit::Stack stack;
  for (const auto& arg : schema.arguments()) {
    const Arg* a = n.arg(arg.name());
    if (a) stack.push_back(to_ivalue(arg.type(), a->value, env, fp64));
    else if (arg.default_value()) stack.push_back(*arg.default_value());
    else stack.push_back(c10::IValue());
  }
  op->getOperation()(stack);
  std::vector<at::Tensor> outs;
  for (auto& v : stack) {
    if (v.isTensor()) outs.push_back(v.toTensor());
    else if (v.isTensorList())
      for (const auto& t : v.toTensorList()) outs.push_back(t);
    else if (v.isTuple())
      for (const auto& e : v.toTupleRef().elements()) outs.push_back(e.toTensor());
  }
  if (outs.size() < n.outputs.size()) throw std::runtime_error(aten + " returned fewer tensors than the node declares");
  outs.resize(n.outputs.size());
  return outs;
}

}  // namespace dlfuzz
