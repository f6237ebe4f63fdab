// The program body as Python source that is also valid TorchScript: one
// statement per node, loops as `for _ in range(n)`, branches as `if bool(c)`,
// checkpoints as a nested function (in place for TorchScript); in Python, a
// loop or branch marked hop=true as scan or torch.cond, and a loop marked
// region=true as a nested compile region called per trip (generator/hop.h).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>

#include "generator/emit.h"
#include "generator/hop.h"
#include "generator/op_spec.h"

namespace dlfuzz {

std::string py_name(const Program& p, int id) {
  const std::string& n = p.values.at(id).name;
  std::string out = !n.empty() && std::isdigit(static_cast<unsigned char>(n[0])) ? "v" + n : n;
  for (char& c : out)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  return out;
}

std::string py_float(double d) {
  if (std::isnan(d)) return "float('nan')";
  if (std::isinf(d)) return d > 0 ? "float('inf')" : "float('-inf')";
  std::string s = fmt::format("{}", d);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

namespace {

// c10::MemoryFormat numbering (dtypes: dtype_c10_code): TorchScript compiled
// from C++ has no `torch.float32` value, only the enum's integer.
int mem_format_code(MemFormat m) { return m == MemFormat::contiguous ? 0 : m == MemFormat::preserve ? 1 : 2; }

std::string py_literal(const Program& p, const ArgValue& v, bool ts, bool float64) {
  if (float64 && std::holds_alternative<DType>(v) && is_float(std::get<DType>(v)))
    return py_literal(p, ArgValue(DType::f64), ts, false);  // the float64 twin
  if (ts && std::holds_alternative<DType>(v)) return std::to_string(dtype_c10_code(std::get<DType>(v)));
  if (ts && std::holds_alternative<MemFormat>(v)) return std::to_string(mem_format_code(std::get<MemFormat>(v)));
  struct V {
    const Program& p;
    std::string operator()(const None&) const { return "None"; }
    std::string operator()(bool b) const { return b ? "True" : "False"; }
    std::string operator()(int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const { return py_float(d); }
    std::string operator()(const IntList& l) const { return fmt::format("[{}]", fmt::join(l, ", ")); }
    std::string operator()(const std::string& s) const { return "'" + s + "'"; }
    std::string operator()(DType t) const { return dtype_torch_name(t); }
    std::string operator()(MemFormat m) const { return std::string("torch.") + mem_format_name(m); }
    std::string operator()(const ValueRef& r) const { return py_name(p, r.id) + (r.item ? ".item()" : ""); }
    std::string operator()(const ValueList& l) const {
      std::vector<std::string> parts;
      for (int id : l.ids) parts.push_back(py_name(p, id));
      return fmt::format("[{}]", fmt::join(parts, ", "));
    }
  };
  return std::visit(V{p}, v);
}

class FunctionWriter {
 public:
  FunctionWriter(const Program& p, const EmitOptions& o) : p_(p), ts_(o.torchscript), f64_(o.float64) {}

  std::string write(const std::string& name, bool method) {
    std::vector<std::string> params;
    if (method) params.push_back("self");
    for (const auto& in : p_.inputs) params.push_back(py_name(p_, in.value) + (ts_ ? ": torch.Tensor" : ""));
    line(0, fmt::format("def {}({}):", name, fmt::join(params, ", ")));
    // The forward and its loss under autocast, as AMP recipes write it; the
    // float64 twin runs without (its arithmetic is the reference's).
    if (p_.autocast && !f64_) {
      line(1, fmt::format("with torch.autocast('{}', dtype={}):", p_.device, dtype_torch_name(*p_.autocast)));
      block(p_.body, 2);
      if (p_.body.nodes.empty()) line(2, "pass");
    } else {
      block(p_.body, 1);
    }
    std::vector<std::string> outs;
    for (int y : p_.body.yields) outs.push_back(py_name(p_, y));
    if (p_.train) outs.push_back(py_name(p_, p_.train->loss));
    line(1, fmt::format("return ({}{})", fmt::join(outs, ", "), outs.size() == 1 ? "," : ""));
    return regions_ + out_;
  }

 private:
  void line(int depth, const std::string& s) {
    out_.append(depth * 4, ' ');
    out_ += s + "\n";
  }

  std::string call(const Node& n) {
    const OpSpec* spec = find_op(n.op);
    if (f64_ && n.op == "view_dtype") return float64_bitcast(n);
    // TorchScript compiled from C++ resolves `torch.<aten op>` builtins with
    // ATen's argument names and order, not torch.nn.functional's Python code.
    std::string fn = spec->python;
    if (ts_)
      fn = !spec->torchscript.empty()      ? spec->torchscript
           : (!fn.empty() && fn[0] == '.') ? fn
                                           : "torch." + spec->aten.substr(spec->aten.find("::") + 2);
    std::vector<std::string> pos, kw;
    std::vector<std::string> order = ts_ ? std::vector<std::string>{} : spec->python_positional;
    if (order.empty())
      for (const auto& prm : spec->params)
        if (prm.positional) order.push_back(prm.name);
    for (const auto& name : order)
      if (const Arg* a = n.arg(name)) pos.push_back(py_literal(p_, a->value, ts_, f64_));
    for (const auto& a : n.args) {
      const ParamSpec* ps = spec->param(a.name);
      if (!ps || !ps->in_aten || (!ps->in_python && !ts_)) continue;
      if (std::find(order.begin(), order.end(), a.name) != order.end()) continue;
      kw.push_back(ts_ ? a.name + "=" + py_literal(p_, a.value, ts_, f64_) : python_keyword(*ps, a.value));
    }
    if (!ts_ && !spec->python_kwargs.empty()) kw.push_back(spec->python_kwargs);
    if (!fn.empty() && fn[0] == '.') {
      // A method on the first positional argument.
      std::string self = pos.empty() ? "?" : pos.front();
      if (!pos.empty()) pos.erase(pos.begin());
      pos.insert(pos.end(), kw.begin(), kw.end());
      return fmt::format("{}{}({})", self, fn, fmt::join(pos, ", "));
    }
    pos.insert(pos.end(), kw.begin(), kw.end());
    return fmt::format("{}({})", fn, fmt::join(pos, ", "));
  }

  // name=value as the Python API spells it (ParamSpec::python_name, python_strings).
  std::string python_keyword(const ParamSpec& ps, const ArgValue& v) {
    std::string name = ps.python_name.empty() ? ps.name : ps.python_name;
    const int64_t* i = std::get_if<int64_t>(&v);
    if (ps.python_strings.empty() || !i || *i < 0 || *i >= static_cast<int64_t>(ps.python_strings.size()))
      return name + "=" + py_literal(p_, v, ts_, f64_);
    return name + "='" + ps.python_strings[*i] + "'";
  }

  // The float64 twin has no bits of the declared dtype to reinterpret: it
  // rounds its value to that dtype, reinterprets those bits, and carries on
  // in float64. (No longer a view: a write through it is the twin's own.)
  std::string float64_bitcast(const Node& n) {
    int self = std::get<ValueRef>(n.arg("self")->value).id;
    DType from = p_.type(self).dtype, to = std::get<DType>(n.arg("dtype")->value);
    auto literal = [&](DType t) { return ts_ ? std::to_string(dtype_c10_code(t)) : std::string(dtype_torch_name(t)); };
    std::string e = fmt::format("{}.to({}).view(dtype={})", py_name(p_, self), literal(from), literal(to));
    return is_float(to) ? e + ".to(" + literal(DType::f64) + ")" : e;
  }

  // `out = self[i, j]`, or for the in-place form `self[i, j] = values` then
  // `out = self` (the IR's in-place ops return their mutated self).
  void subscript(const Node& n, const OpSpec& spec, const std::string& out, int depth) {
    std::string self = py_literal(p_, n.arg("self")->value, ts_, f64_);
    std::vector<std::string> index;
    for (int id : std::get<ValueList>(n.arg("indices")->value).ids) index.push_back(py_name(p_, id));
    std::string target = fmt::format("{}[{}]", self, fmt::join(index, ", "));
    if (!spec.inplace) {
      line(depth, out + " = " + target);
      return;
    }
    line(depth, target + " = " + py_literal(p_, n.arg("values")->value, ts_, f64_));
    line(depth, out + " = " + self);
  }

  // A nested function under torch.utils.checkpoint, as training code writes
  // it; TorchScript has no checkpointing, so there the body runs in place.
  void checkpoint(const Node& n, int depth) {
    const auto& inputs = std::get<ValueList>(n.arg("inputs")->value).ids;
    const Block& body = n.blocks[0];
    std::vector<std::string> params, args, yields;
    for (int prm : body.params) params.push_back(py_name(p_, prm));
    for (int v : inputs) args.push_back(py_name(p_, v));
    for (int y : body.yields) yields.push_back(py_name(p_, y));
    if (ts_) {
      for (size_t k = 0; k < params.size(); ++k) line(depth, params[k] + " = " + args[k]);
      block(body, depth);
      for (size_t k = 0; k < n.outputs.size(); ++k) line(depth, py_name(p_, n.outputs[k]) + " = " + yields[k]);
      return;
    }
    std::string fn = "_checkpointed_" + py_name(p_, n.outputs.at(0));
    line(depth, fmt::format("def {}({}):", fn, fmt::join(params, ", ")));
    block(body, depth + 1);
    line(depth + 1, fmt::format("return ({}{})", fmt::join(yields, ", "), yields.size() == 1 ? "," : ""));
    args.insert(args.begin(), fn);
    std::string tmp = "_" + py_name(p_, n.outputs[0]);
    const Arg* selective = n.arg("selective");
    bool sac = selective && std::holds_alternative<bool>(selective->value) && std::get<bool>(selective->value);
    line(depth, fmt::format("{} = torch.utils.checkpoint.checkpoint({}, use_reentrant=False{})", tmp,
                            fmt::join(args, ", "), sac ? ", context_fn=_dlfuzz_save_matmuls" : ""));
    for (size_t k = 0; k < n.outputs.size(); ++k)
      line(depth, fmt::format("{} = {}[{}]", py_name(p_, n.outputs[k]), tmp, k));
  }

  // A branch or scan body may not return what it closes over or a view of
  // it (higher-order ops refuse aliased outputs): such a yield is cloned.
  std::string fresh_yield(const Block& b, int y) {
    for (const auto& n : b.nodes)
      if (std::find(n.outputs.begin(), n.outputs.end(), y) != n.outputs.end()) {
        const OpSpec* spec = find_op(n.op);
        bool aliases = spec && (spec->view || spec->may_alias || spec->inplace);
        return py_name(p_, y) + (aliases ? ".clone()" : "");
      }
    return py_name(p_, y) + ".clone()";
  }

  static std::string tuple(const std::vector<std::string>& items) {
    return fmt::format("({}{})", fmt::join(items, ", "), items.size() == 1 ? "," : "");
  }

  // `if` as torch.cond over two nested functions (generator/hop.h). The
  // branches' results get row-major strides (_dlfuzz_dense): cond wants both
  // with the same stride order, which the IR does not track (a permuted view
  // on one side), and compares a size-one dim's stride too, which
  // .contiguous() keeps (eager refused a cond whose branches gave [2,2,1,3]
  // with strides (6,3,3,1) and (6,3,6,1), both contiguous).
  void hop_cond(const Node& n, int depth) {
    std::string out = py_name(p_, n.outputs.at(0));
    const char* side[] = {"_true_", "_false_"};
    for (int branch = 0; branch < 2; ++branch) {
      const Block& b = n.blocks[branch];
      line(depth, fmt::format("def {}{}():", side[branch], out));
      block(b, depth + 1);
      std::vector<std::string> ys;
      for (int y : b.yields) ys.push_back("_dlfuzz_dense(" + fresh_yield(b, y) + ")");
      line(depth + 1, "return " + tuple(ys));
    }
    std::string cond = py_name(p_, std::get<ValueRef>(n.arg("cond")->value).id);
    line(depth, fmt::format("_{} = torch.cond({}, _true_{}, _false_{}, ())", out, cond, out, out));
    for (size_t k = 0; k < n.outputs.size(); ++k)
      line(depth, fmt::format("{} = _{}[{}]", py_name(p_, n.outputs[k]), out, k));
  }

  // `loop` as scan in counter mode: no xs, `length` trips, the carry a tuple.
  // Scan wants the init and each step's carry with the same strides, which
  // the IR does not track (a channels_last init, a transposed yield): both are
  // given row-major strides (_dlfuzz_dense: a copy only where they differ, so
  // an init that the body also reads still aliases it). Not .contiguous(): it
  // keeps a size-one dim's stride (a [4,1] transpose of a [1,4] is contiguous
  // with strides (1,4)), and scan compares those too (a program eager
  // rejected in stop 53's export campaign).
  void hop_scan(const Node& n, int depth) {
    const auto& carry = std::get<ValueList>(n.arg("carry")->value).ids;
    const Block& body = n.blocks[0];
    std::string out = py_name(p_, n.outputs.at(0));
    std::vector<std::string> params, init, ys;
    for (int prm : body.params) params.push_back(py_name(p_, prm));
    for (int v : carry) init.push_back("_dlfuzz_dense(" + py_name(p_, v) + ")");
    for (int y : body.yields) ys.push_back("_dlfuzz_dense(" + fresh_yield(body, y) + ")");
    line(depth, fmt::format("def _body_{}(_carry, _x):", out));
    line(depth + 1, tuple(params) + " = _carry");
    block(body, depth + 1);
    line(depth + 1, fmt::format("return {}, ()", tuple(ys)));
    line(depth, fmt::format("_{} = torch._higher_order_ops.scan(_body_{}, {}, None, length={})", out, out, tuple(init),
                            std::get<int64_t>(n.arg("n")->value)));
    for (size_t k = 0; k < n.outputs.size(); ++k)
      line(depth, fmt::format("{} = _{}[0][{}]", py_name(p_, n.outputs[k]), out, k));
  }

  // `loop` as while_loop (hop=true, while=true): the trip count carried as
  // an int64 counter tensor in front of the carry, the condition `i < n`. The
  // carry gets row-major strides as scan's does (while_loop compares them
  // too). The counter is made by a factory op, not torch.tensor(0): a
  // constant tensor is lifted into the graph (lift_fresh_copy), a path of
  // its own.
  void hop_while(const Node& n, int depth) {
    const auto& carry = std::get<ValueList>(n.arg("carry")->value).ids;
    const Block& body = n.blocks[0];
    std::string out = py_name(p_, n.outputs.at(0));
    std::vector<std::string> params{"_i"}, init{"torch.zeros((), dtype=torch.int64)"}, ys{"_i + 1"};
    for (int prm : body.params) params.push_back(py_name(p_, prm));
    for (int v : carry) init.push_back("_dlfuzz_dense(" + py_name(p_, v) + ")");
    for (int y : body.yields) ys.push_back("_dlfuzz_dense(" + fresh_yield(body, y) + ")");
    line(depth, fmt::format("def _cond_{}({}):", out, fmt::join(params, ", ")));
    line(depth + 1, fmt::format("return _i < {}", std::get<int64_t>(n.arg("n")->value)));
    line(depth, fmt::format("def _body_{}({}):", out, fmt::join(params, ", ")));
    block(body, depth + 1);
    line(depth + 1, "return " + tuple(ys));
    line(depth,
         fmt::format("_{} = torch._higher_order_ops.while_loop(_cond_{}, _body_{}, {})", out, out, out, tuple(init)));
    for (size_t k = 0; k < n.outputs.size(); ++k)
      line(depth, fmt::format("{} = _{}[{}]", py_name(p_, n.outputs[k]), out, k + 1));
  }

  // A loop with region=true (generator/hop.h): its body as a module-level
  // function under torch.compiler.nested_compile_region (Dynamo refuses the
  // decorator inside the compiled function), taking the carry and then the
  // values the body closes over, called once per trip of a plain `for`.
  void region_loop(const Node& n, int depth) {
    const auto& carry = std::get<ValueList>(n.arg("carry")->value).ids;
    const Block& body = n.blocks[0];
    std::string fn = "_region_" + py_name(p_, n.outputs.at(0));
    std::vector<std::string> params, args, ys;
    for (int prm : body.params) params.push_back(py_name(p_, prm));
    args = params;
    for (int v : free_values(body)) args.push_back(py_name(p_, v));
    for (int y : body.yields) ys.push_back(fresh_yield(body, y));
    std::string caller = std::move(out_);
    out_.clear();
    line(0, "@torch.compiler.nested_compile_region");
    line(0, fmt::format("def {}({}):", fn, fmt::join(args, ", ")));
    block(body, 1);
    line(1, "return " + tuple(ys));
    regions_ += out_ + "\n\n";
    out_ = std::move(caller);
    for (size_t k = 0; k < carry.size(); ++k) line(depth, params[k] + " = " + py_name(p_, carry[k]));
    line(depth, fmt::format("for _ in range({}):", std::get<int64_t>(n.arg("n")->value)));
    line(depth + 1, fmt::format("{} = {}({})", tuple(params), fn, fmt::join(args, ", ")));
    for (size_t k = 0; k < carry.size(); ++k) line(depth, py_name(p_, n.outputs[k]) + " = " + params[k]);
  }

  void block(const Block& b, int depth) {
    for (const auto& n : b.nodes) node(n, depth);
  }

  void node(const Node& n, int depth) {
    if (!ts_ && is_hop(n)) {
      if (n.op == "if") hop_cond(n, depth);
      else if (is_while_loop(n)) hop_while(n, depth);
      else hop_scan(n, depth);
      return;
    }
    if (!ts_ && is_region(n)) {
      region_loop(n, depth);
      return;
    }
    if (n.op == "loop") {
      const auto& carry = std::get<ValueList>(n.arg("carry")->value).ids;
      const Block& body = n.blocks[0];
      for (size_t k = 0; k < carry.size(); ++k)
        line(depth, py_name(p_, body.params[k]) + " = " + py_name(p_, carry[k]));
      line(depth, fmt::format("for _ in range({}):", std::get<int64_t>(n.arg("n")->value)));
      block(body, depth + 1);
      for (size_t k = 0; k < carry.size(); ++k)
        line(depth + 1, py_name(p_, body.params[k]) + " = " + py_name(p_, body.yields[k]));
      if (body.nodes.empty() && carry.empty()) line(depth + 1, "pass");
      for (size_t k = 0; k < carry.size(); ++k)
        line(depth, py_name(p_, n.outputs[k]) + " = " + py_name(p_, body.params[k]));
      return;
    }
    if (n.op == "checkpoint") {
      checkpoint(n, depth);
      return;
    }
    if (n.op == "if") {
      line(depth, "if bool(" + py_name(p_, std::get<ValueRef>(n.arg("cond")->value).id) + "):");
      for (int branch = 0; branch < 2; ++branch) {
        if (branch == 1) line(depth, "else:");
        const Block& b = n.blocks[branch];
        block(b, depth + 1);
        for (size_t k = 0; k < n.outputs.size(); ++k)
          line(depth + 1, py_name(p_, n.outputs[k]) + " = " + py_name(p_, b.yields[k]));
        if (b.nodes.empty() && n.outputs.empty()) line(depth + 1, "pass");
      }
      return;
    }
    std::vector<std::string> outs;
    for (int o : n.outputs) outs.push_back(py_name(p_, o));
    const OpSpec* spec = find_op(n.op);
    if (spec && spec->subscript) {
      subscript(n, *spec, outs.at(0), depth);
      return;
    }
    // Ops returning a list or tuple are indexed: TorchScript can't unpack a
    // list whose length it does not know.
    bool sequence =
        outs.size() > 1 || n.op == "split" || n.op == "chunk" || n.op == "unbind" || (spec && spec->tuple_result);
    if (!sequence) {
      line(depth, outs.at(0) + " = " + call(n));
      return;
    }
    std::string tmp = "_" + outs.at(0);
    line(depth, tmp + " = " + call(n));
    for (size_t k = 0; k < outs.size(); ++k) line(depth, fmt::format("{} = {}[{}]", outs[k], tmp, k));
  }

  const Program& p_;
  bool ts_;
  bool f64_;  // floating dtype literals as float64
  std::string out_;
  std::string regions_;  // module-level definitions of nested compile regions
};

}  // namespace

std::string emit_function(const Program& p, const std::string& name, const EmitOptions& options) {
  return FunctionWriter(p, options).write(name, options.method);
}

std::string emit_function(const Program& p, const std::string& name, bool torchscript, bool method) {
  EmitOptions o;
  o.torchscript = torchscript;
  o.method = method;
  return emit_function(p, name, o);
}

std::string emit_torchscript(const Program& p) { return emit_function(p, "forward", true); }

}  // namespace dlfuzz
