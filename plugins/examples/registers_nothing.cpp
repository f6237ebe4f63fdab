// A broken plugin for the tests: it loads, but registers no pass.
#include "plugins/dlfuzz_plugin.h"

extern "C" int dlfuzz_plugin_register(dlfuzz_registry*) { return 0; }
