// The standalone Python repro: plain python3, any PyTorch from 1.13 on. It
// rebuilds the inputs with the same float64 formula as the C++ input builder,
// runs the program eagerly and through a compiled path, and prints the
// difference. A PyTorch developer runs it as is. A program over several ranks
// starts them itself: one process a rank, Gloo over a TCPStore on 127.0.0.1.
//
// The runtime part is runners/python/dlfuzz_runtime.py, the module the Python
// worker imports; CMake embeds its text as kPythonRuntime (one source of
// truth), and the repro is that text plus the program's metadata and function.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

#include "generator/dlf.h"
#include "generator/emit.h"

namespace dlfuzz {

// runners/python/dlfuzz_runtime.py's text, generated at build time (CMakeLists.txt).
extern const char* const kPythonRuntime;

namespace {

const char* layout_name(Layout l) {
  return l == Layout::channels_last ? "channels_last" : l == Layout::strided ? "strided" : "contiguous";
}

// A float for JSON: non-finite values as the strings "nan", "inf", "-inf"
// (JSON has no such numbers; Python's float() reads these strings back).
nlohmann::json json_float(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  return d;
}

}  // namespace

std::string emit_python(const Program& p) {
  std::string s = "#!/usr/bin/env python3\n";
  s += "# dlfuzz repro. The program, as dlfuzz prints it:\n";
  std::string dlf = print_program(p);
  size_t start = 0;
  while (start < dlf.size()) {
    size_t end = dlf.find('\n', start);
    s += "#   " + dlf.substr(start, end - start) + "\n";
    start = end + 1;
  }
  s += kPythonRuntime;
  s += "\n\n# ---- the program\n";
  s += fmt::format("SEED = {}\n", p.seed);
  s += fmt::format("DEVICE = \"{}\"\n", p.device);
  s += fmt::format("WORLD = {}\n", p.plan.world);
  s += fmt::format("PLAN = \"{}\"\n", plan_name(p.plan.kind));
  s += "# (shape, dtype, init, lo, hi, layout, shard_dim, whole) per input, in the program's order\nINPUTS = [\n";
  std::vector<std::string> params;
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    const InputDecl& d = p.inputs[i];
    const TensorType& t = p.type(d.value);
    std::string shape = fmt::format("[{}]", fmt::join(t.shape, ", "));
    s += fmt::format("    ({}, {}, \"{}\", {}, {}, \"{}\", {}, {}),  # {}\n", shape, dtype_torch_name(t.dtype),
                     init_name(d.init), py_float(d.lo), py_float(d.hi), layout_name(d.layout), d.placement.shard_dim,
                     d.placement.whole, py_name(p, d.value));
    if (d.kind == InputKind::param) params.push_back(std::to_string(i));
  }
  s += "]\n";
  s += fmt::format("PARAMS = [{}]\n", fmt::join(params, ", "));
  if (p.train)
    s += fmt::format("TRAIN = (\"{}\", {}, {}, {}, {}, {})\n", optimizer_name(p.train->optimizer),
                     py_float(p.train->lr), py_float(p.train->momentum), py_float(p.train->weight_decay),
                     p.train->steps, nlohmann::json(p.train->flags()).dump());  // a list of strings
  else s += "TRAIN = None\n";
  s += "\n\n" + emit_function(p, "program", false);
  s += "\n\nif __name__ == \"__main__\":\n";
  s += "    sys.exit(main(ProgramMeta(SEED, DEVICE, WORLD, PLAN, INPUTS, PARAMS, TRAIN), program))\n";
  return s;
}

nlohmann::json python_worker_program(const Program& p) {
  nlohmann::json inputs = nlohmann::json::array();
  std::vector<int> params;
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    const InputDecl& d = p.inputs[i];
    const TensorType& t = p.type(d.value);
    inputs.push_back({t.shape, dtype_torch_name(t.dtype), init_name(d.init), json_float(d.lo), json_float(d.hi),
                      layout_name(d.layout), d.placement.shard_dim, d.placement.whole});
    if (d.kind == InputKind::param) params.push_back(static_cast<int>(i));
  }
  nlohmann::json train = nullptr;
  if (p.train)
    train = {optimizer_name(p.train->optimizer), json_float(p.train->lr), json_float(p.train->momentum),
             json_float(p.train->weight_decay), p.train->steps, p.train->flags()};
  EmitOptions fp64;
  fp64.float64 = true;
  return {{"seed", p.seed},
          {"device", p.device},
          {"world", p.plan.world},
          {"plan", plan_name(p.plan.kind)},
          {"inputs", inputs},
          {"params", params},
          {"train", train},
          {"function", emit_function(p, "program", false)},
          {"function_fp64", emit_function(p, "program", fp64)}};
}

}  // namespace dlfuzz
