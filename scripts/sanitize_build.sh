#!/usr/bin/env bash
# Builds what the sanitized tests run (scripts/test.sh) with AddressSanitizer,
# UndefinedBehaviorSanitizer and LeakSanitizer: the CLI, the unit tests and
# the C ABI's test with libsieve.so; not the static library or the benchmarks.
#   bash scripts/sanitize_build.sh [BUILD_DIR]      (default build-sanitize)
# -O1 -g1 (line tables: reports still name file and line) compiles in half the
# time of RelWithDebInfo's -O2 -g; a unity build through ccache, where it is
# installed, halves it again.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
build_dir="${1:-build-sanitize}"
flags="-O1 -g1 -DNDEBUG"
cmake_args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DSIEVE_WERROR=ON -DSIEVE_SANITIZE=ON -DSIEVE_BUILD_BENCH=OFF
  "-DCMAKE_C_FLAGS_RELWITHDEBINFO=$flags" "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=$flags"
  "-DCMAKE_UNITY_BUILD=${SIEVE_UNITY_BUILD:-ON}")
if command -v ccache >/dev/null; then
  cmake_args+=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B "$build_dir" -G Ninja "${cmake_args[@]}" >/dev/null
cmake --build "$build_dir" --target sieve sieve_tests sieve_capi_test
