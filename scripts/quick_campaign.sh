#!/usr/bin/env bash
# The README's main command after set-up: a short default campaign into
# dlfuzz.db, printing what it found. Findings (exit 1) are the expected
# outcome here, not a failure of the command.
set -uo pipefail
cd "$(dirname "$0")/.."
build/dlfuzz fuzz --time "${DLFUZZ_TIME:-2m}" --db "${DLFUZZ_DB:-dlfuzz.db}"
rc=$?
if [[ $rc -eq 1 ]]; then
  echo "next: build/dlfuzz triage list --db ${DLFUZZ_DB:-dlfuzz.db}; build/dlfuzz reduce bug:ID --db ${DLFUZZ_DB:-dlfuzz.db}"
  exit 0
fi
exit $rc
