# Thin wrapper; the two commands of the README.
.PHONY: setup fuzz test

setup:
	bash scripts/setup.sh

# Set up, build, and run a short default session (see README).
fuzz: setup
	bash scripts/quick_campaign.sh

# Set up, build, run the whole test suite (Debian's LibTorch), the LibTorch-free
# tests under ASan + UBSan and dlfuzz's own readers under libFuzzer (a fixed
# seed and input count, ~25 s each), then build the PyPI wheel's LibTorch flavor and replay a program
# through it.
test: setup
	cd build && ctest --output-on-failure -j2
	bash scripts/check_sanitizers.sh
	bash scripts/check_fuzz_targets.sh
	bash scripts/check_pip_build.sh
