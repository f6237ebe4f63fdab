// One record per op: its parameters (named as in the ATen schema), its type
// rule, how to generate a valid use of it, and how to spell it in Python and
// TorchScript. Families register their specs from generator/ops/*.cpp.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "generator/program.h"

namespace dlfuzz {

class GenContext;
struct OpSpec;

enum class ParamKind {
  tensor,
  tensor_list,
  tensor_or_number,  // a tensor, or a Python int/float (ATen's Scalar overloads)
  number,            // Python int or float
  int_,
  float_,
  bool_,
  int_list,
  str,
  dtype,
  mem_format,
};

struct ParamSpec {
  std::string name;
  ParamKind kind;
  bool optional = false;    // None allowed
  bool positional = false;  // printed without `name=` (.dlf and Python)
  bool in_python = true;    // false: an ATen-only argument the Python API lacks
  bool grad = true;         // false: only its dtype or shape is read (no gradient flows)
  // false: the IR's own annotation, never passed to PyTorch (a data-dependent
  // op's `count`: how many elements the program's values give it).
  bool in_aten = true;
  // Where the Python API names the argument differently (grid_sample's `mode`
  // for ATen's `interpolation_mode`), and, for an int that Python spells as a
  // string, the strings by value (0 -> "bilinear", ...).
  std::string python_name = "";
  std::vector<std::string> python_strings = {};
};

// What an op needs of its first input's values so the float64 run stays finite.
// unit: inside (-1, 1) (asin, atanh, erfinv); probability: inside (0, 1) (ndtri);
// finite: no NaN and no huge values (fake quantization casts x / scale to int64).
enum class Domain { any, positive, nonzero, bounded, unit, probability, finite };

// Type rule: fill `out` with the node's output types, or return an error text.
using InferFn = std::string (*)(const Program& p, const Node& n, std::vector<TensorType>& out);
// Generation: choose arguments for `n` (n.op is set) through the context;
// return false when this op cannot be used right now.
using GenFn = bool (*)(GenContext& g, const OpSpec& spec, Node& n);

struct OpSpec {
  std::string name;    // .dlf name, e.g. "add", "add_", "gelu"
  std::string family;  // generation weight group, e.g. "unary", "binary"
  std::string aten;    // e.g. "aten::add_" (the overload is chosen from the arguments)
  std::vector<ParamSpec> params;
  InferFn infer = nullptr;
  GenFn generate = nullptr;
  Domain domain = Domain::any;
  bool differentiable = true;  // autograd has formulas for its float tensor inputs
  bool inplace = false;        // mutates its first argument
  bool view = false;           // output aliases its first argument
  bool saves_output = false;   // autograd saves the result: mutating it breaks backward
  // The output shares storage with the first argument in some cases and not in
  // others (reshape of a contiguous tensor, a cast to the same dtype), or is a
  // view that may not be written (expanded, or one of several split views).
  bool may_alias = false;
  // ATen returns a tuple and the node keeps its first elements (sort's values
  // without its indices): the emitters index the result.
  bool tuple_result = false;
  bool float_only = false;     // inputs must be floating point (no int/bool kernels)
  bool int_only = false;       // inputs must be integer or bool (bitwise ops, gcd)
  bool bool_ok = false;        // accepts bool tensors
  bool half_ok = true;         // has CPU kernels for f16 in LibTorch 1.13 (2.x has them all)
  bool half_in_torch2 = true;  // false: not even PyTorch 2.x has CPU f16/bf16 kernels (cdist)
  bool torch2_only = false;    // added after 1.13: only in target=torch2 programs
  // Its result turns its float operands' exact bits into an index, a truth
  // value or an integer (argmax, argsort, logical_xor, view(dtype)): generated
  // only of values with the same bits on every backend (GenContext::is_exact),
  // since the last-bit differences of float arithmetic would then be compared
  // exactly.
  bool reads_bits = false;
  // Python / TorchScript spelling: "torch.add", "torch.nn.functional.gelu", or
  // ".add_" for a method on the first argument. Empty: same as python.
  std::string python;
  std::string torchscript;
  // Where the Python API orders its positional arguments differently from the
  // ATen schema (F.embedding(input, weight) vs aten::embedding(weight, indices)):
  // the parameter names in Python's positional order. Empty: `positional` params
  // in schema order.
  std::vector<std::string> python_positional;
  // Keyword arguments the Python spelling always adds, as Python text, where
  // one Python function stands for several ATen ops (F.interpolate's
  // "mode='bilinear'"). TorchScript calls the ATen op and leaves them out.
  std::string python_kwargs;
  // Spelled as Python's subscript in both Python and TorchScript: `self[i, j]`
  // (aten::index), or for an in-place op the assignment `self[i, j] = values`
  // (aten::index_put_): the paths Dynamo traces as getitem / setitem.
  bool subscript = false;

  const ParamSpec* param(const std::string& name) const;
};

// The registry. Families add themselves through register_ops_<family>() calls
// listed in generator/ops/families.def.
const std::vector<OpSpec>& all_ops();
// The op's type rule, after checking the program's target has the op: what
// generation, type inference and the verifier all call.
std::string infer_node(const OpSpec& s, const Program& p, const Node& n, std::vector<TensorType>& out);
const OpSpec* find_op(const std::string& name);
// An op's name without the trailing `_` of its in-place form ("clamp_" -> "clamp").
std::string out_of_place_name(const std::string& op);
// Ops that communicate across ranks: the explicit collectives and tensor
// parallelism's regions. The runners execute them on the rank's process group.
bool is_collective(const OpSpec& s);
std::vector<std::string> op_families();

// Helpers shared by the families' type rules.
namespace infer_util {
const TensorType* tensor_arg(const Program& p, const Node& n, const std::string& name);
int64_t int_arg(const Node& n, const std::string& name, int64_t dflt);
double float_arg(const Node& n, const std::string& name, double dflt);
bool bool_arg(const Node& n, const std::string& name, bool dflt);
const IntList* int_list_arg(const Node& n, const std::string& name);
std::string str_arg(const Node& n, const std::string& name, const std::string& dflt);
// Broadcast two shapes; false if incompatible.
bool broadcast(const Shape& a, const Shape& b, Shape& out);
// Normalize a possibly negative dim into [0, rank); false if out of range.
// Rank-0 tensors accept dims -1 and 0, as PyTorch does.
bool wrap_dim(int64_t& dim, int rank);
// The ScalarKind of an argument (a Python number or None), or of a tensor operand.
ScalarKind scalar_kind(const ArgValue& v);
// The kind of Python number `.item()` gives for a tensor of dtype t.
ScalarKind scalar_kind_of(DType t);
inline constexpr const char* kNoPromotion =
    "PyTorch does not promote these dtypes (uint16/32/64 with another integer type)";
// Result dtype for an op whose named arguments take part in type promotion;
// nullopt where PyTorch refuses the promotion (a wide unsigned type with an int).
std::optional<DType> promoted(const Program& p, const Node& n, const std::vector<std::string>& names);
}  // namespace infer_util

}  // namespace dlfuzz
