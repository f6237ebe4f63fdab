// The C++ worker loop behind `dlfuzz worker`: reads requests on fd 3, runs the
// named in-process runners one after another, writes each result on fd 4.
#pragma once

namespace dlfuzz {

int worker_main();

}  // namespace dlfuzz
