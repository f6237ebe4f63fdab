#!/usr/bin/env bash
# The README's main command after set-up: a short default session.
set -euo pipefail
cd "$(dirname "$0")/.."
exec build/dlfuzz fuzz --programs "${DLFUZZ_PROGRAMS:-200}" --db "${DLFUZZ_DB:-dlfuzz.db}"
