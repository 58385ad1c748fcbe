#!/usr/bin/env bash
# Builds the Zig leg of the bindings benchmark, ReleaseFast, into
# bench/bindings/zig/zig-out/bin/embed_loop_zig:
#
#   bench/bindings/zig/build.sh [PREFIX]
#
# PREFIX is where `cmake --install` put include/sieve.h and lib/libsieve.so
# (default: build/stage); the executable gets an rpath to PREFIX/lib. Zig is
# the PyPI `ziglang` package in the repository's .venv (set PYTHON to use
# another interpreter); its caches stay in this folder's ignored .zig-cache.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
prefix="$(realpath "${1:-$repo/build/stage}")"
python="${PYTHON:-$repo/.venv/bin/python}"

if [[ ! -f "$prefix/lib/libsieve.so" || ! -f "$prefix/include/sieve.h" ]]; then
  echo "build.sh: no staged Sieve in $prefix (run: cmake --install build --prefix build/stage)" >&2
  exit 1
fi

cd "$here"
export ZIG_GLOBAL_CACHE_DIR="$here/.zig-cache/global"
# Other work shares the machine: two compile jobs unless told otherwise.
"$python" -m ziglang build -Dsieve-prefix="$prefix" -Doptimize=fast -j"${ZIG_JOBS:-2}"
echo "$here/zig-out/bin/embed_loop_zig"
