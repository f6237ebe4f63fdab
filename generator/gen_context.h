// What an op's generate function sees: the program so far, the random choices,
// the policy, and helpers that pick or create operands that satisfy a type
// predicate. Shapes and dtypes are solved constructively: a helper only returns
// operands that fit, or makes a fresh input that does.
#pragma once
#include <functional>
#include <limits>
#include <optional>
#include <set>

#include "generator/choices.h"
#include "generator/gen_policy.h"
#include "generator/op_spec.h"
#include "generator/program.h"

namespace dlfuzz {

// A conservative bound on a value's elements, used to keep the float64 run finite.
struct Interval {
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  bool within(double a, double b) const { return lo >= a && hi <= b; }
};

using TypePred = std::function<bool(const TensorType&)>;

class GenContext {
 public:
  GenContext(Program& p, Choices& c, const GenPolicy& policy);
  // Takes over a finished program (a corpus seed) so that ops can be appended
  // to it: rebuilds the ranges, aliasing and name counters that generating it
  // would have recorded. Call once, before anything is emitted.
  void adopt();

  Choices& choices() { return c_; }
  const GenPolicy& policy() const { return policy_; }
  const Program& program() const { return p_; }
  bool training() const { return p_.is_training(); }

  // --- operands -------------------------------------------------------------
  // A visible value that satisfies pred (recent values preferred), if any.
  std::optional<int> pick(const TypePred& pred);
  // The first operand of an op: the focus value when one is set (inside loop
  // bodies and branches), otherwise as pick().
  std::optional<int> first(const TypePred& pred);
  // pick(), or a fresh data input of type `fresh` when nothing fits.
  int pick_or_input(const TypePred& pred, const TensorType& fresh);
  // A value computed by the program (no input) for which ok(id) holds, if any.
  std::optional<int> pick_computed(const std::function<bool(int)>& ok);
  int new_input(const TensorType& t);
  int new_param(const TensorType& t, Init init, double a, double b);
  // A fresh i64 data input whose values are indices in [0, bound): in range
  // for an op that indexes a dim of that size (bound >= 1).
  int new_index_input(const Shape& shape, int64_t bound);
  // An operand whose elements satisfy the op's domain, inserting abs/add/clamp
  // nodes in front when they may not.
  int in_domain(int value, Domain d, DType want_float = DType::f32);
  // A value that may be mutated in place now (see gen_context.cpp for the rules).
  std::optional<int> pick_mutable(const TypePred& pred);
  // Could a and b share storage (same value, or views of one base)?
  bool may_alias(int a, int b) const { return a == b || root_.at(a) == root_.at(b); }

  // --- types ----------------------------------------------------------------
  DType random_dtype();  // by the policy's weights
  // Under autocast, the half dtype that is not autocast's (never drawn there).
  bool other_half(DType t) const;
  bool trainable_dtype(DType t) const;  // a dtype training programs compute in
  DType random_float_dtype(bool half_ok = true);
  Shape random_shape(int min_rank, int max_rank);
  int64_t random_dim();  // 1..max_dim, rarely 0 when zero-size dims are on
  Interval range_of(int value) const { return ranges_.at(value); }

  // --- building -------------------------------------------------------------
  // Append a node: runs the op's type rule, creates its outputs, and records
  // ranges and aliasing. Returns the output ids, or nullopt (node dropped) when
  // the type rule rejects it.
  std::optional<std::vector<int>> emit(Node n);
  int emit1(const std::string& op, std::vector<Arg> args);  // must succeed

  // Scopes for loop bodies and branches.
  void push_block(Block* b, std::optional<int> focus);
  void pop_block();
  void set_focus(std::optional<int> v) { focus_ = v; }
  std::optional<int> focus() const { return focus_; }
  bool at_top_level() const { return blocks_.size() == 1; }
  bool depends_on_param(int v) const { return from_param_.count(v) > 0; }
  // A gradient flows through v: a training program's value computed from a param.
  bool carries_grad(int v) const { return training() && depends_on_param(v); }
  // Whether every backend computes v's bits alike (see gen_context.cpp): what
  // ops that read bits (view(dtype)) or rank values (argsort) may take.
  bool is_exact(int v) const { return exact_.count(v) > 0; }
  // Every float value node n reads is exact: what an op that reads bits
  // (OpSpec::reads_bits) needs of its operands.
  bool floats_exact(const Node& n) const;
  // After adopt(): the top-level nodes (indices) that read bits of a value not
  // exact where they read it (a training program's param, say).
  const std::vector<int>& inexact_bit_reads() const { return inexact_bit_reads_; }
  std::string last_error;  // the type rule's text when emit() rejects a node

 private:
  bool visible(int v) const;
  int add_input(const TensorType& t, InputKind k, Init init, double a, double b);
  void record_input(int id, const TensorType& t, InputKind k, Init init, double a, double b);
  void record(const OpSpec* spec, const Node& n);
  // A checkpoint as if its body ran in place (it is the identity wrapper):
  // params take their inputs' facts, outputs their yields'.
  void record_checkpoint(const Node& n, int index);
  void copy_facts(int from, int to);

  Program& p_;
  Choices& c_;
  const GenPolicy& policy_;
  std::vector<Block*> blocks_;
  std::vector<std::vector<int>> scopes_;  // values defined in each open block
  std::optional<int> focus_;
  std::vector<Interval> ranges_;
  std::vector<int> root_;      // alias root of each value (itself if none)
  std::set<int> no_write_;     // expanded views, maybe-aliases, inputs
  std::set<int> root_read_;    // roots read by a non-view node
  std::set<int> saved_roots_;  // roots autograd saved (producer saves output)
  std::set<int> from_param_;   // values computed from a param
  std::set<int> exact_;        // values with the same bits on every backend
  std::set<int> may_nan_;      // float values that may hold a NaN (of a special-valued input)
  std::vector<int> inexact_bit_reads_;
  int next_name_ = 1;
  int n_data_ = 0, n_param_ = 0, n_target_ = 0;

  friend class Generator;
};

}  // namespace dlfuzz
