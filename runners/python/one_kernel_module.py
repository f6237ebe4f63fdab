"""Inductor's C++ kernels of one graph compiled as ONE module.

On the CPU, Inductor's Python wrapper compiles every kernel of a graph with
a g++ run of its own (async_compile.cpp_pybinding). A run costs ~1 s whatever
the kernel: ~0.6 s to load the 135 MB precompiled header, ~0.15 s to link, a
tiny kernel adds ~0.2 s. That is most of a small program's compile time
(bench/python_phases.py: 56 g++ runs, 65 of 95 s, for 16 programs). Here the
kernels a graph defines before its wrapper waits for them are compiled
together: one source that holds each kernel's code as Inductor generated it,
its `kernel` renamed, and one Python binding per kernel written as Inductor
writes its own, built and loaded by Inductor's own CppPythonBindingsCodeCache
(same flags, same precompiled header). The kernels' code is byte for byte
Inductor's; only how many of them share a shared library changes.

The build is deferred to the first kernel call (LazyKernel), so it takes
every kernel defined by then: every graph of a batch when its first call ran
them eagerly (eager_first_call.py). A kernel's first call rebinds its name in
the wrapper module to the built kernel, so later calls go to it directly.

Should the shared build fail (two kernels defining one name), every kernel is
built alone, as Inductor would have, so a kernel that does not compile fails
with Inductor's own error, raised as an InductorError (a compile error) from
its first call. install() does nothing on a PyTorch whose Inductor lacks the
functions it wraps; install(lazy=False) builds a graph's kernels when its
wrapper module waits for them, as Inductor does (bench/python_phases.py's
-graph configurations).
"""
import re
import threading

GLUE_HEAD = """
// Python bindings of the kernels above (one module, one function per kernel),
// as Inductor's CppPythonBindingsCodeCache writes them for one.
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <sstream>
#include <cstdlib>
#include <cerrno>

static void* (*_torchinductor_pyobject_tensor_data_ptr)(PyObject* obj);

template <typename T> static inline T parse_arg(PyObject* const* args, size_t n) {
    static_assert(std::is_pointer_v<T>, "arg type must be pointer or long");
    return static_cast<T>(_torchinductor_pyobject_tensor_data_ptr(args[n]));
}
template <> inline int64_t parse_arg<int64_t>(PyObject* const* args, size_t n) {
    auto result = PyLong_AsSsize_t(args[n]);
    if(result == -1 && PyErr_Occurred()) [[unlikely]]
        throw std::runtime_error("expected int arg");
    return result;
}
template <> inline uintptr_t parse_arg<uintptr_t>(PyObject* const* args, size_t n) {
    auto result = PyLong_AsVoidPtr(args[n]);
    if(result == reinterpret_cast<void*>(-1) && PyErr_Occurred()) [[unlikely]]
        throw std::runtime_error("expected int arg");
    return reinterpret_cast<uintptr_t>(result);
}
template <> inline float parse_arg<float>(PyObject* const* args, size_t n) {
    auto result = PyFloat_AsDouble(args[n]);
    if(result == -1.0 && PyErr_Occurred()) [[unlikely]]
        throw std::runtime_error("expected float arg");
    return static_cast<float>(result);
}
"""

GLUE_ENTRY = """
static PyObject* kernel_{i}_py(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {{
    try {{
        if(nargs != {arg_len}) [[unlikely]]
            throw std::runtime_error("requires {arg_len} args");
        dlfuzz_kernel_{i}({parse_args}); Py_RETURN_NONE;
    }} catch(std::exception const& e) {{
        PyErr_SetString(PyExc_RuntimeError, e.what());
        return nullptr;
    }} catch(...) {{
        PyErr_SetString(PyExc_RuntimeError, "unhandled error");
        return nullptr;
    }}
}}
"""

GLUE_TAIL = """
static PyMethodDef py_methods[] = {{
{methods}
    {{NULL, NULL, 0, NULL}}}};

static struct PyModuleDef py_module = {{PyModuleDef_HEAD_INIT, "kernel", NULL, -1, py_methods}};

PyMODINIT_FUNC PyInit_kernel(void) {{
    const char* str_addr = std::getenv("_TORCHINDUCTOR_PYOBJECT_TENSOR_DATA_PTR");
    if(!str_addr) {{
        PyErr_SetString(PyExc_RuntimeError, "_TORCHINDUCTOR_PYOBJECT_TENSOR_DATA_PTR must be set");
        return nullptr;
    }}
    char* endptr = nullptr;
    errno = 0;
    uintptr_t addr = std::strtoull(str_addr, &endptr, 10);
    if(errno != 0 || endptr == str_addr || addr == 0) {{
        PyErr_SetString(PyExc_RuntimeError, "Failed to parse _TORCHINDUCTOR_PYOBJECT_TENSOR_DATA_PTR");
        return nullptr;
    }}
    _torchinductor_pyobject_tensor_data_ptr = reinterpret_cast<decltype(_torchinductor_pyobject_tensor_data_ptr)>(addr);
    return PyModule_Create(&py_module);
}}
"""

# A kernel's entry point as Inductor's C++ backend writes it.
ENTRY = re.compile(r'extern\s+"C"\s+void\s+kernel\s*\(')
INCLUDE = re.compile(r"^\s*#\s*include\b.*$", re.M)


def combined_source(kernels):
    """One translation unit for [(argtypes, source), ...]: every kernel's
    #include lines first (so no header sees the renaming), then each kernel's
    code with `kernel` defined to dlfuzz_kernel_I, then the bindings."""
    includes, bodies = [], []
    for i, (_, source) in enumerate(kernels):
        for line in INCLUDE.findall(source):
            if line.strip() not in includes:
                includes.append(line.strip())
        body = INCLUDE.sub("", source)
        bodies.append(f"#define kernel dlfuzz_kernel_{i}\n{body}\n#undef kernel\n")
    glue = [GLUE_HEAD]
    methods = []
    for i, (argtypes, _) in enumerate(kernels):
        parse_args = ", ".join(f"parse_arg<{t.replace('const ', '')}>(args, {n})" for n, t in enumerate(argtypes))
        glue.append(GLUE_ENTRY.format(i=i, arg_len=len(argtypes), parse_args=parse_args))
        binding = f"reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(kernel_{i}_py))"
        methods.append(f'    {{"kernel_{i}", {binding}, METH_FASTCALL, ""}},')
    glue.append(GLUE_TAIL.format(methods="\n".join(methods)))
    return "\n".join(includes) + "\n" + "".join(bodies) + "".join(glue)


class PendingKernels:
    """The kernels defined since the last build; the first result asked for
    builds them all."""

    def __init__(self, build_alone):
        self.build_alone = build_alone  # (argtypes, source) -> the kernel, Inductor's own way
        self.lock = threading.Lock()
        self.pending = []  # [(argtypes, source, slot)]
        self.builds = 0    # shared builds made (for tests and benches)

    def add(self, argtypes, source):
        slot = {}
        with self.lock:
            self.pending.append((list(argtypes), source, slot))
        return lambda: self.result(slot)

    def result(self, slot):
        with self.lock:
            if "fn" not in slot and "error" not in slot:
                self.build(self.pending)
                self.pending = []
        if "error" in slot:
            raise slot["error"]
        return slot["fn"]

    def build(self, batch):
        if not batch:
            return
        if len(batch) > 1 and all(len(ENTRY.findall(src)) == 1 for _, src, _ in batch):
            from torch._inductor.codecache import CppPythonBindingsCodeCache
            try:
                module = CppPythonBindingsCodeCache.load_async(
                    combined_source([(a, s) for a, s, _ in batch]), "cpu")()
                for i, (_, _, slot) in enumerate(batch):
                    slot["fn"] = getattr(module, f"kernel_{i}")
                self.builds += 1
                return
            except Exception:  # built alone below: each kernel fails, or not, as Inductor's own build
                pass
        for argtypes, source, slot in batch:
            try:
                slot["fn"] = self.build_alone(argtypes, source)
            except Exception as e:
                slot["error"] = e


class LazyKernel:
    """A kernel as Inductor's wrapper module holds it until its first call.
    Not a Future, so the module's async_compile.wait() leaves it alone; that
    wait() records where the module keeps it (homes), and the first call puts
    the built kernel there."""

    def __init__(self, get):
        self.get = get
        self.homes = []  # [(the wrapper module's globals, name)]

    def __call__(self, *args):
        try:
            fn = self.get()
        except Exception as e:  # a compile error, as Inductor raises one while compiling
            from torch._inductor.exc import InductorError
            raise InductorError(e, None) from e
        for scope, name in self.homes:
            scope[name] = fn
        return fn(*args)


PENDING = None
ORIGINAL = None  # Inductor's own AsyncCompile.cpp_pybinding, once install() replaced it
ORIGINAL_WAIT = None


def install(lazy=True):
    """Route Inductor's C++ kernel builds through PendingKernels (once per
    process): built at the first kernel call (lazy) or when the graph's
    wrapper module waits for its kernels. False where this PyTorch's Inductor
    has no such builds."""
    global PENDING, ORIGINAL, ORIGINAL_WAIT
    try:
        from torch._inductor.async_compile import AsyncCompile
        from torch._inductor.codecache import CppPythonBindingsCodeCache, LambdaFuture
    except ImportError:
        return False
    if PENDING is not None:
        return True
    if not hasattr(AsyncCompile, "cpp_pybinding") or not hasattr(CppPythonBindingsCodeCache, "load_async"):
        return False
    PENDING = PendingKernels(lambda argtypes, source: CppPythonBindingsCodeCache.load_pybinding(argtypes, source))

    def cpp_pybinding(self, argtypes, source_code):
        get = PENDING.add(argtypes, source_code)
        from torch._inductor.async_compile import get_compile_threads
        if not lazy and get_compile_threads() > 1:
            return LambdaFuture(get)  # async_compile.wait() asks for every result
        return LazyKernel(get)

    def wait(self, scope):
        for name, value in scope.items():
            if isinstance(value, LazyKernel):
                value.homes.append((scope, name))
        return ORIGINAL_WAIT(self, scope)

    ORIGINAL, ORIGINAL_WAIT = AsyncCompile.cpp_pybinding, AsyncCompile.wait
    AsyncCompile.cpp_pybinding = cpp_pybinding
    AsyncCompile.wait = wait
    return True
