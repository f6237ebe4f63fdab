# Thin wrapper; the two commands of the README.
.PHONY: setup fuzz test

setup:
	bash scripts/setup.sh

# Set up, build, and run a short default session (see README).
fuzz: setup
	bash scripts/quick_campaign.sh

# Set up, build, and run the whole test suite.
test: setup
	cd build && ctest --output-on-failure -j2
