// Ops that write a constant into a region of a tensor: constant padding
// (F.pad; negative pads crop; every padded dim keeps at least one element, as
// LibTorch 1.13 requires) and the triangles tril/triu keep (the rest is 0).
#include <algorithm>

#include "generator/ops/common.h"

namespace dlfuzz {
using namespace ops;

namespace {
// F.pad's list: (before, after) pairs from the last dim backwards.
std::string infer_pad(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self;
  if (auto e = get_self(p, n, self); !e.empty()) return e;
  const IntList* pad = int_list_arg(n, "pad");
  if (!pad || pad->size() % 2 != 0) return "pad must be a list of (before, after) pairs";
  if (static_cast<int>(pad->size() / 2) > self->rank()) return "pad names more dims than the tensor has";
  Shape shape = self->shape;
  for (size_t i = 0; i < pad->size() / 2; ++i) {
    int64_t& d = shape[shape.size() - 1 - i];
    // ATen crops (narrows) by the negative pads first, then pads.
    if (d + std::min<int64_t>(0, (*pad)[2 * i]) + std::min<int64_t>(0, (*pad)[2 * i + 1]) < 0)
      return "negative pads crop more than the dim holds";
    d += (*pad)[2 * i] + (*pad)[2 * i + 1];
    if (d < 1) return "a padded dim must keep at least one element";
  }
  if (const Arg* v = n.arg("value")) {
    ScalarKind k = scalar_kind(v->value);
    if (k == ScalarKind::none) return "'value' must be a number";
    if (k == ScalarKind::floating && !is_float(self->dtype)) return "a float pad value needs a floating tensor";
  }
  out = {{self->dtype, shape}};
  return "";
}

bool gen_pad(GenContext& g, const OpSpec& s, Node& n) {
  Choices& c = g.choices();
  auto v = operand(g, s, 1);
  if (!v) return false;
  const TensorType t = g.program().type(*v);
  int dims = static_cast<int>(c.range(1, std::min(t.rank(), 3)));
  IntList pad;
  for (int i = 0; i < dims; ++i) {
    int64_t size = t.shape[t.rank() - 1 - i];
    // Mostly growth; sometimes a crop that leaves at least one element.
    int64_t before = c.coin(0.2) ? -c.range(0, std::max<int64_t>(0, (size - 1) / 2)) : c.range(0, 2);
    int64_t cropped = std::max<int64_t>(0, -before);
    int64_t after = c.coin(0.2) ? -c.range(0, std::max<int64_t>(0, size - 1 - cropped)) : c.range(0, 2);
    if (size + before + after < 1) after = 1 - size - before;  // a zero-size dim grows
    pad.push_back(before), pad.push_back(after);
  }
  n.args = {{"self", ValueRef{*v}}, {"pad", pad}};
  if (c.coin(0.6)) {
    ArgValue value = random_number(g, t.dtype, -2, 2);
    if (!is_float(t.dtype) && std::holds_alternative<double>(value)) value = int64_t(0);
    n.args.push_back({"value", value});
  }
  return true;
}

std::string infer_triangle(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self;
  if (auto e = get_self(p, n, self); !e.empty()) return e;
  if (self->rank() < 2) return n.op + " needs a tensor of 2 or more dims";
  out = {*self};
  return "";
}

bool gen_triangle(GenContext& g, const OpSpec& s, Node& n) {
  auto v = operand(g, s, 2);
  if (!v) return false;
  n.args = {{"self", ValueRef{*v}}};
  if (g.choices().coin(0.6)) n.args.push_back({"diagonal", g.choices().range(-2, 2)});
  return true;
}
}  // namespace

void register_ops_pad(std::vector<OpSpec>& ops) {
  OpSpec pad;
  pad.name = "pad";
  pad.family = "pad";
  pad.aten = "aten::constant_pad_nd";
  pad.params = {T("self"), {"pad", ParamKind::int_list, false, true}, A("value", ParamKind::number)};
  pad.infer = infer_pad;
  pad.generate = gen_pad;
  pad.python = "torch.nn.functional.pad";
  pad.torchscript = "torch.constant_pad_nd";
  ops.push_back(pad);
  for (const char* name : {"tril", "triu"}) {
    OpSpec s;
    s.name = name;
    s.family = "pad";
    s.aten = std::string("aten::") + name;
    s.params = {T("self"), A("diagonal", ParamKind::int_)};
    s.infer = infer_triangle;
    s.generate = gen_triangle;
    s.bool_ok = true;
    s.python = std::string("torch.") + name;
    ops.push_back(s);
  }
}

}  // namespace dlfuzz
