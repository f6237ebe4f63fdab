// Emitters: TorchScript source for torch::jit::compile, and a standalone Python
// repro that rebuilds the inputs, runs the program eagerly and through a
// compiled path, and prints the difference.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "generator/program.h"

namespace dlfuzz {

// The program as a Python/TorchScript function `name(inputs...)` returning a
// tuple of its outputs followed, for training programs, by the loss.
// With `torchscript`, spellings use OpSpec::torchscript where it differs.
// With `method`, it is a method taking `self` first (for a TorchScript module).
std::string emit_function(const Program& p, const std::string& name, bool torchscript, bool method = false);

// emit_function's choices. With `float64`, every floating dtype literal of the
// program (casts, factory dtypes) is spelled float64: the function of the
// float64 twin (py-eager64), whose inputs are float64 too.
struct EmitOptions {
  bool torchscript = false;
  bool method = false;
  bool float64 = false;
};
std::string emit_function(const Program& p, const std::string& name, const EmitOptions& options);

// TorchScript source defining `forward`; see emit_function.
std::string emit_torchscript(const Program& p);

// A script runnable with plain python3 and any PyTorch from 1.13 on.
// `python3 repro.py [--backend inductor|aot_eager|eager|script] [--dump-json F]`.
std::string emit_python(const Program& p);

// What the Python worker (runners/python/worker.py) needs of a program, for
// runners/python/dlfuzz_runtime.py's ProgramMeta: seed, device, world, plan,
// inputs ([shape, dtype, init, lo, hi, layout, shard_dim, whole] each; non-finite
// floats as "nan"/"inf"/"-inf"), params (input indices), train (null or
// [optimizer, lr, momentum, weight_decay, steps]), and the program's function
// `program` as Python source: "function", and "function_fp64" for py-eager64.
nlohmann::json python_worker_program(const Program& p);

// Python name of a value: "x0" stays, "%12" becomes "v12".
std::string py_name(const Program& p, int id);
// A float as a Python literal that keeps float-ness: 1.0, 1e-05, float('inf').
std::string py_float(double d);

}  // namespace dlfuzz
