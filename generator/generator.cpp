#include "generator/generator.h"

#include <algorithm>
#include <map>
#include <set>

#include "generator/canonicalize.h"
#include "generator/checkpoint.h"
#include "generator/gen_context.h"
#include "generator/hop.h"
#include "generator/infer_types.h"
#include "generator/ops/common.h"
#include "generator/templates.h"
#include "generator/verify.h"

namespace dlfuzz {

namespace {
bool is_float_t(const TensorType& t) { return is_float(t.dtype); }
}  // namespace

// Builds one program; a friend of GenContext for inputs, ranges and aliasing.
class Generator {
 public:
  Generator(Program& p, Choices& c, const GenPolicy& policy) : g_(p, c, policy), p_(p), c_(c) {
    const auto& excluded = policy.exclude_ops;
    for (const auto& s : all_ops()) {
      if (std::find(excluded.begin(), excluded.end(), s.name) != excluded.end()) continue;
      if (s.torch2_only && policy.target != Target::torch2) continue;
      by_family_[s.family].push_back(&s);
    }
    for (const auto& name : policy.focus_ops)
      if (const OpSpec* s = find_op(name)) focus_.push_back(s);
  }

  void run() {
    bool training = c_.coin(g_.policy().p_training);
    if (training) p_.train = TrainStep{};
    p_.plan.world = std::max(1, g_.policy().world);
    p_.device = g_.policy().device;
    // Training programs over several ranks follow a parallel plan: data
    // parallel (DDP's averaged all-reduce), ZeRO's sharded optimizer, or
    // Megatron's tensor parallelism; inference programs call collectives
    // explicitly.
    if (p_.plan.world > 1 && training) {
      static const PlanKind kinds[] = {PlanKind::dp, PlanKind::zero, PlanKind::tp};
      p_.plan.kind = kinds[c_.below(3)];
    }
    // Autocast comes from the seed, not the choices, so the programs without
    // it keep their draws; with it the type rules are autocast's from here on.
    if (p_.target == Target::torch2 && p_.device == "cpu") {
      SeededChoices own(p_.seed ^ 0x6175746f63617374ull);  // "autocast"
      if (own.coin(g_.policy().p_autocast)) p_.autocast = own.coin(0.25) ? DType::f16 : DType::bf16;
    }
    // The first operand of a program; training programs start from a float batch.
    TensorType first{training ? g_.random_float_dtype() : g_.random_dtype(), g_.random_shape(1, 4)};
    g_.new_input(first);

    int n = static_cast<int>(c_.range(g_.policy().min_nodes, g_.policy().max_nodes));
    int control_at = c_.coin(g_.policy().p_control_flow) ? static_cast<int>(c_.range(1, n)) : -1;
    int inplace_at = c_.coin(g_.policy().p_inplace) ? static_cast<int>(c_.range(1, n)) : -1;
    // Templates use their own ops: none in a program steered to some ops or away from others.
    bool steered = !g_.policy().focus_ops.empty() || !g_.policy().exclude_ops.empty();
    int template_at = c_.coin(steered ? 0 : g_.policy().p_template) ? static_cast<int>(c_.range(0, n - 1)) : -1;
    for (int i = 0; i < n; ++i) {
      if (i == control_at) control_flow();
      if (i == inplace_at) inplace_on_view();
      if (i == template_at) random_template(g_);
      random_op({});
    }
    choose_outputs();
    if (training) add_training_step();
    if (p_.plan.world > 1) place_inputs();
    // Activation checkpointing wraps a stretch of a finished one-rank torch2
    // training forward; drawn from the seed, as autocast is.
    if (training && p_.target == Target::torch2 && p_.plan.world == 1) {
      SeededChoices own(p_.seed ^ 0x636b7074ull);  // "ckpt"
      if (own.coin(g_.policy().p_checkpoint)) add_checkpoint(p_, own);
    }
  }

  // Appends `ops` random ops to a finished program, then chooses its outputs
  // again (generation's choice: the unread values).
  void grow(int ops) {
    g_.adopt();
    for (int i = 0; i < ops; ++i) random_op({});
    choose_outputs();
  }

  // Makes a finished inference program a training program: a loss and an
  // optimizer step, as generation would have added them. False, and the
  // program unchanged, where an op reads the bits of a value computed from a
  // param (GenContext::floats_exact): after the steps those bits are the
  // backends' own.
  bool add_training() {
    p_.train = TrainStep{};
    g_.adopt();
    if (!g_.inexact_bit_reads().empty()) {
      p_.train.reset();
      return false;
    }
    add_training_step();
    return true;
  }

 private:
  // One op from a weighted family; retries when an op cannot be placed.
  bool random_op(const std::vector<std::string>& families) {
    c_.mark_node();
    // Steering: most top-level ops come from the focus list; the rest feed them.
    if (!focus_.empty() && families.empty() && c_.coin(0.8))
      for (int attempt = 0; attempt < 6; ++attempt)
        if (try_op(*focus_[c_.below(focus_.size())])) return true;
    std::vector<std::string> names;
    std::vector<double> weights;
    for (const auto& [fam, w] : g_.policy().family_weights) {
      if (!families.empty() && std::find(families.begin(), families.end(), fam) == families.end()) continue;
      if (!by_family_.count(fam)) continue;
      names.push_back(fam);
      weights.push_back(w);
    }
    for (int attempt = 0; attempt < 12; ++attempt) {
      int f = c_.weighted(weights);
      if (f < 0) return false;
      const auto& ops = by_family_[names[f]];
      const OpSpec* spec = ops[c_.below(ops.size())];
      if (try_op(*spec)) return true;
    }
    return false;
  }

  bool try_op(const OpSpec& spec) {
    if (!spec.generate) return false;
    Node n;
    n.op = spec.name;
    size_t mark_nodes = current_block_size();
    if (!spec.generate(g_, spec, n)) return false;
    if (spec.reads_bits && !g_.floats_exact(n)) return false;
    // A generate function may already have emitted guard nodes; those stay.
    (void)mark_nodes;
    return g_.emit(std::move(n)).has_value();
  }

  size_t current_block_size() const { return p_.body.nodes.size(); }

  // A loop with one carried tensor, or an if/else on a 0-d bool, whose blocks
  // apply a short chain of ops that keep the carried type: elementwise ones,
  // or, for a torch2 loop or branch to be spelled as a higher-order op or a
  // loop body to be a nested compile region (drawn from the seed, as
  // checkpointing is, so the rest of the program is the same either way), ops
  // of most families, as models put in a scan's step, a cond's branch or a
  // layer. The mark stays off where the blocks hold what the ops refuse.
  void control_flow() {
    auto v = g_.pick(is_float_t);
    if (!v) return;
    TensorType t = p_.type(*v);
    SeededChoices own(p_.seed ^ 0x686f70ull);  // "hop"
    bool hop = p_.target == Target::torch2 && p_.plan.world == 1 && own.coin(g_.policy().p_hop);
    bool while_loop = own.coin(g_.policy().p_while_loop);
    bool loop = c_.coin(0.5);
    bool region = p_.target == Target::torch2 && p_.plan.world == 1 && loop && !hop && own.coin(g_.policy().p_region);
    Node n;
    if (loop) {
      n.op = "loop";
      n.args = {{"n", int64_t(c_.range(1, 4))}, {"carry", ValueList{{*v}}}};
      n.blocks.resize(1);
      int carried = p_.add_value("c" + std::to_string(p_.values.size()), t);
      n.blocks[0].params.push_back(carried);
      grow_ranges();
      // The body reads the carried value: its gradient (ops without a
      // derivative stay off it) and its NaNs come with it.
      if (g_.from_param_.count(*v)) g_.from_param_.insert(carried);
      if (g_.may_nan_.count(*v)) g_.may_nan_.insert(carried);
      fill_block(n.blocks[0], n.blocks[0].params[0], t, hop || region);
    } else {
      int cond = branch_condition(*v);
      n.op = "if";
      n.args = {{"cond", ValueRef{cond}}};
      n.blocks.resize(2);
      fill_block(n.blocks[0], *v, t, hop);
      fill_block(n.blocks[1], *v, t, hop);
    }
    if (hop && hop_error(p_, n).empty()) {
      n.args.push_back({"hop", true});
      if (loop && while_loop) n.args.push_back({"while", true});
      // A scan's init that its body also reads is refused at compile as
      // aliasing (corpus/bugs/aot-scan-init-read-by-body-aliasing.dlf): a
      // copy made after the body (so the body cannot read it) is carried, as
      // users write it, so that known refusal does not hide the rest.
      if (loop) n.arg("carry")->value = ValueList{{g_.emit1("clone", {{"self", ValueRef{*v}}})}};
    }
    if (region && region_error(p_, n).empty()) n.args.push_back({"region", true});
    g_.emit(std::move(n));
  }

  // The branch condition on v: sum(v) > c * sum(abs(v)), c = +-0.25. A fixed
  // threshold such as sum(v) > 0 sits exactly where normalized data sums
  // (batch_norm, x - mean(x): 0 up to rounding), and there the branch follows
  // the summation order, which compilers may change: eager and compiled took
  // different branches. The ratio sum(v) / sum(abs(v)) lies in [-1, 1] and
  // data that sums to 0 or to its magnitude sits far from +-0.25, so both
  // sides take the same branch while both branches stay reachable.
  int branch_condition(int v) {
    double c = c_.coin(0.5) ? 0.25 : -0.25;
    int s = g_.emit1("sum", {{"self", ValueRef{v}}});
    int mag = g_.emit1("sum", {{"self", ValueRef{g_.emit1("abs", {{"self", ValueRef{v}}})}}});
    int threshold = g_.emit1("mul", {{"self", ValueRef{mag}}, {"other", c}});
    return g_.emit1("gt", {{"self", ValueRef{s}}, {"other", ValueRef{threshold}}});
  }

  void grow_ranges() {
    g_.ranges_.resize(p_.values.size());
    g_.root_.resize(p_.values.size());
    g_.root_.back() = static_cast<int>(p_.values.size()) - 1;
  }

  // wide: the ops of most families a higher-order op's branch or body takes.
  void fill_block(Block& b, int start, const TensorType& t, bool wide) {
    static const std::vector<std::string> kElementwise = {"unary", "activation", "binary"};
    static const std::vector<std::string> kSubgraph = {"unary",   "activation", "binary", "reduce", "linalg",
                                                       "compare", "ternary",    "shape",  "view",   "norm",
                                                       "conv",    "pool",       "scan",   "einsum", "distance"};
    const auto& families = wide ? kSubgraph : kElementwise;
    g_.push_block(&b, start);
    int steps = static_cast<int>(wide ? c_.range(2, 5) : c_.range(1, 3));
    for (int i = 0; i < steps; ++i) {
      int before = g_.focus().value();
      if (!random_op(families)) continue;
      // Move the focus along the chain while the type stays the carried one.
      const Node& last = b.nodes.back();
      int out = last.outputs.at(0);
      if (p_.type(out) == t && node_inputs(last).size() > 0 && node_inputs(last)[0] == before) g_.set_focus(out);
    }
    if (wide) join_into_focus(b, t);
    b.yields.push_back(g_.focus().value());
    g_.pop_block();
  }

  // Ops of other families leave values of other shapes (a reduction, a
  // matmul): the latest one of the carried dtype that broadcasts to the
  // carried shape is added to the focus, so the yield depends on it.
  void join_into_focus(const Block& b, const TensorType& t) {
    int focus = g_.focus().value();
    for (auto n = b.nodes.rbegin(); n != b.nodes.rend(); ++n)
      for (int out : n->outputs) {
        const TensorType& o = p_.type(out);
        Shape joined;
        if (out == focus || o.dtype != t.dtype || !infer_util::broadcast(t.shape, o.shape, joined) || joined != t.shape)
          continue;
        g_.set_focus(g_.emit1("add", {{"self", ValueRef{focus}}, {"other", ValueRef{out}}}));
        return;
      }
  }

  // A view of a fresh intermediate, an in-place op through it, and a later use
  // of the base: the aliasing pattern compilers get wrong.
  void inplace_on_view() {
    // torch2 inference programs: sometimes the bits of a fresh copy of a value
    // with the same bits everywhere, as integers of its size (view(dtype)),
    // nudged in place: the float base reads other values.
    if (p_.target == Target::torch2 && !p_.is_training() && c_.coin(0.3)) {
      auto src = g_.pick([&](const TensorType& t) { return is_float(t.dtype) && t.rank() >= 1; });
      if (!src || !g_.is_exact(*src)) return;
      int base = g_.emit1("clone", {{"self", ValueRef{*src}}});
      int size = dtype_size(p_.type(base).dtype);
      DType bits = size == 8 ? DType::i64 : size == 4 ? DType::i32 : DType::i16;
      int view = g_.emit1("view_dtype", {{"self", ValueRef{base}}, {"dtype", bits}});
      g_.emit1(c_.coin(0.5) ? "add_" : "sub_", {{"self", ValueRef{view}}, {"other", int64_t(c_.range(1, 3))}});
      g_.emit1("mul", {{"self", ValueRef{base}}, {"other", 0.5}});
      return;
    }
    auto base = g_.pick_mutable([](const TensorType& t) { return is_float(t.dtype) && t.rank() >= 2; });
    if (!base) {
      // Make a fresh intermediate to write to.
      auto src = g_.pick(is_float_t);
      if (!src) return;
      base = g_.emit1("mul", {{"self", ValueRef{*src}}, {"other", 1.5}});
      if (p_.type(*base).rank() < 2) return;
    }
    const TensorType bt = p_.type(*base);
    int dim = static_cast<int>(c_.below(bt.rank()));
    int view;
    if (c_.coin(0.5)) {
      view = g_.emit1("transpose", {{"self", ValueRef{*base}}, {"dim0", int64_t(0)}, {"dim1", int64_t(bt.rank() - 1)}});
    } else {
      int64_t size = bt.shape[dim];
      int64_t start = size > 1 ? c_.range(0, size - 1) : 0;
      view = g_.emit1("narrow",
                      {{"self", ValueRef{*base}}, {"dim", int64_t(dim)}, {"start", start}, {"length", size - start}});
    }
    std::vector<std::string> ops;
    for (const char* name : {"add_", "mul_", "clamp_", "relu_", "sub_"})
      if (ops::dtype_allowed(*find_op(name), bt.dtype, p_.target)) ops.push_back(name);
    if (ops.empty()) return;
    std::string op = c_.pick(ops);
    std::vector<Arg> args = {{"self", ValueRef{view}}};
    if (op == "add_" || op == "sub_") args.push_back({"other", c_.uniform(-1, 1)});
    if (op == "mul_") args.push_back({"other", c_.uniform(0.5, 2)});
    if (op == "clamp_") args = {{"self", ValueRef{view}}, {"min", -1.0}, {"max", 1.0}};
    g_.emit1(op, args);
    // Read the base after the write.
    g_.emit1("mul", {{"self", ValueRef{*base}}, {"other", 0.5}});
  }

  void choose_outputs() {
    std::vector<int> read(p_.values.size(), 0);
    for_each_node(p_.body, [&](const Node& n) {
      for (int v : node_inputs(n)) read[v]++;
    });
    std::vector<int> sinks;
    for (const auto& n : p_.body.nodes)
      for (int o : n.outputs)
        if (!read[o] && !(p_.train && o == p_.train->loss)) sinks.push_back(o);  // a grown program's loss
    if (sinks.empty() && !p_.body.nodes.empty()) sinks.push_back(p_.body.nodes.back().outputs.at(0));
    int keep = std::min<int>(static_cast<int>(sinks.size()), g_.policy().max_outputs);
    p_.body.yields.assign(sinks.end() - keep, sinks.end());
  }

  // Data and targets split along dim 0 across ranks (every one under a
  // data-parallel plan, about half in inference programs); params stay
  // replicated, except the tensor-parallel block's, placed when it was built.
  // Shards are even: a rank's shape is the one in the program, the whole
  // tensor is `world` of them.
  void place_inputs() {
    if (p_.plan.kind == PlanKind::tp) return;  // every rank sees the whole batch
    for (auto& in : p_.inputs) {
      const TensorType& t = p_.type(in.value);
      if (in.kind == InputKind::param || t.rank() == 0 || t.shape[0] == 0) continue;
      if (p_.plan.data_parallel() || c_.coin(0.5)) in.placement.shard_dim = 0;
    }
    if (p_.plan.data_parallel() && c_.coin(0.5)) make_shards_uneven();
  }

  // Batches that do not divide by the world size, as DDP allows: the last k
  // ranks get one row less of a batch input. Inputs are tried one at a time
  // and kept uneven while the program stays well typed with the smaller
  // shards (no shape constant or other input ties it to that size).
  void make_shards_uneven() {
    int world = p_.plan.world;
    int64_t k = c_.range(1, world - 1);
    Program smaller = p_;
    for (auto& in : p_.inputs) {
      if (in.placement.shard_dim != 0 || p_.type(in.value).shape[0] < 2 || feeds_data_indices(in.value)) continue;
      Program attempt = smaller;
      attempt.values[in.value].type.shape[0] -= 1;
      if (!infer_types(attempt).empty() || !verify(attempt).empty()) continue;
      smaller = std::move(attempt);
      in.placement.whole = p_.type(in.value).shape[0] * world - k;
    }
  }

  // Whether an op that indexes with values built from the data reads
  // anything computed from `input`: such an index is bounded by the even size
  // (index_copy_ into a row of `input` at `remainder(..., 4)`, class targets,
  // counted masks), so a smaller shard keeps the types and breaks the values.
  bool feeds_data_indices(int input) const {
    std::set<int> from = {input};
    bool feeds = false;
    for (int pass = 0; pass < 2; ++pass)  // twice: a loop's carried values
      for_each_node(p_.body, [&](const Node& n) {
        std::vector<int> ins = node_inputs(n);
        if (std::none_of(ins.begin(), ins.end(), [&](int v) { return from.count(v) > 0; })) return;
        from.insert(n.outputs.begin(), n.outputs.end());
        for (const auto& b : n.blocks) from.insert(b.params.begin(), b.params.end());
        const OpSpec* s = find_op(n.op);
        feeds = feeds || (s && (s->family == "index" || s->family == "subscript" || s->family == "dynamic" ||
                                n.op == "cross_entropy" || n.op == "nll_loss"));
      });
    return feeds;
  }

  void shard_param(int value, int dim) {
    for (auto& in : p_.inputs)
      if (in.value == value) in.placement.shard_dim = dim;
  }

  // Megatron's MLP: a column-parallel linear (weight and bias split by output
  // rows), an activation on this rank's slice of the hidden features, then
  // either a row-parallel linear (weight split by input columns) whose partial
  // sums are all-reduced, or an all-gather of the hidden features. Types are
  // one rank's; the whole hidden size is `world` times the local one.
  int tensor_parallel_block() {
    auto tp_dtype = [](const TensorType& t) {
      return (t.dtype == DType::f32 || t.dtype == DType::f64) && t.rank() >= 1 && t.numel() > 0;
    };
    auto v = g_.pick(tp_dtype);
    int x = v ? *v : g_.new_input({DType::f32, {4, 8}});
    const TensorType xt = p_.type(x);
    int64_t k = xt.shape.back(), hidden = g_.random_dim() + 1;
    int xc = g_.emit1("tp_copy", {{"self", ValueRef{x}}});
    int w1 = g_.new_param({xt.dtype, {hidden, k}}, Init::uniform, -0.5, 0.5);
    shard_param(w1, 0);
    std::vector<Arg> column = {{"input", ValueRef{xc}}, {"weight", ValueRef{w1}}};
    if (c_.coin(0.5)) {
      int b1 = g_.new_param({xt.dtype, {hidden}}, Init::uniform, -0.5, 0.5);
      shard_param(b1, 0);
      column.push_back({"bias", ValueRef{b1}});
    }
    int h = g_.emit1("linear", column);
    h = g_.emit1(c_.pick(std::vector<std::string>{"relu", "gelu", "silu", "tanh"}), {{"self", ValueRef{h}}});
    if (c_.coin(0.3)) return g_.emit1("tp_gather", {{"self", ValueRef{h}}, {"dim", int64_t(p_.type(h).rank() - 1)}});
    int64_t m = g_.random_dim() + 1;
    int w2 = g_.new_param({xt.dtype, {m, hidden}}, Init::uniform, -0.5, 0.5);
    shard_param(w2, 1);
    int y = g_.emit1("tp_reduce",
                     {{"self", ValueRef{g_.emit1("linear", {{"input", ValueRef{h}}, {"weight", ValueRef{w2}}})}}});
    if (c_.coin(0.5)) {  // the row-parallel bias is added once, after the reduction
      int b2 = g_.new_param({xt.dtype, {m}}, Init::uniform, -0.5, 0.5);
      y = g_.emit1("add", {{"self", ValueRef{y}}, {"other", ValueRef{b2}}});
    }
    return y;
  }

  void add_training_step() {
    // The loss reads a float value computed from a param; make one if needed.
    std::optional<int> src;
    if (p_.plan.kind == PlanKind::tp) {
      src = tensor_parallel_block();
      p_.body.yields.push_back(*src);
    }
    for (auto it = p_.body.yields.rbegin(); it != p_.body.yields.rend() && !src; ++it)
      if (is_float(p_.type(*it).dtype) && g_.depends_on_param(*it) && p_.type(*it).numel() > 0) src = *it;
    if (!src) {
      auto v = g_.pick([](const TensorType& t) { return is_float(t.dtype) && t.rank() >= 1 && t.numel() > 0; });
      int x = v ? *v : g_.new_input({DType::f32, {4, 8}});
      const TensorType xt = p_.type(x);
      int64_t k = xt.rank() ? xt.shape.back() : 1;
      int64_t m = g_.random_dim() + 1;
      int w = g_.new_param({xt.dtype, {m, k}}, Init::uniform, -0.5, 0.5);
      if (xt.rank() == 0) x = g_.emit1("reshape", {{"self", ValueRef{x}}, {"shape", IntList{1}}});
      src = g_.emit1("linear", {{"input", ValueRef{x}}, {"weight", ValueRef{w}}});
      p_.body.yields.push_back(*src);
    }
    const TensorType st = p_.type(*src);
    int loss;
    int pick = static_cast<int>(c_.below(3));
    if (pick == 0 && st.rank() == 2 && st.shape[1] > 1) {
      int y = g_.add_input({DType::i64, {st.shape[0]}}, InputKind::target, Init::uniform, 0, double(st.shape[1]));
      loss = g_.emit1("cross_entropy", {{"self", ValueRef{*src}}, {"target", ValueRef{y}}});
    } else {
      int y = g_.add_input(st, InputKind::target, Init::uniform, -1, 1);
      const char* fn = pick == 1 ? "l1_loss" : (pick == 2 ? "smooth_l1_loss" : "mse_loss");
      loss = g_.emit1(fn, {{"self", ValueRef{*src}}, {"target", ValueRef{y}}});
    }
    TrainStep& s = *p_.train;
    s.loss = loss;
    s.optimizer = static_cast<Optimizer>(c_.below(kOptimizerCount));
    s.lr = s.optimizer == Optimizer::sgd ? c_.pick(std::vector<double>{0.1, 0.01, 0.001})
                                         : c_.pick(std::vector<double>{0.01, 0.001});
    s.momentum = s.optimizer == Optimizer::sgd && c_.coin(0.5) ? 0.9 : 0.0;
    s.weight_decay = c_.coin(0.3) ? 0.01 : 0.0;
    s.steps = static_cast<int>(c_.range(1, g_.policy().max_train_steps));
    s.amsgrad = has_amsgrad(s.optimizer) && c_.coin(0.3);
    s.nesterov = s.nesterov_applies() && c_.coin(0.3);
    s.foreach = c_.coin(0.5);
    s.accumulate = p_.plan.world == 1 && c_.coin(0.2);  // drawn last: the rest of the step is as before
  }

  GenContext g_;
  Program& p_;
  Choices& c_;
  std::map<std::string, std::vector<const OpSpec*>> by_family_;
  std::vector<const OpSpec*> focus_;  // GenPolicy::focus_ops
};

Program generate_program(const GenPolicy& policy, Choices& choices, uint64_t seed) {
  Program p;
  p.seed = seed;
  p.policy_hash = policy.hash();
  p.target = policy.target;
  Generator(p, choices, policy).run();
  canonicalize(p);
  return p;
}

void grow_program(Program& p, Choices& choices, const GenPolicy& policy, int ops) {
  Generator(p, choices, policy).grow(ops);
  canonicalize(p);
}

bool add_training_step(Program& p, Choices& choices, const GenPolicy& policy) {
  if (!Generator(p, choices, policy).add_training()) return false;
  canonicalize(p);
  return true;
}

Program generate_program(const GenPolicy& policy, uint64_t seed) {
  SeededChoices c(seed);
  return generate_program(policy, c, seed);
}

}  // namespace dlfuzz
