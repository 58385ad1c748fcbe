#!/usr/bin/env bash
# Builds and tests the Zig bindings (bindings/zig) against a staged Sieve, then
# runs their example:
#
#   scripts/test_zig.sh [PREFIX]
#
# PREFIX is where `cmake --install` put include/sieve.h and lib/libsieve.so
# (default: build/stage). Zig is the PyPI `ziglang` package in .venv (set
# PYTHON to use another interpreter). The tests compare with the CLI
# (build/sieve, or SIEVE_BIN) on models/all-MiniLM-L6-v2 and build/fixtures.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
prefix="$(realpath "${1:-$repo/build/stage}")"
python="${PYTHON:-$repo/.venv/bin/python}"

if [[ ! -f "$prefix/lib/libsieve.so" || ! -f "$prefix/include/sieve.h" ]]; then
  echo "test_zig.sh: no staged Sieve in $prefix (run: cmake --install build --prefix build/stage)" >&2
  exit 1
fi
if ! "$python" -m ziglang version >/dev/null 2>&1; then
  echo "test_zig.sh: $python has no ziglang (pip install -r requirements.txt)" >&2
  exit 1
fi

cd "$repo/bindings/zig"
# Zig's global cache (the compiled standard library and build runner) goes
# where ZIG_GLOBAL_CACHE_DIR says (scripts/test.sh keeps it outside the clone,
# so a fresh clone reuses it), else into the package's ignored .zig-cache
# rather than the user's home.
export ZIG_GLOBAL_CACHE_DIR="${ZIG_GLOBAL_CACHE_DIR:-$PWD/.zig-cache/global}"
# Other work shares the machine: two compile jobs unless told otherwise.
jobs="${ZIG_JOBS:-2}"

echo "== zig $("$python" -m ziglang version): bindings/zig against $prefix"
"$python" -m ziglang build test -Dsieve-prefix="$prefix" -j"$jobs" --summary all
"$python" -m ziglang build example -Dsieve-prefix="$prefix" -j"$jobs"
# The commands docs/zig.md shows, from the repository root, checked against
# the output shown there (the builds above are cached by then).
cd "$repo"
"$python" tests/integration/doc_examples.py docs/zig.md
