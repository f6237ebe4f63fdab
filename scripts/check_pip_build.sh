#!/usr/bin/env bash
# The second LibTorch flavor: build dlfuzz against the pinned PyPI wheel's
# LibTorch (build-pip/) and replay a program through its runners. CI runs it
# after the test suite, so both flavors at least compile and run.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-pip -DCMAKE_BUILD_TYPE=Release -DDLFUZZ_TORCH=pip -DDLFUZZ_TESTS=OFF -DDLFUZZ_BENCH=OFF >/dev/null
cmake --build build-pip -j2 --target dlfuzz
prog=$(mktemp --suffix=.dlf)
build-pip/dlfuzz gen --seed 3 -o "$prog"
build-pip/dlfuzz run "$prog" --runners ts,ts-nnc,ts-legacy,frozen
build-pip/dlfuzz run "$prog" --runners eager --in-process | head -1
echo "pip-flavor build: ok ($(build-pip/dlfuzz run "$prog" --runners eager --json | grep -m1 -o 'torch [0-9.a-z+]* (pip)'))"
