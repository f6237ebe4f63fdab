#include "oracles/ill_conditioned.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <set>
#include <string>

#include <fmt/format.h>

#include "generator/op_spec.h"
#include "generator/ops/common.h"
#include "generator/verify.h"
#include "oracles/tolerance.h"
#include "reducers/rewrite.h"

namespace dlfuzz {

namespace {
// `ulps` units in the last place of 1.0 in `t`.
double perturbation(DType t, double ulps) {
  int mantissa_bits = t == DType::f64 ? 52 : t == DType::f32 ? 23 : t == DType::f16 ? 10 : 7;
  return std::ldexp(ulps, -mantissa_bits);
}

// The inputs a node writes into: an in-place op's first argument, followed
// back through views and maybe-aliases to what they view. An input a loop or
// a branch reads counts as written when its blocks write anything (carried
// values alias what they carry).
std::set<int> written_inputs(const Program& p) {
  std::map<int, int> base;  // a view's result -> what it views
  std::set<int> written;
  std::function<void(const Block&)> walk = [&](const Block& b) {
    for (const Node& n : b.nodes) {
      if (!n.blocks.empty()) {
        bool writes = false;
        for (const Block& inner : n.blocks)
          for_each_node(inner, [&](const Node& m) {
            const OpSpec* s = find_op(m.op);
            writes = writes || (s && s->inplace);
          });
        if (writes)
          for (int id : node_inputs(n)) written.insert(id);
        for (const Block& inner : n.blocks) walk(inner);
        continue;
      }
      const OpSpec* s = find_op(n.op);
      if (!s || n.args.empty()) continue;
      std::vector<int> first = arg_inputs(n.args[0].value);
      if (s->view || s->may_alias || s->inplace)
        for (int out : n.outputs)
          if (!first.empty()) base[out] = first[0];
      if (s->inplace) written.insert(first.begin(), first.end());
    }
  };
  walk(p.body);
  std::set<int> roots;
  for (int id : written) {
    for (int hops = 0; base.count(id) && hops < 10000; ++hops) id = base.at(id);
    roots.insert(id);
  }
  return roots;
}

// Replace reads of each key by its value in node arguments (not in yields or
// the loss), nested blocks included.
void reroute_arguments(Block& b, const std::map<int, int>& to) {
  auto swap = [&](int& id) {
    auto it = to.find(id);
    if (it != to.end()) id = it->second;
  };
  for (Node& n : b.nodes) {
    for (Arg& a : n.args) {
      if (auto* r = std::get_if<ValueRef>(&a.value)) swap(r->id);
      if (auto* l = std::get_if<ValueList>(&a.value))
        for (int& id : l->ids) swap(id);
    }
    for (Block& inner : n.blocks) reroute_arguments(inner, to);
  }
}

std::string fresh_name(std::set<std::string>& taken, const std::string& stem, int& next) {
  std::string name;
  do name = stem + std::to_string(next++);
  while (taken.count(name));
  taken.insert(name);
  return name;
}

// "output: output 2: ..." (check_numeric's detail) -> 2; -1 when the detail
// names no tensor.
int tensor_index(const Finding& f) {
  std::string prefix = f.stage + ": " + f.stage + " ";
  if (f.detail.rfind(prefix, 0) != 0) return -1;
  char* end = nullptr;
  long i = std::strtol(f.detail.c_str() + prefix.size(), &end, 10);
  return end && *end == ':' ? static_cast<int>(i) : -1;
}

const std::vector<HostTensor>* part(const RunResult& r, const std::string& stage) {
  if (stage == "output") return &r.outputs;
  if (stage == "grad") return &r.grads;
  if (stage == "param") return &r.params;
  return nullptr;
}

const HostTensor* tensor_at(const RunResult& r, const std::string& stage, int i) {
  const auto* v = part(r, stage);
  return v && i >= 0 && static_cast<size_t>(i) < v->size() ? &(*v)[i] : nullptr;
}
}  // namespace

std::optional<Program> perturb_inputs(const Program& p, double ulps) {
  if (p.plan.world != 1) return std::nullopt;
  const OpSpec* addcmul = find_op("addcmul");
  if (!addcmul) return std::nullopt;
  Program q = p;
  std::set<int> written = written_inputs(p);
  std::set<std::string> taken;
  for (const auto& v : q.values) taken.insert(v.name);
  int next_input = static_cast<int>(q.inputs.size()), next_value = 0;
  std::map<int, int> to;
  std::vector<Node> reads;
  for (const InputDecl& d : p.inputs) {
    const TensorType t = p.type(d.value);
    if (!is_float(t.dtype) || (d.init != Init::uniform && d.init != Init::normal) || written.count(d.value) ||
        !ops::dtype_allowed(*addcmul, t.dtype, p.target))
      continue;
    InputDecl e;
    e.value = q.add_value(fresh_name(taken, "x", next_input), t);
    e.init = Init::uniform;
    e.lo = -1, e.hi = 1;
    Node n;
    n.op = "addcmul";
    n.args = {{"self", ValueRef{d.value}},
              {"tensor1", ValueRef{d.value}},
              {"tensor2", ValueRef{e.value}},
              {"value", perturbation(t.dtype, ulps)}};
    n.outputs = {q.add_value(fresh_name(taken, "moved", next_value), t)};
    to[d.value] = n.outputs[0];
    q.inputs.push_back(e);
    reads.push_back(n);
  }
  if (reads.empty()) return std::nullopt;
  reroute_arguments(q.body, to);
  q.body.nodes.insert(q.body.nodes.begin(), reads.begin(), reads.end());
  reduce::tidy(q);
  if (!verify(q).empty()) return std::nullopt;
  return q;
}

bool within_sensitivity(const HostTensor& ref, const HostTensor& test, const std::vector<HostTensor>& moved) {
  if (!ref.defined || !test.defined || ref.shape != test.shape || ref.dtype != test.dtype || !is_float(ref.dtype))
    return false;
  for (const auto& m : moved)
    if (!m.defined || m.shape != ref.shape) return false;
  // NaN, +Inf, -Inf or a number.
  auto kind = [](double x) { return std::isnan(x) ? 0 : std::isinf(x) ? (x > 0 ? 1 : 2) : 3; };
  Tolerance tol = default_tolerance(ref.dtype);
  bool any = false;
  for (int64_t i = 0; i < ref.numel(); ++i) {
    double a = ref.at(i), b = test.at(i);
    if (kind(a) == kind(b) && (kind(a) != 3 || !beyond(tol, a, b))) continue;
    any = true;
    bool covered = false;
    for (const auto& m : moved) {
      double x = m.at(i);
      if (kind(a) != kind(b))
        covered = covered || kind(x) != kind(a);
      else  // a number that turns NaN or Inf has moved as far as a number can
        covered = covered || kind(x) != 3 || 4 * std::fabs(x - a) >= std::fabs(b - a);
    }
    if (!covered) return false;
  }
  return any;
}

namespace {
// The largest difference between two tensors' finite elements.
double max_finite_diff(const HostTensor& a, const HostTensor& b) {
  double worst = 0;
  for (int64_t i = 0; i < a.numel() && i < b.numel(); ++i)
    if (std::isfinite(a.at(i)) && std::isfinite(b.at(i))) worst = std::max(worst, std::fabs(a.at(i) - b.at(i)));
  return worst;
}

double max_finite_diff(const HostTensor& a, const std::vector<HostTensor>& moved) {
  double worst = 0;
  for (const auto& m : moved) worst = std::max(worst, max_finite_diff(a, m));
  return worst;
}
}  // namespace

void explain_ill_conditioning(Executor& ex, const Program& p, const std::vector<RunResult>& results,
                              std::vector<Finding>& findings) {
  if (p.plan.world != 1) return;
  auto result_of = [&](const std::string& runner) -> const RunResult* {
    for (const auto& r : results)
      if (r.runner == runner) return &r;
    return nullptr;
  };
  std::vector<Program> moved_programs;
  bool tried = false;
  std::map<std::string, std::vector<RunResult>> moved;  // the perturbed programs' runs, per reference runner
  for (auto& f : findings) {
    if (f.oracle != "numeric" || f.flaky || !f.first_op_detail.empty()) continue;
    int i = tensor_index(f);
    const RunResult *ref = result_of(f.ref_runner), *test = result_of(f.test_runner);
    if (i < 0 || !ref || !test) continue;
    if (!tried) {
      tried = true;
      for (double ulps : kPerturbations)
        if (auto q = perturb_inputs(p, ulps)) moved_programs.push_back(std::move(*q));
    }
    if (moved_programs.empty()) return;
    auto it = moved.find(f.ref_runner);
    if (it == moved.end()) {
      it = moved.emplace(f.ref_runner, std::vector<RunResult>{}).first;
      for (const auto& q : moved_programs) it->second.push_back(ex.run(q, {f.ref_runner}).at(0));
    }
    const HostTensor *a = tensor_at(*ref, f.stage, i), *b = tensor_at(*test, f.stage, i);
    std::vector<HostTensor> m;
    for (const auto& r : it->second)
      if (const HostTensor* t = r.ok() ? tensor_at(r, f.stage, i) : nullptr) m.push_back(*t);
    if (!a || !b || m.size() != it->second.size() || !within_sensitivity(*a, *b, m)) continue;
    f.first_op = kIllConditioned;
    f.first_op_detail = fmt::format(
        "{} {}: the reference moves by up to {:.3g} (the runner's difference: {:.3g}) when each float input changes "
        "by {} units in its last place: rounding decides this value, on every backend",
        f.stage, i, max_finite_diff(*a, m), max_finite_diff(*a, *b), kPerturbationText);
  }
}

}  // namespace dlfuzz
