#include "generator/program.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace dlfuzz {

void change_world(Program& p, int world) {
  p.plan.world = world;
  for (auto& in : p.inputs) in.placement.whole = 0;
}

void to_one_rank(Program& p) {
  for (auto& in : p.inputs) {
    if (p.plan.kind == PlanKind::tp && in.kind == InputKind::param && in.placement.shard_dim >= 0)
      p.values[in.value].type.shape[in.placement.shard_dim] *= p.plan.world;
    in.placement = Placement{};
  }
  p.plan = ParallelPlan{};
}

std::pair<int64_t, int64_t> Placement::slice(int64_t local, int rank, int world) const {
  int64_t total = whole_size(local, world), base = total / world, extra = total % world;
  int64_t start = rank * base + std::min<int64_t>(rank, extra);
  return {start, base + (rank < extra ? 1 : 0)};
}

int64_t mul_saturating(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return (a < 0) != (b < 0) ? INT64_MIN : INT64_MAX;
  return r;
}

int64_t size_bound(const Shape& shape) {
  int64_t n = 1;
  for (auto d : shape) n = mul_saturating(n, std::max<int64_t>(d, 1));
  return n;
}

int64_t TensorType::numel() const {
  int64_t n = 1;
  for (auto d : shape) n = mul_saturating(n, d);
  return n;
}

std::string type_str(const TensorType& t) {
  return fmt::format("{}[{}]", dtype_name(t.dtype), fmt::join(t.shape, ","));
}

const char* mem_format_name(MemFormat m) {
  switch (m) {
    case MemFormat::contiguous: return "contiguous_format";
    case MemFormat::channels_last: return "channels_last";
    case MemFormat::preserve: return "preserve_format";
  }
  return "?";
}

const char* input_kind_name(InputKind k) {
  switch (k) {
    case InputKind::data: return "input";
    case InputKind::param: return "param";
    case InputKind::target: return "target";
  }
  return "?";
}

bool same_value(const ArgValue& a, const ArgValue& b) {
  auto* x = std::get_if<double>(&a);
  auto* y = std::get_if<double>(&b);
  if (x && y) return std::memcmp(x, y, sizeof(double)) == 0;
  return a == b;
}

const char* init_name(Init i) {
  switch (i) {
    case Init::uniform: return "uniform";
    case Init::normal: return "normal";
    case Init::zeros: return "zeros";
    case Init::ones: return "ones";
    case Init::special: return "special";
    case Init::ints: return "ints";
    case Init::decimals: return "decimals";
  }
  return "?";
}

bool init_has_bounds(Init i) { return i != Init::zeros && i != Init::ones; }

const char* optimizer_name(Optimizer o) {
  switch (o) {
    case Optimizer::sgd: return "sgd";
    case Optimizer::adam: return "adam";
    case Optimizer::adamw: return "adamw";
    case Optimizer::rmsprop: return "rmsprop";
    case Optimizer::adagrad: return "adagrad";
  }
  return "?";
}

bool is_adaptive(Optimizer o) { return o != Optimizer::sgd; }

bool has_amsgrad(Optimizer o) { return o == Optimizer::adam || o == Optimizer::adamw; }

std::vector<std::string> TrainStep::flags() const {
  std::vector<std::string> f;
  if (amsgrad) f.push_back("amsgrad");
  if (nesterov) f.push_back("nesterov");
  if (foreach) f.push_back("foreach");
  if (accumulate) f.push_back("accumulate");
  return f;
}

const char* target_name(Target t) { return t == Target::torch2 ? "torch2" : "torch1.13"; }

const char* plan_name(PlanKind k) {
  switch (k) {
    case PlanKind::none: return "none";
    case PlanKind::dp: return "dp";
    case PlanKind::tp: return "tp";
    case PlanKind::zero: return "zero";
  }
  return "?";
}

bool Block::operator==(const Block& o) const { return params == o.params && nodes == o.nodes && yields == o.yields; }

const Arg* Node::arg(const std::string& name) const {
  for (const auto& a : args)
    if (a.name == name) return &a;
  return nullptr;
}
Arg* Node::arg(const std::string& name) {
  for (auto& a : args)
    if (a.name == name) return &a;
  return nullptr;
}

int Program::add_value(const std::string& name, const TensorType& t) {
  values.push_back({name, t});
  return static_cast<int>(values.size()) - 1;
}

const InputDecl* Program::input_of(int value) const {
  for (const auto& in : inputs)
    if (in.value == value) return &in;
  return nullptr;
}

int Program::count_nodes() const {
  int n = 0;
  for_each_node(body, [&](const Node&) { ++n; });
  return n;
}

bool is_structural(const std::string& op) { return op == "loop" || op == "if" || op == "checkpoint"; }

std::vector<int> arg_inputs(const ArgValue& v) {
  if (auto* r = std::get_if<ValueRef>(&v)) return {r->id};
  if (auto* l = std::get_if<ValueList>(&v)) return l->ids;
  return {};
}

std::vector<int> node_inputs(const Node& n) {
  std::vector<int> ids;
  for (const auto& a : n.args) {
    auto more = arg_inputs(a.value);
    ids.insert(ids.end(), more.begin(), more.end());
  }
  return ids;
}

int resolve(const std::map<int, int>& to, int id) {
  // Bounded: a cycle (which no pass should build) cannot hang the reducer.
  for (size_t hops = 0; hops <= to.size(); ++hops) {
    auto it = to.find(id);
    if (it == to.end()) return id;
    id = it->second;
  }
  return -1;
}

void substitute(Block& b, const std::map<int, int>& to) {
  for (auto& n : b.nodes) {
    for (auto& a : n.args) {
      if (auto* r = std::get_if<ValueRef>(&a.value)) r->id = resolve(to, r->id);
      if (auto* l = std::get_if<ValueList>(&a.value))
        for (int& id : l->ids) id = resolve(to, id);
    }
    for (auto& inner : n.blocks) substitute(inner, to);
  }
  for (int& y : b.yields) y = resolve(to, y);
}

void substitute(Program& p, const std::map<int, int>& to) {
  substitute(p.body, to);
  if (p.train) p.train->loss = resolve(to, p.train->loss);
}

}  // namespace dlfuzz
