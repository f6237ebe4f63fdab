#!/usr/bin/env bash
# Installs what is missing (Debian 12 packages, the pinned PyPI packages into
# .venv) and builds dlfuzz into build/. Safe to rerun: it reuses what is there.
set -euo pipefail
cd "$(dirname "$0")/.."

# Opt-in: `scripts/setup.sh --torch 2.14.1` makes .venv-2.14.1 with that PyPI
# release (selected as RUNNER@venv-2.14.1; `dlfuzz envs` lists it), for the
# version oracle. It costs what .venv costs, about 5-6 GB with the CUDA wheels,
# and pip resolves that release's own dependencies. Nothing else is done.
if [[ ${1:-} == --torch ]]; then
  version=${2:?usage: scripts/setup.sh --torch VERSION}
  dir=.venv-$version
  need_kb=$((6 * 1024 * 1024))
  free_kb=$(df -Pk . | awk 'NR == 2 { print $4 }')
  if ((free_kb < need_kb)); then
    echo "setup: error: torch $version needs about 6 GB for $PWD/$dir; $((free_kb / 1024)) MB are free" >&2
    exit 1
  fi
  echo "setup: installing torch==$version into $dir (about 5-6 GB; a few minutes)"
  [[ -x $dir/bin/python ]] || /usr/bin/python3 -m venv "$dir"
  mkdir -p "$dir/pip-tmp"
  TMPDIR=$PWD/$dir/pip-tmp "$dir/bin/pip" install -q --disable-pip-version-check --no-cache-dir "torch==$version"
  rm -rf "$dir/pip-tmp"
  echo "setup: $dir ready: e.g. build/dlfuzz run p.dlf --runners inductor --envs venv-$version,venv"
  exit 0
fi

# Debian packages: the toolchain, Debian's LibTorch 1.13 (second system under
# test), and the libraries dlfuzz uses.
DEBIAN_PACKAGES=(
  build-essential cmake git
  libtorch-dev python3-torch libgloo-dev
  libcli11-dev nlohmann-json3-dev libfmt-dev libsqlite3-dev sqlite3
  libgtest-dev googletest libbenchmark-dev
  python3 python3-venv python3-pip
  ca-certificates xz-utils procps
  chromium zlib1g-dev  # the HTML report test renders the page and reads the PNG
  clang libclang-rt-14-dev  # the libFuzzer target (libfuzzer/)
)
missing=()
for pkg in "${DEBIAN_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  apt-get clean  # the downloaded .debs (about 1 GB) are not needed again
fi

# The project virtual environment with the pinned PyTorch 2.x (primary system
# under test). Debian's python3 so the venv does not depend on the shell's PATH.
if [[ ! -x .venv/bin/python ]]; then
  echo "setup: creating .venv"
  /usr/bin/python3 -m venv .venv
fi
if ! .venv/bin/python - <<'PY' 2>/dev/null
import importlib.metadata as m, sys
pins = [l.split("==") for l in open("requirements.txt") if "==" in l and not l.startswith("#")]
sys.exit(any(m.version(n.strip()) != v.strip() for n, v in pins))
PY
then
  # The CUDA wheels are large (about 5.5 GB installed). pip's default would
  # download every wheel into /tmp and keep a second copy in its cache before
  # installing any: twice the space, on a file system that may be small. So:
  # no cache, pip's temporary files next to .venv, and one package at a time
  # (all are pinned, hence --no-deps), so at most one wheel waits on disk.
  need_kb=$((6 * 1024 * 1024))
  free_kb=$(df -Pk . | awk 'NR == 2 { print $4 }')
  installed_kb=$(du -sk .venv | cut -f1)
  if ((free_kb + installed_kb < need_kb)); then
    echo "setup: error: the pinned PyPI packages need about 6 GB on $(df -P . | awk 'NR == 2 { print $6 }')" \
         "(for $PWD/.venv); $((free_kb / 1024)) MB are free there" >&2
    exit 1
  fi
  echo "setup: installing pinned PyPI packages into .venv (PyTorch is large: a few minutes)"
  mkdir -p .venv/pip-tmp
  while read -r pin; do
    pin=${pin%%#*}
    [[ $pin == *==* ]] || continue
    TMPDIR=$PWD/.venv/pip-tmp .venv/bin/pip install -q --disable-pip-version-check \
      --no-cache-dir --no-deps "${pin// /}"
  done < requirements.txt
  rm -rf .venv/pip-tmp
fi

# Static Runtime's headers: libtorch-dev ships its symbols but not its headers.
# Take them from Debian's source package (orig tarball), through a private
# deb-src list so the system's apt configuration stays untouched.
SR_DIR=.deps/static-runtime
if [[ ! -f $SR_DIR/include/torch/csrc/jit/runtime/static/impl.h ]]; then
  echo "setup: fetching Static Runtime headers from Debian's pytorch source package"
  work=$(mktemp -d)
  mkdir -p "$work/lists/partial" "$work/dl"
  echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main" \
    > "$work/sources.list"
  apt_src=(-o Dir::Etc::SourceList="$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
           -o Dir::State::Lists="$work/lists")
  apt-get "${apt_src[@]}" update -qq >/dev/null 2>&1 || true
  # Only the orig tarball is needed; a missing debian.tar is not an error here.
  (cd "$work/dl" && apt-get "${apt_src[@]}" source --download-only pytorch >/dev/null 2>&1) || true
  orig=$(ls "$work"/dl/pytorch_*.orig.tar.* 2>/dev/null | head -1 || true)
  if [[ -n $orig ]]; then
    mkdir -p "$SR_DIR/include"
    tar -xf "$orig" -C "$SR_DIR/include" --strip-components=1 --wildcards '*/torch/csrc/jit/runtime/static/*.h'
  else
    echo "setup: could not fetch Debian's pytorch source package: building without the 'static' runner"
  fi
  rm -rf "$work"
fi

# Build (Debian's LibTorch by default; DLFUZZ_TORCH=pip builds against the wheel).
# Release, not RelWithDebInfo: without debug info the LibTorch-heavy TUs compile
# about a third faster; what is under test is LibTorch, not dlfuzz.
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DDLFUZZ_TORCH="${DLFUZZ_TORCH:-debian}" >/dev/null
cmake --build build -j2
