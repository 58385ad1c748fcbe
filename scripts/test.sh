#!/usr/bin/env bash
# Sets up everything (scripts/bootstrap.sh), then runs the whole test suite:
# unit tests (GoogleTest via ctest, and the C ABI's test in C), integration
# and parity tests (pytest), the Go and Zig bindings' tests, and the unit
# tests again in a sanitizer build (ASan + UBSan + LSan).
# Each stage prints its duration: CI allows the whole run 90 minutes.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

run_start=$SECONDS
stage_name=""
stage_start=$SECONDS
stage() {
  if [[ -n "$stage_name" ]]; then
    echo "== $stage_name: $((SECONDS - stage_start)) s (run so far: $((SECONDS - run_start)) s)"
  fi
  stage_name="$1"
  stage_start=$SECONDS
  [[ -z "$stage_name" ]] || echo "== $stage_name"
}
setup_logs=""
on_exit() {
  local code=$?
  # Set-up steps still running in the background when an earlier one failed.
  jobs -p | xargs -r kill 2>/dev/null || true
  [[ -z "$setup_logs" ]] || rm -rf "$setup_logs"
  if ((code != 0)); then
    echo "== failed in stage \"$stage_name\" after $((SECONDS - stage_start)) s (run so far: $((SECONDS - run_start)) s)" >&2
  fi
}
trap on_exit EXIT

stage "set-up"
# The Debian packages first; then the export environment (mostly downloads) and
# the Debian root file system (debootstrap, downloads) are set up while
# bootstrap builds, each logging to a file that is shown if it fails.
bash scripts/bootstrap.sh --packages-only
setup_logs="$(mktemp -d)"
# The export tools' own virtual environment (torch, transformers, optimum) for
# tests/integration/test_export_tool.py; kept out of .venv, whose pins differ.
bash scripts/setup_export_env.sh >"$setup_logs/export-env.log" 2>&1 &
export_env_pid=$!
# A minimal Debian 12 root file system that the bundle test runs a bundle in.
bash scripts/make_debian_root.sh "$root/build/debian12-root" >"$setup_logs/debian-root.log" 2>&1 &
debian_root_pid=$!
bash scripts/bootstrap.sh
for job in "export-env:$export_env_pid" "debian-root:$debian_root_pid"; do
  if ! wait "${job#*:}"; then
    echo "test.sh: set-up step ${job%%:*} failed:" >&2
    cat "$setup_logs/${job%%:*}.log" >&2
    exit 1
  fi
done
export SIEVE_DEBIAN_ROOT="$root/build/debian12-root"

stage "fixtures"
# Fixture models with deterministic random weights and their Python references.
export SIEVE_FIXTURES_DIR="$root/build/fixtures"
.venv/bin/python tools/make_fixtures.py --out "$SIEVE_FIXTURES_DIR" \
  --tokenizer models/all-MiniLM-L6-v2/tokenizer.json
.venv/bin/python tools/make_cross_encoder.py --out "$SIEVE_FIXTURES_DIR" --tokenizer models/all-MiniLM-L6-v2/tokenizer.json
# A real cross-encoder for the search quality test: all-MiniLM-L6-v2 fine-tuned on docstrings of
# third-party packages (a few minutes on two cores; a no-op while its stamp matches).
.venv-export/bin/python tools/train_cross_encoder.py --out "$SIEVE_FIXTURES_DIR"

stage "formatting"
bash scripts/lint.sh --format-only

stage "unit tests"
ctest --test-dir build --output-on-failure -j2

stage "integration and parity tests"
.venv/bin/python -m pytest -q -s tests/integration

stage "Go binding (bindings/go: go vet, go test -race, the example)"
bash scripts/test_go.sh build/stage

stage "Zig binding (bindings/zig: zig build test, the example)"
bash scripts/test_zig.sh build/stage

stage "sanitizer build (address, undefined, leak)"
# -O1 -g1 (line tables: reports still name file and line) compiles in half the
# time of RelWithDebInfo's -O2 -g (1,560 s on two cores, of the 90 minutes CI allows).
sanitize_flags="-O1 -g1 -DNDEBUG"
cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSIEVE_WERROR=ON \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="$sanitize_flags" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$sanitize_flags" \
  -DSIEVE_SANITIZE=ON -DSIEVE_BUILD_BENCH=OFF >/dev/null
cmake --build build-sanitize
# Full unwinding lets the suppressions recognise ONNX Runtime's own one-time allocations.
export ASAN_OPTIONS="detect_leaks=1:fast_unwind_on_malloc=0:strict_string_checks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$root/tests/lsan.supp:print_suppressions=0"
stage "unit tests, sanitized"
ctest --test-dir build-sanitize --output-on-failure -j2
stage "integration tests, sanitized"
# The command-line error paths, the server (bad inputs, limits, drain; a leak
# makes the server's exit status non-zero) and sieve pull against the mock hub
# (cut connections, bad checksums, a full disk), through the sanitized binary.
# Also the search index (ingest of every format, SIGKILL at random moments,
# readers during an add), without the real-model quality tests.
SIEVE_BIN="$root/build-sanitize/sieve" .venv/bin/python -m pytest -q tests/integration/test_cli.py \
  tests/integration/test_server.py tests/integration/test_pull.py tests/integration/test_search.py -k "not real_model"

stage "fuzzing (libFuzzer, bounded time; longer: bash scripts/fuzz.sh SECONDS)"
bash scripts/fuzz.sh "${SIEVE_FUZZ_SECONDS:-60}"
stage ""
