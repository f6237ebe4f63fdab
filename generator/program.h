// The program IR: SSA values over typed tensors, nodes with named arguments,
// blocks for control flow, an optional training step and a parallel plan.
//
// Values are SSA names, but tensors are mutable as in TorchScript IR: an in-place
// node mutates its first argument (and, through aliasing, the base of a view) and
// program order is execution order.
#pragma once
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "generator/dtype.h"

namespace dlfuzz {

using Shape = std::vector<int64_t>;

// Sizes come from untrusted .dlf text: products of them saturate at INT64_MAX
// instead of overflowing, and no tensor type may have more than kMaxElements
// elements counting a zero-size dimension as 1 (so no product of its sizes,
// in any shape inference, can overflow).
constexpr int64_t kMaxElements = int64_t(1) << 40;
int64_t mul_saturating(int64_t a, int64_t b);
// The product of a shape's sizes with each 0 read as 1; saturating.
int64_t size_bound(const Shape& shape);

struct TensorType {
  DType dtype = DType::f32;
  Shape shape;
  int rank() const { return static_cast<int>(shape.size()); }
  int64_t numel() const;
  bool operator==(const TensorType& o) const { return dtype == o.dtype && shape == o.shape; }
  bool operator!=(const TensorType& o) const { return !(*this == o); }
};
std::string type_str(const TensorType& t);  // "f32[2,3]", "i64[]"

// How an input tensor is laid out in memory when the program receives it.
enum class Layout { contiguous, channels_last, strided };
// A tensor's placement across ranks under a parallel plan.
struct Placement {
  int shard_dim = -1;  // -1: replicated on every rank
  // Uneven shards: the whole tensor's size along shard_dim, split as
  // torch.tensor_split does (the first whole % world ranks get one more; rank
  // 0's is the size in the program). 0: even, world times the program's size.
  int64_t whole = 0;
  bool operator==(const Placement& o) const { return shard_dim == o.shard_dim && whole == o.whole; }
  int64_t whole_size(int64_t local, int world) const { return whole > 0 ? whole : local * world; }
  // Where rank's slice starts along shard_dim, and its size.
  std::pair<int64_t, int64_t> slice(int64_t local, int rank, int world) const;
};

enum class MemFormat { contiguous, channels_last, preserve };
const char* mem_format_name(MemFormat m);  // "contiguous_format", ...

// Argument values. Python numbers keep their kind (int vs float) because it
// changes type promotion.
struct None {
  bool operator==(const None&) const { return true; }
};
// A use of a value; with `item`, of its Python number (`.item()` of a 0-d
// tensor, printed `item(%v)`): a Scalar argument computed by the program.
struct ValueRef {
  int id = -1;
  bool item = false;
  bool operator==(const ValueRef& o) const { return id == o.id && item == o.item; }
};
struct ValueList {
  std::vector<int> ids;
  bool operator==(const ValueList& o) const { return ids == o.ids; }
};
using IntList = std::vector<int64_t>;
using ArgValue = std::variant<None, bool, int64_t, double, IntList, std::string, DType, MemFormat, ValueRef, ValueList>;

// Equal values; floats bit for bit (NaN equals NaN, -0.0 differs from 0.0),
// so a program with special numbers equals its parsed text.
bool same_value(const ArgValue& a, const ArgValue& b);

struct Arg {
  std::string name;  // the ATen schema's argument name
  ArgValue value;
  bool operator==(const Arg& o) const { return name == o.name && same_value(value, o.value); }
};

struct Node;
struct Block {
  std::vector<int> params;  // loop: one per carried value; checkpoint: per input
  std::vector<Node> nodes;
  std::vector<int> yields;  // loop: next carried values; if, checkpoint: results
  bool operator==(const Block& o) const;
};

struct Node {
  std::string op;  // OpSpec name; "loop", "if" and "checkpoint" are structural
  std::vector<Arg> args;
  std::vector<int> outputs;
  std::vector<Block> blocks;  // loop, checkpoint: body; if: then, else
  bool operator==(const Node& o) const {
    return op == o.op && args == o.args && outputs == o.outputs && blocks == o.blocks;
  }
  const Arg* arg(const std::string& name) const;
  Arg* arg(const std::string& name);
};

// loop, if and checkpoint: nodes with blocks and no OpSpec.
bool is_structural(const std::string& op);

struct Value {
  std::string name;  // printed as %name
  TensorType type;
  bool operator==(const Value& o) const { return name == o.name && type == o.type; }
};

enum class InputKind { data, param, target };
const char* input_kind_name(InputKind k);

// How an input's values are made: uniform in [lo, hi], or normal(lo=mean,
// hi=std), zeros or ones. Integers are uniform in [lo, hi). The values people
// write: `ints` (whole numbers in [lo, hi)) and `decimals` (one decimal digit,
// in [lo, hi]). `special` is uniform in [lo, hi] with one element in eight
// replaced by a value compilers get wrong (NaN, +-Inf, -0.0, denormals, the
// dtype's largest and smallest normal values); floating dtypes only. The
// formulas: runners/input_builder.cpp and build_input in dlfuzz_runtime.py.
enum class Init { uniform, normal, zeros, ones, special, ints, decimals };
// Inits that print and read two bounds: range(lo,hi), special(lo,hi), ...
bool init_has_bounds(Init i);
const char* init_name(Init i);

struct InputDecl {
  int value = -1;
  InputKind kind = InputKind::data;
  Layout layout = Layout::contiguous;
  Placement placement;
  Init init = Init::uniform;
  double lo = -1, hi = 1;
  bool operator==(const InputDecl& o) const {
    return value == o.value && kind == o.kind && layout == o.layout && placement == o.placement && init == o.init &&
           lo == o.lo && hi == o.hi;
  }
};

// SGD and Adam(W) as most training uses them; RMSprop and Adagrad for their
// other updates (running averages, accumulated squares), which a compiled
// optimizer step (inductor-step) lowers too. All five are in LibTorch 1.13.
enum class Optimizer { sgd, adam, adamw, rmsprop, adagrad };
constexpr int kOptimizerCount = 5;
const char* optimizer_name(Optimizer o);
// Adam, AdamW, RMSprop and Adagrad divide by a running root of squared
// gradients: a tiny gradient can move a param by a step of about lr.
bool is_adaptive(Optimizer o);
// The optimizers with an AMSGrad variant: Adam and AdamW.
bool has_amsgrad(Optimizer o);

// Training: the loss is a 0-d value of the body; each of `steps` iterations runs
// forward, backward through every param, and one optimizer step.
struct TrainStep {
  int loss = -1;
  Optimizer optimizer = Optimizer::sgd;
  double lr = 0.01, momentum = 0, weight_decay = 0;
  int steps = 1;
  // Variants with code paths of their own: AMSGrad (Adam, AdamW: a running
  // max), Nesterov (SGD with momentum), and torch.optim's foreach
  // implementation (Python only: LibTorch's C++ optimizers have one), what
  // CUDA users get by default and what a compiled step lowers to foreach kernels.
  bool amsgrad = false, nesterov = false, foreach = false;
  // Gradient accumulation, as training loops with micro-batches do it: two
  // forward and backward passes before each step, the second adding into the
  // .grad the first left (AccumulateGrad's in-place path). One rank only.
  bool accumulate = false;
  bool operator==(const TrainStep& o) const {
    return loss == o.loss && optimizer == o.optimizer && lr == o.lr && momentum == o.momentum &&
           weight_decay == o.weight_decay && steps == o.steps && amsgrad == o.amsgrad && nesterov == o.nesterov &&
           foreach == o.foreach && accumulate == o.accumulate;
  }
  // Forward and backward passes per step.
  int passes() const { return accumulate ? 2 : 1; }
  // The flags set, by name, as the .dlf and the Python runtime spell them.
  std::vector<std::string> flags() const;
  // Nesterov momentum needs SGD with momentum.
  bool nesterov_applies() const { return optimizer == Optimizer::sgd && momentum > 0; }
};

enum class PlanKind { none, dp, tp, zero };
const char* plan_name(PlanKind k);
struct ParallelPlan {
  int world = 1;
  PlanKind kind = PlanKind::none;
  bool operator==(const ParallelPlan& o) const { return world == o.world && kind == o.kind; }
  // Several ranks whose gradients the plan synchronises (DDP or ZeRO).
  bool data_parallel() const { return world > 1 && (kind == PlanKind::dp || kind == PlanKind::zero); }
  // A training plan whose step over the ranks equals one process's step
  // (DDP, ZeRO, tensor parallel): its reference is RUNNER@1.
  bool has_one_process_reference() const { return world > 1 && kind != PlanKind::none; }
};

constexpr int kFormatVersion = 1;

// The PyTorch a program is written for. Its type rules allow what that
// version's eager ATen runs on the CPU: Debian's LibTorch 1.13 (the native
// runners) lacks int16 and half kernels in many ops and the ops added since
// (rms_norm, scaled_dot_product_attention); PyTorch 2.x (the Python worker)
// has them. A .dlf says `target=torch2`; without it a program is for 1.13, which
// every runner can run.
enum class Target { torch113, torch2 };
const char* target_name(Target t);  // "torch1.13", "torch2"

struct Program {
  int version = kFormatVersion;
  uint64_t seed = 0;
  uint64_t policy_hash = 0;
  std::string device = "cpu";
  Target target = Target::torch113;
  // Mixed precision as training recipes write it: the forward (loss included)
  // under torch.autocast(device, dtype) with this dtype (bf16 or f16), the
  // backward and the optimizer step outside. Its type rules are CPU autocast's
  // (generator/autocast.h): torch2 programs on the CPU only.
  std::optional<DType> autocast;
  // A deque: adding a value never moves the others, so references to types stay valid.
  std::deque<Value> values;
  std::vector<InputDecl> inputs;
  Block body;  // body.yields are the program outputs
  std::optional<TrainStep> train;
  ParallelPlan plan;

  bool operator==(const Program& o) const {
    return version == o.version && seed == o.seed && policy_hash == o.policy_hash && device == o.device &&
           target == o.target && autocast == o.autocast && values == o.values && inputs == o.inputs && body == o.body &&
           train == o.train && plan == o.plan;
  }
  const TensorType& type(int id) const { return values.at(id).type; }
  int add_value(const std::string& name, const TensorType& t);
  const InputDecl* input_of(int value) const;
  bool is_training() const { return train.has_value(); }
  // Nodes of the body and all nested blocks, outermost first.
  int count_nodes() const;
};

// Runs p over `world` ranks, keeping its plan: shards become even (uneven
// sizes were chosen for the old world size). Explicit collectives' types may
// need infer_types() after.
void change_world(Program& p, int world);
// Runs p on one rank without a plan: every input replicated at one rank's
// size, except a tensor-parallel plan's split params, which become whole (its
// regions are the identity at world 1: the unsharded model). Types may need
// infer_types() after.
void to_one_rank(Program& p);

// Visit every node, nested blocks included, in program order.
template <class F>
void for_each_node(const Block& b, F&& f) {
  for (const auto& n : b.nodes) {
    f(n);
    for (const auto& inner : n.blocks) for_each_node(inner, f);
  }
}

// Whether some node, nested blocks included, satisfies pred (stops at the first).
template <class F>
bool any_node(const Block& b, F&& pred) {
  for (const auto& n : b.nodes) {
    if (pred(n)) return true;
    for (const auto& inner : n.blocks)
      if (any_node(inner, pred)) return true;
  }
  return false;
}

// Every value id a node reads through its arguments, and through one argument.
std::vector<int> node_inputs(const Node& n);
std::vector<int> arg_inputs(const ArgValue& v);

// Replace uses (arguments, yields, the loss) of each key by its value; chains
// a -> b -> c resolve to c. Definitions (outputs, block params) are untouched.
void substitute(Program& p, const std::map<int, int>& to);
void substitute(Block& b, const std::map<int, int>& to);
int resolve(const std::map<int, int>& to, int id);

}  // namespace dlfuzz
