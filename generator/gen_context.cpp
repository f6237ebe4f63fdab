#include "generator/gen_context.h"

#include <algorithm>
#include <stdexcept>

#include "generator/value_range.h"

namespace dlfuzz {

GenContext::GenContext(Program& p, Choices& c, const GenPolicy& policy) : p_(p), c_(c), policy_(policy) {
  blocks_.push_back(&p_.body);
  scopes_.emplace_back();
}

bool GenContext::visible(int v) const {
  if (p_.input_of(v)) return true;
  for (const auto& s : scopes_)
    if (std::find(s.begin(), s.end(), v) != s.end()) return true;
  return false;
}

std::optional<int> GenContext::pick(const TypePred& pred) {
  std::vector<int> fit;
  for (const auto& in : p_.inputs)
    if (in.kind != InputKind::target && pred(p_.type(in.value))) fit.push_back(in.value);
  for (const auto& s : scopes_)
    for (int v : s)
      if (pred(p_.type(v))) fit.push_back(v);
  if (fit.empty()) return std::nullopt;
  std::sort(fit.begin(), fit.end());
  // Prefer recent values so programs grow deep rather than wide.
  if (fit.size() > 4 && c_.coin(0.6)) return fit[fit.size() - 1 - c_.below(4)];
  return fit[c_.below(fit.size())];
}

std::optional<int> GenContext::first(const TypePred& pred) {
  if (focus_) {
    if (pred(p_.type(*focus_))) return focus_;
    return std::nullopt;
  }
  return pick(pred);
}

std::optional<int> GenContext::pick_computed(const std::function<bool(int)>& ok) {
  std::vector<int> fit;
  for (const auto& s : scopes_)
    for (int v : s)
      if (ok(v)) fit.push_back(v);
  if (fit.empty()) return std::nullopt;
  return fit[c_.below(fit.size())];
}

int GenContext::pick_or_input(const TypePred& pred, const TensorType& fresh) {
  if (c_.coin(0.75))
    if (auto v = pick(pred)) return *v;
  if (training() && is_float(fresh.dtype) && c_.coin(0.5)) return new_param(fresh, Init::uniform, -0.5, 0.5);
  return new_input(fresh);
}

int GenContext::add_input(const TensorType& t, InputKind k, Init init, double a, double b) {
  const char* prefix = k == InputKind::data ? "x" : k == InputKind::param ? "w" : "y";
  int& counter = k == InputKind::data ? n_data_ : k == InputKind::param ? n_param_ : n_target_;
  int id = p_.add_value(prefix + std::to_string(counter++), t);
  InputDecl d;
  d.value = id;
  d.kind = k;
  d.init = init;
  // zeros/ones print no range: keep the defaults so the text round-trips.
  // (ints, decimals and special kept the defaults too until a review found
  // their values narrower, -1..1, than the bounds asked for and recorded.)
  if (init_has_bounds(init)) d.lo = a, d.hi = b;
  // Some 4-d data inputs arrive channels_last, some 2-d+ as strided views.
  if (k == InputKind::data && t.rank() == 4 && c_.coin(0.3)) d.layout = Layout::channels_last;
  else if (k == InputKind::data && t.rank() >= 2 && c_.coin(0.15)) d.layout = Layout::strided;
  p_.inputs.push_back(d);
  record_input(id, t, k, init, a, b);
  return id;
}

void GenContext::record_input(int id, const TensorType& t, InputKind k, Init init, double a, double b) {
  ranges_.resize(p_.values.size());
  root_.resize(p_.values.size());
  root_[id] = id;
  if (init == Init::uniform) ranges_[id] = {a, is_float(t.dtype) ? b : b - 1};
  else if (init == Init::ints) ranges_[id] = {a, b - 1};
  else if (init == Init::decimals) ranges_[id] = {a - 0.1, b};
  else if (init == Init::special) ranges_[id] = Interval{};  // NaN and Inf: nothing is known
  else if (init == Init::zeros) ranges_[id] = {0, 0};
  else if (init == Init::ones) ranges_[id] = {1, 1};
  no_write_.insert(id);
  if (init == Init::special && is_float(t.dtype)) may_nan_.insert(id);
  // A training program's outputs are read after its optimizer steps, which
  // leave a param's last bits to each backend's float arithmetic.
  if (k != InputKind::param || !p_.is_training()) exact_.insert(id);
  if (k == InputKind::param) from_param_.insert(id);
}

bool GenContext::floats_exact(const Node& n) const {
  for (int v : node_inputs(n))
    if (is_float(p_.type(v).dtype) && !is_exact(v)) return false;
  return true;
}

namespace {
// The number after `prefix` in a value name ("x12" -> 12), or -1.
int name_number(const std::string& name, const std::string& prefix) {
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) return -1;
  std::string digits = name.substr(prefix.size());
  if (digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) return -1;
  return std::stoi(digits);
}
}  // namespace

void GenContext::adopt() {
  ranges_.assign(p_.values.size(), Interval{});
  root_.resize(p_.values.size());
  for (size_t v = 0; v < root_.size(); ++v) root_[v] = static_cast<int>(v);
  for (const auto& in : p_.inputs) record_input(in.value, p_.type(in.value), in.kind, in.init, in.lo, in.hi);
  // Values inside loop bodies and branches keep unknown ranges: they are not
  // visible at top level, where new ops go.
  inexact_bit_reads_.clear();
  for (size_t i = 0; i < p_.body.nodes.size(); ++i) {
    const Node& n = p_.body.nodes[i];
    const OpSpec* s = find_op(n.op);
    if (n.op == "checkpoint") {
      record_checkpoint(n, static_cast<int>(i));
    } else {
      if (s && s->reads_bits && !floats_exact(n)) inexact_bit_reads_.push_back(static_cast<int>(i));
      record(s, n);
    }
    for (int o : n.outputs) scopes_.back().push_back(o);
  }
  // Fresh names must not clash with the seed's.
  for (const auto& v : p_.values) {
    next_name_ = std::max(next_name_, name_number(v.name, "") + 1);
    n_data_ = std::max(n_data_, name_number(v.name, "x") + 1);
    n_param_ = std::max(n_param_, name_number(v.name, "w") + 1);
    n_target_ = std::max(n_target_, name_number(v.name, "y") + 1);
  }
}

int GenContext::new_input(const TensorType& t) {
  if (is_float(t.dtype)) {
    if (c_.coin(policy_.p_special_values)) return add_input(t, InputKind::data, Init::special, -2, 2);
    if (c_.coin(policy_.p_written_values))
      return c_.coin(0.5) ? add_input(t, InputKind::data, Init::ints, -4, 5)
                          : add_input(t, InputKind::data, Init::decimals, -2, 2);
    return add_input(t, InputKind::data, Init::uniform, -2, 2);
  }
  if (is_bool(t.dtype)) return add_input(t, InputKind::data, Init::uniform, 0, 2);
  if (is_unsigned(t.dtype)) return add_input(t, InputKind::data, Init::uniform, 0, 10);
  return add_input(t, InputKind::data, Init::uniform, -5, 6);
}

int GenContext::new_param(const TensorType& t, Init init, double a, double b) {
  return add_input(t, InputKind::param, init, a, b);
}

int GenContext::new_index_input(const Shape& shape, int64_t bound) {
  return add_input({DType::i64, shape}, InputKind::data, Init::uniform, 0, static_cast<double>(bound));
}

int GenContext::in_domain(int v, Domain d, DType) {
  Interval r = ranges_.at(v);
  const TensorType& t = p_.type(v);
  bool isf = is_float(t.dtype);
  auto lit = [&](double x) -> ArgValue {
    if (isf) return x;
    return static_cast<int64_t>(x);
  };
  // clamp(v, lo, hi); LibTorch 1.13 has no f16 clamp on CPU: an f16 in f32.
  auto clamped = [&](double lo, double hi) {
    if (t.dtype != DType::f16) return emit1("clamp", {{"self", ValueRef{v}}, {"min", lit(lo)}, {"max", lit(hi)}});
    int f = emit1("to", {{"self", ValueRef{v}}, {"dtype", DType::f32}});
    int c = emit1("clamp", {{"self", ValueRef{f}}, {"min", lo}, {"max", hi}});
    return emit1("to", {{"self", ValueRef{c}}, {"dtype", DType::f16}});
  };
  switch (d) {
    case Domain::any: return v;
    case Domain::positive:
    case Domain::nonzero: {
      if (r.lo >= 0.25) return v;
      if (is_bool(t.dtype)) return v;  // callers do not ask this of bools
      // uint16/32/64 have neither abs nor add kernels; they are never negative.
      if (is_wide_unsigned(t.dtype)) return emit1("clamp", {{"self", ValueRef{v}}, {"min", int64_t(1)}});
      int a = emit1("abs", {{"self", ValueRef{v}}});
      return emit1("add", {{"self", ValueRef{a}}, {"other", lit(isf ? 0.5 : 1.0)}});
    }
    case Domain::bounded: {
      if (r.within(-6, 6)) return v;
      // A negative bound on an unsigned type is ill-defined (uint16/32/64), and
      // on uint8 Inductor wraps it (pytorch#198071, corpus/bugs): the guard
      // would find that known bug again and again.
      return clamped(is_wide_unsigned(t.dtype) || t.dtype == DType::u8 ? 0.0 : -4.0, 4.0);
    }
    case Domain::unit:  // float operands only (the ops that ask are float_only)
      return r.within(-0.9, 0.9) ? v : clamped(-0.9, 0.9);
    case Domain::probability:
      return r.within(0.05, 0.95) ? v : clamped(0.05, 0.95);
    case Domain::finite: {  // float operands only: NaN replaced, then huge values clamped
      if (may_nan_.count(v)) v = emit1("nan_to_num", {{"self", ValueRef{v}}});
      if (ranges_.at(v).within(-1e4, 1e4)) return v;
      return emit1("clamp", {{"self", ValueRef{v}}, {"min", -1e3}, {"max", 1e3}});
    }
  }
  return v;
}

std::optional<int> GenContext::pick_mutable(const TypePred& pred) {
  if (!at_top_level()) return std::nullopt;
  std::vector<int> fit;
  for (int v : scopes_.back()) {
    if (!pred(p_.type(v)) || no_write_.count(v)) continue;
    int root = root_[v];
    if (no_write_.count(root) && root != v && p_.input_of(root)) continue;
    if (training() && (root_read_.count(root) || saved_roots_.count(root))) continue;
    fit.push_back(v);
  }
  if (fit.empty()) return std::nullopt;
  return fit[c_.below(fit.size())];
}

// Training programs compute in float32 and float64, and for PyTorch 2.x in
// bf16 and f16 too (1.13's CPU kernels lack many half gradients).
bool GenContext::trainable_dtype(DType t) const {
  return t == DType::f32 || t == DType::f64 || (p_.target == Target::torch2 && is_half(t));
}

// Under autocast to one half type, a value of the other one: the ops of the
// promote policy (cat, stack, index_copy, and composites such as roll that call
// them) refuse it (at::autocast::prioritize; pytorch#132715). Not drawn.
bool GenContext::other_half(DType t) const {
  return p_.autocast && is_half(t) && t != *p_.autocast;
}

DType GenContext::random_dtype() {
  std::vector<DType> ts;
  std::vector<double> ws;
  for (auto& [t, w] : policy_.dtype_weights) {
    if (training() && !trainable_dtype(t)) continue;
    if ((t == DType::i16 || is_wide_unsigned(t)) && p_.target == Target::torch113) continue;
    if (other_half(t)) continue;
    ts.push_back(t);
    ws.push_back(w);
  }
  int i = c_.weighted(ws);
  return i < 0 ? DType::f32 : ts[i];
}

DType GenContext::random_float_dtype(bool half_ok) {
  std::vector<DType> ts;
  std::vector<double> ws;
  for (auto& [t, w] : policy_.dtype_weights) {
    if (!is_float(t)) continue;
    if (training() && !trainable_dtype(t)) continue;
    if (!half_ok && p_.target == Target::torch113 && is_half(t)) continue;
    if (other_half(t)) continue;
    ts.push_back(t);
    ws.push_back(w);
  }
  int i = c_.weighted(ws);
  return i < 0 ? DType::f32 : ts[i];
}

int64_t GenContext::random_dim() {
  if (c_.coin(policy_.p_zero_size_dim)) return 0;
  return c_.range(1, policy_.max_dim);
}

Shape GenContext::random_shape(int min_rank, int max_rank) {
  max_rank = std::min(max_rank, policy_.max_rank);
  if (min_rank == 0 && !c_.coin(policy_.p_zero_dim_tensor)) min_rank = 1;
  int r = static_cast<int>(c_.range(min_rank, std::max(min_rank, max_rank)));
  Shape s;
  for (int i = 0; i < r; ++i) s.push_back(random_dim());
  return s;
}

void GenContext::push_block(Block* b, std::optional<int> focus) {
  blocks_.push_back(b);
  scopes_.emplace_back(b->params);
  focus_ = focus;
}

void GenContext::pop_block() {
  blocks_.pop_back();
  scopes_.pop_back();
  focus_.reset();
}

std::optional<std::vector<int>> GenContext::emit(Node n) {
  const OpSpec* spec = find_op(n.op);
  std::vector<TensorType> outs;
  if (n.op == "loop") {
    for (int v : std::get<ValueList>(n.arg("carry")->value).ids) outs.push_back(p_.type(v));
  } else if (n.op == "if" || n.op == "checkpoint") {
    for (int v : n.blocks.at(0).yields) outs.push_back(p_.type(v));
  } else {
    if (!spec) {
      last_error = "unknown op " + n.op;
      return std::nullopt;
    }
    last_error = infer_node(*spec, p_, n, outs);
    if (!last_error.empty()) return std::nullopt;
  }
  n.outputs.clear();
  for (const auto& t : outs) {
    int id = p_.add_value(std::to_string(next_name_++), t);
    n.outputs.push_back(id);
  }
  ranges_.resize(p_.values.size());
  root_.resize(p_.values.size());
  for (int o : n.outputs) root_[o] = o;
  record(spec, n);
  for (int o : n.outputs) scopes_.back().push_back(o);
  blocks_.back()->nodes.push_back(n);
  return n.outputs;
}

int GenContext::emit1(const std::string& op, std::vector<Arg> args) {
  Node n;
  n.op = op;
  n.args = std::move(args);
  auto outs = emit(std::move(n));
  if (!outs) throw std::logic_error("generator built an invalid " + op + ": " + last_error);
  return outs->front();
}

namespace {
// Float ops whose results are their inputs' values moved, selected, rounded
// once or compared: the same bits on every backend when their inputs have
// them. Arithmetic is not among them: compilers reorder sums, contract
// multiply-adds and keep half-precision intermediates in float32, so its
// results differ in the last bits, which is no bug; read as integers
// (view(dtype)) or ranked (argsort), those bits would be compared exactly.
bool moves_values(const std::string& op) {
  static const std::set<std::string> ops = {
      "clone",  "contiguous", "index",     "setitem",   "index_select", "gather",    "masked_select", "masked_fill",
      "cat",    "stack",      "flip",      "roll",      "repeat",       "sort",      "topk",          "cummax",
      "cummin", "neg",        "abs",       "relu",      "clamp",        "round",     "floor",         "ceil",
      "trunc",  "maximum",    "minimum",   "where",     "amax",         "amin",      "to",            "type_as",
      "tril",   "triu",       "index_fill", "index_copy", "scatter",    "zeros_like", "ones_like",    "full_like",
      "new_zeros", "new_ones", "new_full", "zeros",     "ones",         "full",      "arange",
      "kthvalue", "median",   "nanmedian", "mode",      "take_along_dim", "select_scatter", "slice_scatter",
      "diagonal_scatter", "sgn"};
  return ops.count(out_of_place_name(op)) > 0;
}

// Value-moving ops that compare their operands: of a NaN they return eager's
// NaN or Inductor's, whose sign and payload bits IEEE leaves to each.
bool compares_values(const std::string& op) {
  static const std::set<std::string> ops = {"clamp", "relu",   "maximum",  "minimum",   "amax", "amin",
                                            "sort",  "topk",   "cummax",   "cummin",    "kthvalue",
                                            "median", "nanmedian", "mode"};
  return ops.count(out_of_place_name(op)) > 0;
}
}  // namespace

void GenContext::copy_facts(int from, int to) {
  ranges_[to] = ranges_[from];
  root_[to] = root_[from];
  for (auto* facts : {&from_param_, &exact_, &may_nan_, &no_write_})
    if (facts->count(from)) facts->insert(to);
}

void GenContext::record_checkpoint(const Node& n, int index) {
  const auto& inputs = std::get<ValueList>(n.arg("inputs")->value).ids;
  const Block& body = n.blocks.at(0);
  for (size_t k = 0; k < inputs.size() && k < body.params.size(); ++k) copy_facts(inputs[k], body.params[k]);
  for (const Node& inner : body.nodes) {
    const OpSpec* s = find_op(inner.op);
    if (s && s->reads_bits && !floats_exact(inner)) inexact_bit_reads_.push_back(index);
    record(s, inner);
  }
  for (size_t k = 0; k < n.outputs.size() && k < body.yields.size(); ++k) copy_facts(body.yields[k], n.outputs[k]);
}

void GenContext::record(const OpSpec* spec, const Node& n) {
  std::vector<int> ins = node_inputs(n);
  bool is_view = spec && spec->view;
  // Gradients flow from a param only through float values of differentiable ops.
  bool param_fed = false;
  bool differentiable = !spec || spec->differentiable;
  for (int v : ins)
    if (!is_view) root_read_.insert(root_[v]);
  for (const auto& a : n.args) {
    const ParamSpec* ps = spec ? spec->param(a.name) : nullptr;
    if (ps && !ps->grad) continue;
    // x.item() is a Python number: no gradient flows through it.
    if (auto* r = std::get_if<ValueRef>(&a.value); r && r->item) continue;
    for (int v : arg_inputs(a.value)) {
      bool grad_carrier = is_float(p_.type(v).dtype) && (from_param_.count(v) || from_param_.count(root_[v]));
      if (grad_carrier && differentiable) param_fed = true;
    }
  }
  for (const auto& b : n.blocks)
    for_each_node(b, [&](const Node& inner) {
      for (int v : node_inputs(inner))
        if (from_param_.count(v) && is_float(p_.type(v).dtype)) param_fed = true;
    });
  // Exact in, exact out for views, value-moving ops and integer or bool results.
  bool exact = n.blocks.empty();
  for (int v : ins) exact &= exact_.count(v) > 0;
  bool int_out = true;
  for (int o : n.outputs) int_out &= !is_float(p_.type(o).dtype);
  exact &= spec && (spec->view || moves_values(n.op) || int_out);
  bool nan_in = false;
  for (int v : ins) nan_in |= may_nan_.count(v) > 0;
  if (nan_in && compares_values(n.op)) exact = false;
  std::vector<Interval> in_ranges;
  for (size_t i = 0; i < n.outputs.size(); ++i) {
    int o = n.outputs[i];
    ranges_[o] = estimate_range(p_, n, ranges_, static_cast<int>(i));
    if (param_fed && is_float(p_.type(o).dtype)) from_param_.insert(o);
    if (ins.empty()) continue;
    int base = root_[ins[0]];
    if (spec && (spec->view || spec->inplace)) root_[o] = base;
    if (spec && spec->may_alias) {
      no_write_.insert(o);
      no_write_.insert(base);
    }
    // A view of a value not to be written (an unfold's overlapping windows
    // unsqueezed) is not written either: functionalization refuses writes to
    // a tensor with internal overlap. A view of an input is kept off by its root.
    if (spec && spec->view && no_write_.count(ins[0]) && !p_.input_of(ins[0])) no_write_.insert(o);
    if (spec && spec->saves_output) saved_roots_.insert(root_[o]);
    if (exact) exact_.insert(o);
    if (nan_in && is_float(p_.type(o).dtype)) may_nan_.insert(o);
  }
  // A loop or branch may yield one of its inputs unchanged: its outputs may
  // alias them, so neither side is written in place.
  if (is_structural(n.op)) {
    for (int v : ins) no_write_.insert(v), no_write_.insert(root_[v]);
    for (const auto& b : n.blocks)
      for (int y : b.yields) no_write_.insert(y), no_write_.insert(root_[y]);
    for (int o : n.outputs) no_write_.insert(o);
  }
  if (spec && spec->inplace && !ins.empty()) {
    int base = root_[ins[0]];
    if (param_fed) from_param_.insert(base);
    // Every alias of the mutated tensor now holds new values, inexact ones
    // when the write was.
    for (size_t v = 0; v < root_.size(); ++v) {
      if (root_[v] != base) continue;
      if (!exact) exact_.erase(static_cast<int>(v));
      if (nan_in) may_nan_.insert(static_cast<int>(v));
      if (v != static_cast<size_t>(n.outputs.at(0))) ranges_[v] = Interval{};
    }
  }
}

}  // namespace dlfuzz
