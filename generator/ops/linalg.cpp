// Matrix products: mm, matmul (every rank pairing PyTorch accepts), bmm, addmm,
// baddbmm, linear. Float only and no f16/bf16 (1.13 has no CPU f16 addmm).
// Operands must share one dtype: these ops do not promote.
#include "generator/ops/common.h"

namespace dlfuzz {
using namespace ops;

namespace {
// The named tensor operands, present and of one allowed dtype.
std::string get_tensors(const Program& p, const Node& n, const std::vector<std::string>& names,
                        std::vector<const TensorType*>& ts) {
  ts.clear();
  for (const auto& name : names) {
    const TensorType* t = tensor_arg(p, n, name);
    if (!t) return "missing tensor argument '" + name + "'";
    if (!ts.empty() && t->dtype != ts[0]->dtype)
      return "expected '" + name + "' to have dtype " + dtype_name(ts[0]->dtype);
    ts.push_back(t);
  }
  const OpSpec* s = find_op(n.op);
  if (s && !dtype_allowed(*s, ts[0]->dtype, p.target))
    return std::string("dtype ") + dtype_name(ts[0]->dtype) + " not supported by " + n.op;
  return "";
}

// beta and alpha: numbers (bools are not accepted here).
std::string check_scalars(const Node& n) {
  for (const char* name : {"beta", "alpha"})
    if (const Arg* a = n.arg(name);
        a && !std::holds_alternative<double>(a->value) && !std::holds_alternative<int64_t>(a->value))
      return std::string("'") + name + "' must be a number";
  return "";
}

// self of addmm/baddbmm must expand to the product's shape.
bool expands_to(const Shape& s, const Shape& to) {
  Shape b;
  return s.size() <= to.size() && broadcast(s, to, b) && b == to;
}

// A visible value for the first matrix operand, else a fresh input of `rank`.
std::optional<int> first_operand(GenContext& g, const OpSpec& s, int min_rank, int max_rank) {
  auto v = g.first([&](const TensorType& t) {
    return dtype_allowed(s, t.dtype, g.program().target) && t.rank() >= min_rank && t.rank() <= max_rank;
  });
  if (v || g.focus()) return v;
  return g.new_input({g.random_float_dtype(false), g.random_shape(min_rank, max_rank)});
}

int operand_of(GenContext& g, const TensorType& want) {
  return g.pick_or_input([&](const TensorType& t) { return t == want; }, want);
}

void add_scalars(GenContext& g, Node& n) {
  Choices& c = g.choices();
  for (const char* name : {"beta", "alpha"})
    if (c.coin(0.4)) n.args.push_back({name, c.coin(0.7) ? ArgValue(c.uniform(-2, 2)) : ArgValue(c.range(0, 2))});
}

std::string infer_mm(const Program& p, const Node& n, std::vector<TensorType>& out) {
  std::vector<const TensorType*> t;
  if (auto e = get_tensors(p, n, {"self", "mat2"}, t); !e.empty()) return e;
  if (t[0]->rank() != 2 || t[1]->rank() != 2) return "mm expects 2-d tensors";
  if (t[0]->shape[1] != t[1]->shape[0])
    return "mm: shapes " + type_str(*t[0]) + " and " + type_str(*t[1]) + " can't be multiplied";
  out = {{t[0]->dtype, {t[0]->shape[0], t[1]->shape[1]}}};
  return "";
}

bool gen_mm(GenContext& g, const OpSpec& s, Node& n) {
  auto v = first_operand(g, s, 2, 2);
  if (!v) return false;
  const TensorType a = g.program().type(*v);
  n.args = {{"self", ValueRef{*v}}, {"mat2", ValueRef{operand_of(g, {a.dtype, {a.shape[1], g.random_dim()}})}}};
  return true;
}

std::string infer_bmm(const Program& p, const Node& n, std::vector<TensorType>& out) {
  std::vector<const TensorType*> t;
  if (auto e = get_tensors(p, n, {"self", "mat2"}, t); !e.empty()) return e;
  if (t[0]->rank() != 3 || t[1]->rank() != 3) return "bmm expects 3-d tensors";
  const Shape &a = t[0]->shape, &b = t[1]->shape;
  if (a[0] != b[0] || a[2] != b[1])
    return "bmm: shapes " + type_str(*t[0]) + " and " + type_str(*t[1]) + " don't match";
  out = {{t[0]->dtype, {a[0], a[1], b[2]}}};
  return "";
}

bool gen_bmm(GenContext& g, const OpSpec& s, Node& n) {
  auto v = first_operand(g, s, 3, 3);
  if (!v) return false;
  const TensorType a = g.program().type(*v);
  n.args = {{"self", ValueRef{*v}},
            {"mat2", ValueRef{operand_of(g, {a.dtype, {a.shape[0], a.shape[2], g.random_dim()}})}}};
  return true;
}

// matmul: 1-d x 1-d is a dot product; a 1-d left operand gets a leading 1 and a
// 1-d right operand a trailing 1, removed again from the result; leading
// (batch) dims broadcast.
std::string matmul_shape(const Shape& a, const Shape& b, Shape& out) {
  if (a.empty() || b.empty()) return "both arguments to matmul need to be at least 1D";
  Shape x = a, y = b;
  if (x.size() == 1) x.insert(x.begin(), 1);
  if (y.size() == 1) y.push_back(1);
  if (x.back() != y[y.size() - 2]) return "matmul: inner dimensions differ";
  Shape bx(x.begin(), x.end() - 2), by(y.begin(), y.end() - 2);
  if (!broadcast(bx, by, out)) return "matmul: batch dimensions do not broadcast";
  if (a.size() > 1) out.push_back(x[x.size() - 2]);
  if (b.size() > 1) out.push_back(y.back());
  return "";
}

std::string infer_matmul(const Program& p, const Node& n, std::vector<TensorType>& out) {
  std::vector<const TensorType*> t;
  if (auto e = get_tensors(p, n, {"self", "other"}, t); !e.empty()) return e;
  Shape shape;
  if (auto e = matmul_shape(t[0]->shape, t[1]->shape, shape); !e.empty()) return e;
  out = {{t[0]->dtype, shape}};
  return "";
}

bool gen_matmul(GenContext& g, const OpSpec& s, Node& n) {
  auto v = first_operand(g, s, 1, 4);
  if (!v) return false;
  const TensorType a = g.program().type(*v);
  Choices& c = g.choices();
  int64_t k = a.shape.back();
  Shape b;
  int kind = static_cast<int>(c.below(3));  // 0: vector, 1: matrix, 2: batched matrix
  if (kind == 0) {
    b = {k};
  } else {
    b = {k, g.random_dim()};
    if (kind == 2) {
      Shape batch(a.shape.begin(), a.shape.end() - std::min(a.rank(), 2));
      Shape other;
      if (batch.empty()) {
        for (int i = static_cast<int>(c.range(1, 2)); i > 0; --i) other.push_back(g.random_dim());
      } else {
        other = broadcastable_type(g, batch, a.dtype).shape;
        // Where self's batch dim is 1, the other side may be larger.
        for (size_t i = 0; i < other.size() && i < batch.size(); ++i) {
          size_t o = other.size() - 1 - i, s_ = batch.size() - 1 - i;
          if (batch[s_] == 1 && c.coin(0.3)) other[o] = g.random_dim();
        }
      }
      b.insert(b.begin(), other.begin(), other.end());
    }
  }
  n.args = {{"self", ValueRef{*v}}, {"other", ValueRef{operand_of(g, {a.dtype, b})}}};
  return true;
}

// addmm(self, mat1, mat2): beta * self + alpha * (mat1 @ mat2); baddbmm batched.
std::string infer_addmm(const Program& p, const Node& n, std::vector<TensorType>& out) {
  bool batched = n.op == "baddbmm";
  std::vector<const TensorType*> t;
  auto names =
      batched ? std::vector<std::string>{"self", "batch1", "batch2"} : std::vector<std::string>{"self", "mat1", "mat2"};
  if (auto e = get_tensors(p, n, names, t); !e.empty()) return e;
  if (auto e = check_scalars(n); !e.empty()) return e;
  Node prod;
  prod.op = batched ? "bmm" : "mm";
  prod.args = {*n.arg(names[1]), *n.arg(names[2])};
  prod.args[0].name = "self";
  prod.args[1].name = "mat2";
  if (auto e = batched ? infer_bmm(p, prod, out) : infer_mm(p, prod, out); !e.empty()) return n.op + ": " + e;
  if (!expands_to(t[0]->shape, out[0].shape))
    return "self " + type_str(*t[0]) + " does not expand to " + type_str(out[0]);
  return "";
}

bool gen_addmm(GenContext& g, const OpSpec& s, Node& n) {
  bool batched = s.name == "baddbmm";
  int r = batched ? 3 : 2;
  auto v = first_operand(g, s, r, r);
  if (!v) return false;
  const TensorType a = g.program().type(*v);
  Shape bshape = a.shape, res = a.shape;
  bshape[r - 2] = a.shape[r - 1];
  bshape[r - 1] = res[r - 1] = g.random_dim();
  int b = operand_of(g, {a.dtype, bshape});
  TensorType bias = broadcastable_type(g, res, a.dtype);
  if (!expands_to(bias.shape, res)) bias.shape = res;
  n.args = {{"self", ValueRef{operand_of(g, bias)}},
            {batched ? "batch1" : "mat1", ValueRef{*v}},
            {batched ? "batch2" : "mat2", ValueRef{b}}};
  add_scalars(g, n);
  return true;
}

// linear(input [..., in], weight [out, in], bias [out]) -> [..., out].
std::string infer_linear(const Program& p, const Node& n, std::vector<TensorType>& out) {
  std::vector<const TensorType*> t;
  if (auto e = get_tensors(p, n, {"input", "weight"}, t); !e.empty()) return e;
  const TensorType &x = *t[0], &w = *t[1];
  if (x.rank() < 1) return "linear: input must be at least 1-d";
  if (w.rank() != 2) return "linear: weight must be 2-d";
  if (x.shape.back() != w.shape[1])
    return "linear: input " + type_str(x) + " and weight " + type_str(w) + " don't match";
  if (const Arg* b = n.arg("bias"); b && !std::holds_alternative<None>(b->value)) {
    const TensorType* bt = tensor_arg(p, n, "bias");
    if (!bt) return "bias must be a tensor or None";
    if (bt->dtype != x.dtype) return "bias must have the input's dtype";
    if (bt->shape != Shape{w.shape[0]}) return "linear: bias must be [out_features]";
  }
  Shape shape = x.shape;
  shape.back() = w.shape[0];
  out = {{x.dtype, shape}};
  return "";
}

bool gen_linear(GenContext& g, const OpSpec& s, Node& n) {
  auto v = first_operand(g, s, 1, 4);
  if (!v) return false;
  const TensorType x = g.program().type(*v);
  int64_t out_f = g.choices().range(1, g.policy().max_dim);
  int w = g.new_param({x.dtype, {out_f, x.shape.back()}}, Init::uniform, -0.5, 0.5);
  n.args = {{"input", ValueRef{*v}}, {"weight", ValueRef{w}}};
  if (g.choices().coin(0.5))
    n.args.push_back({"bias", ValueRef{g.new_param({x.dtype, {out_f}}, Init::uniform, -0.5, 0.5)}});
  return true;
}

OpSpec linalg(const std::string& name, const std::string& python, std::vector<ParamSpec> params, InferFn infer,
              GenFn gen) {
  return float_op(name, "linalg", python, std::move(params), infer, gen);
}
}  // namespace

void register_ops_linalg(std::vector<OpSpec>& ops) {
  using K = ParamKind;
  ops.push_back(linalg("mm", "torch.mm", {T("self"), T("mat2")}, infer_mm, gen_mm));
  ops.push_back(linalg("matmul", "torch.matmul", {T("self"), T("other")}, infer_matmul, gen_matmul));
  ops.push_back(linalg("bmm", "torch.bmm", {T("self"), T("mat2")}, infer_bmm, gen_bmm));
  ops.push_back(linalg("addmm", "torch.addmm",
                       {T("self"), T("mat1"), T("mat2"), A("beta", K::number), A("alpha", K::number)}, infer_addmm,
                       gen_addmm));
  ops.push_back(linalg("baddbmm", "torch.baddbmm",
                       {T("self"), T("batch1"), T("batch2"), A("beta", K::number), A("alpha", K::number)}, infer_addmm,
                       gen_addmm));
  ops.push_back(linalg("linear", "torch.nn.functional.linear",
                       {T("input"), T("weight"), {"bias", K::tensor, true, false}}, infer_linear, gen_linear));
}

}  // namespace dlfuzz
