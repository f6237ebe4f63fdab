// A broken plugin for the tests: a shared library without
// dlfuzz_plugin_register.
extern "C" int some_other_function() { return 42; }
