// view(dtype): the same bytes read as another dtype (Tensor.view(dtype=...),
// aten::view.dtype), a view like any other: in-place writes through it change
// the base's bits. Of another element size the last dim scales by the ratio,
// which needs a contiguous source: the generator clones one first. Never to
// bool (bytes other than 0 and 1 are no bool). TorchScript 1.13 cannot spell
// it (its view(int) is view(size)), so it is in torch2 programs only. Not
// differentiable: its outputs carry no gradient.
#include <algorithm>

#include "generator/ops/common.h"

namespace dlfuzz {
using namespace ops;

namespace {
// Can a contiguous tensor of `shape` be read as elements `ratio` times larger?
// ATen wants the last dim and every other dim's stride divisible by the ratio,
// and a contiguous tensor's strides count a size-0 dim as 1 (f32[1,0] has
// stride 1 in dim 0: "self.stride(0) must be divisible by 2").
bool divides_into_larger(const Shape& shape, int64_t ratio) {
  if (shape.empty() || shape.back() % ratio) return false;
  int64_t stride = 1;
  for (size_t d = shape.size() - 1; d > 0; --d) {
    stride *= std::max<int64_t>(shape[d], 1);
    if (stride % ratio) return false;
  }
  return true;
}

std::string infer_view_dtype(const Program& p, const Node& n, std::vector<TensorType>& out) {
  const TensorType* self;
  if (auto e = get_self(p, n, self); !e.empty()) return e;
  const Arg* d = n.arg("dtype");
  if (!d || !std::holds_alternative<DType>(d->value)) return "view_dtype needs a dtype";
  const DType to = std::get<DType>(d->value);
  if (is_bool(to)) return "bytes viewed as bool are no bools";
  Shape shape = self->shape;
  const int from_size = dtype_size(self->dtype), to_size = dtype_size(to);
  if (from_size != to_size) {
    if (shape.empty()) return "a 0-d tensor keeps its element size";
    int64_t& last = shape.back();
    if (from_size > to_size) {
      last *= from_size / to_size;
    } else {
      const int64_t ratio = to_size / from_size;
      if (!divides_into_larger(shape, ratio)) return "the last dim or a stride does not divide into the larger elements";
      last /= ratio;
    }
  }
  out = {{to, shape}};
  return "";
}

// Only of values with the same bits on every backend (GenContext::is_exact):
// the last-bit differences of float arithmetic, reinterpreted, are no bug.
bool gen_view_dtype(GenContext& g, const OpSpec& s, Node& n) {
  auto v = operand(g, s, 0);
  if (!v || !g.is_exact(*v)) return false;
  const TensorType t = g.program().type(*v);
  Choices& c = g.choices();
  std::vector<DType> same, other;
  for (DType d : {DType::f32, DType::f64, DType::f16, DType::bf16, DType::i64, DType::i32, DType::i16, DType::i8,
                  DType::u8, DType::u16, DType::u32, DType::u64}) {
    if (d == t.dtype || g.other_half(d)) continue;
    if (dtype_size(d) == dtype_size(t.dtype)) {
      same.push_back(d);
      continue;
    }
    if (t.rank() == 0) continue;
    if (dtype_size(d) < dtype_size(t.dtype) || divides_into_larger(t.shape, dtype_size(d) / dtype_size(t.dtype)))
      other.push_back(d);
  }
  bool resize = !other.empty() && (same.empty() || c.coin(0.5));
  if (!resize && same.empty()) return false;
  DType to = c.pick(resize ? other : same);
  int src = *v;
  // Another element size rescales the last dim's strides: only a fresh
  // contiguous buffer (storage offset 0) is sure to allow it.
  if (resize) src = g.emit1("clone", {{"self", ValueRef{src}}, {"memory_format", MemFormat::contiguous}});
  n.args = {{"self", ValueRef{src}}, {"dtype", to}};
  return true;
}
}  // namespace

void register_ops_bitcast(std::vector<OpSpec>& ops) {
  OpSpec s;
  s.name = "view_dtype";
  s.family = "bitcast";
  s.aten = "aten::view";  // the view.dtype overload, chosen by the argument's name
  s.params = {T("self"), A("dtype", ParamKind::dtype)};
  s.infer = infer_view_dtype;
  s.generate = gen_view_dtype;
  s.view = true;
  s.reads_bits = true;
  s.bool_ok = true;
  s.differentiable = false;
  s.torch2_only = true;
  s.python = ".view";
  ops.push_back(s);
}

}  // namespace dlfuzz
