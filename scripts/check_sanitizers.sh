#!/usr/bin/env bash
# ASan + UBSan over the LibTorch-free libraries (generator, oracles, reducers,
# triage, the wire format): build generator_tests in build-asan/ with
# -DDLFUZZ_SANITIZE=ON and run it. Any sanitizer report fails the script: ASan
# aborts, and UBSan does not recover (-fno-sanitize-recover=undefined).
# Debug keeps assert() on; -O1 -g1 (line tables) builds in half the time of
# -O2 -g and still gives stack traces with file:line.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" \
      -DDLFUZZ_TORCH=none -DDLFUZZ_SANITIZE=ON -DDLFUZZ_BENCH=OFF >/dev/null
cmake --build build-asan -j2 --target generator_tests
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
build-asan/tests/generator_tests --gtest_brief=1
echo "sanitizers: ok (ASan + UBSan over generator_tests)"
