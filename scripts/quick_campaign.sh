#!/usr/bin/env bash
# The README's main command after set-up: a short default session.
set -euo pipefail
cd "$(dirname "$0")/.."
exec build/dlfuzz fuzz --time "${DLFUZZ_TIME:-2m}" --db "${DLFUZZ_DB:-dlfuzz.db}"
