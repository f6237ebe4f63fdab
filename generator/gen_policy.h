// Every probability and size knob of the generator in one place (YARPGen's
// GenPolicy). A program is a pure function of (policy, choices).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "generator/dtype.h"
#include "generator/program.h"

namespace dlfuzz {

struct GenPolicy {
  int min_nodes = 6, max_nodes = 30;
  int max_rank = 4;
  int max_dim = 6;  // largest size of one dimension
  double p_zero_size_dim = 0.01;
  double p_zero_dim_tensor = 0.05;  // 0-d inputs

  double p_training = 0.4;
  int max_train_steps = 3;
  double p_control_flow = 0.25;  // chance per program of one loop or if
  double p_inplace = 0.25;       // chance per program of an in-place pattern
  double p_template = 0.25;      // chance per program of a realistic block (generator/templates.h),
                                 // none when focus_ops or exclude_ops steer the program
  std::vector<std::string> templates;  // the blocks drawn from (by name); empty: every one
  int max_outputs = 3;
  // The value policy, per floating data input and per Python-number argument:
  // special values (NaN, +-Inf, -0.0, denormals, the dtype's limits; inputs
  // get Init::special) and the values people write (small integers, one
  // decimal digit). Both are rarer than plain uniform values: a program whose
  // reference is all NaN tests nothing.
  double p_special_values = 0.06;
  double p_written_values = 0.15;
  // Chance that a binary op's Python-number operand is `.item()` of a 0-d
  // value the program computed (a Scalar the data decides: a graph break, or
  // an unbacked symbol under capture_scalar_outputs).
  double p_item = 0.15;
  // Chance that a torch2 CPU program runs its forward and loss under
  // torch.autocast (bfloat16, one in four float16): mixed-precision training
  // and inference as AMP recipes write it (Program::autocast).
  double p_autocast = 0.2;
  // Chance that a torch2 one-rank training program runs a stretch of its
  // forward under torch.utils.checkpoint (generator/checkpoint.h), as
  // activation checkpointing in large-model training does.
  double p_checkpoint = 0.25;
  // Chance that a torch2 one-rank program's loop or if is spelled as a
  // higher-order op, torch._higher_order_ops.scan or torch.cond
  // (generator/hop.h), where its branches or body allow it.
  double p_hop = 0.5;
  // Chance that such a loop is spelled as torch._higher_order_ops.while_loop
  // (a counter carried beside its values) instead of scan: another lowering
  // in Dynamo, export, Inductor and AOTInductor, and another autograd.
  double p_while_loop = 0.5;
  // Chance that a torch2 one-rank loop that is not a higher-order op runs its
  // body as a torch.compiler.nested_compile_region called on each trip
  // (region=true, generator/hop.h): hierarchical compilation of a layer stack.
  double p_region = 0.5;
  // Ranks of generated programs. Above 1: training programs get a dp or zero
  // plan, inference programs explicit collectives (see policy_for_world).
  int world = 1;
  std::string device = "cpu";  // or "cuda": where the runners put every tensor
  // The PyTorch the programs are for (program.h): torch2 programs use the
  // dtypes and ops 1.13 lacks; only PyTorch 2.x's runners can run them all.
  Target target = Target::torch113;

  // Relative weight of each dtype for new data inputs.
  std::map<DType, double> dtype_weights = {{DType::f32, 60}, {DType::f64, 8}, {DType::bf16, 5}, {DType::f16, 3},
                                           {DType::i64, 8},  {DType::i32, 4}, {DType::i16, 2},  {DType::i8, 2},
                                           {DType::u8, 2},   {DType::b8, 4},   {DType::u16, 1},
                                           {DType::u32, 1},  {DType::u64, 1}};
  // (i16, u16, u32 and u64 only for torch2 programs: the 1.13 ones skip them.)
  // Relative weight of each op family (see generator/ops/families.def).
  std::map<std::string, double> family_weights = {
      {"unary", 14},     {"activation", 12}, {"binary", 14},  {"compare", 4},
      {"ternary", 4},    {"cast", 3},        {"reduce", 8},   {"shape", 7},
      {"view", 7},       {"linalg", 6},      {"conv", 5},     {"pool", 3},
      {"norm", 5},       {"embedding", 1},   {"loss", 1},     {"inplace", 4},
      {"collective", 0}, {"factory", 3},     {"index", 6},    {"scan", 3},
      {"pad", 3},        {"einsum", 1.5},    {"upsample", 2}, {"attention", 1.5},  // attention: torch2 programs only
      {"dynamic", 2},    {"subscript", 3},   {"foreach", 2},  {"random", 1.5},
      {"bitcast", 2},                         // bitcast: torch2 programs only
      {"quantize", 1},   {"autograd", 1.5}};  // autograd: torch2 training programs only

  // Steering: ops to focus on (drawn for most ops when not empty) and ops
  // never drawn. Helper ops a generate function emits (guards, index
  // arithmetic) are still used.
  std::vector<std::string> focus_ops;
  std::vector<std::string> exclude_ops;

  // Stable across machines: FNV-1a over the printed knobs.
  uint64_t hash() const;
};

// A policy from JSON (`dlfuzz fuzz --policy FILE`): the default policy with the
// keys given replaced; the keys are GenPolicy's field names, dtype_weights by
// dtype name ("f32") and family_weights by family. Unknown keys, families,
// dtypes and ops are errors: "" or the error text.
std::string policy_from_json(const std::string& text, GenPolicy& policy);
// Every knob as JSON, in the form policy_from_json reads.
std::string policy_to_json(const GenPolicy& policy);
// Checks that every name in focus_ops and exclude_ops is an op, and every one
// in templates a template: "" or the error.
std::string check_policy_ops(const GenPolicy& policy);

// The policy (by default the default one) for programs over `world` ranks:
// collectives get a weight when there is more than one rank and none is set.
GenPolicy policy_for_world(int world, GenPolicy base = GenPolicy());

}  // namespace dlfuzz
