#!/usr/bin/env bash
# Run here (Debian 12, network) before scripts/gpu-check.sh travels to the GPU
# machine, which has CUDA, CMake and PyTorch but no network and none of
# dlfuzz's Debian build dependencies: downloads those packages and extracts
# them under .deps/gpu/ (ignored by git; name it in the device call's carry).
set -euo pipefail
cd "$(dirname "$0")/.."
# Headers and the libraries behind them; runtime libraries the image may lack.
PACKAGES="libcli11-dev nlohmann-json3-dev libfmt-dev libfmt9 libsqlite3-dev libsqlite3-0 libgtest-dev zlib1g-dev zlib1g"
rm -rf .deps/gpu .deps/gpu-debs
mkdir -p .deps/gpu .deps/gpu-debs
(cd .deps/gpu-debs && apt-get download $PACKAGES >/dev/null)
for deb in .deps/gpu-debs/*.deb; do dpkg -x "$deb" .deps/gpu; done
rm -rf .deps/gpu-debs
echo "gpu-deps: $(du -sh .deps/gpu | cut -f1) in .deps/gpu ($PACKAGES)"
