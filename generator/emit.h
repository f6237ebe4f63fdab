// Emitters: TorchScript source for torch::jit::compile, and a standalone Python
// repro that rebuilds the inputs, runs the program eagerly and through a
// compiled path, and prints the difference.
#pragma once
#include <string>

#include "generator/program.h"

namespace dlfuzz {

// The program as a Python/TorchScript function `name(inputs...)` returning a
// tuple of its outputs followed, for training programs, by the loss.
// With `torchscript`, spellings use OpSpec::torchscript where it differs.
// With `method`, it is a method taking `self` first (for a TorchScript module).
std::string emit_function(const Program& p, const std::string& name, bool torchscript, bool method = false);

// TorchScript source defining `forward`; see emit_function.
std::string emit_torchscript(const Program& p);

// A script runnable with plain python3 and any PyTorch from 1.13 on.
// `python3 repro.py [--backend inductor|aot_eager|eager|script] [--dump-json F]`.
std::string emit_python(const Program& p);

// Python name of a value: "x0" stays, "%12" becomes "v12".
std::string py_name(const Program& p, int id);
// A float as a Python literal that keeps float-ness: 1.0, 1e-05, float('inf').
std::string py_float(double d);

}  // namespace dlfuzz
