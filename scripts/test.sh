#!/usr/bin/env bash
# Sets up everything (scripts/bootstrap.sh), then runs the whole test suite:
# unit tests (GoogleTest via ctest, and the C ABI's test in C), integration
# and parity tests (pytest), the Go and Zig bindings' tests, and the unit
# tests again in a sanitizer build (ASan + UBSan + LSan).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/bootstrap.sh

# Fixture models with deterministic random weights and their Python references.
export SIEVE_FIXTURES_DIR="$root/build/fixtures"
.venv/bin/python tools/make_fixtures.py --out "$SIEVE_FIXTURES_DIR" \
  --tokenizer models/all-MiniLM-L6-v2/tokenizer.json
.venv/bin/python tools/make_cross_encoder.py --out "$SIEVE_FIXTURES_DIR" --tokenizer models/all-MiniLM-L6-v2/tokenizer.json

# The export tools' own virtual environment (torch, transformers, optimum) for
# tests/integration/test_export_tool.py; kept out of .venv, whose pins differ.
bash scripts/setup_export_env.sh
# A real cross-encoder for the search quality test: all-MiniLM-L6-v2 fine-tuned on docstrings of
# third-party packages (a few minutes on two cores; a no-op while its stamp matches).
.venv-export/bin/python tools/train_cross_encoder.py --out "$SIEVE_FIXTURES_DIR"
# A minimal Debian 12 root file system that the bundle test runs a bundle in.
bash scripts/make_debian_root.sh "$root/build/debian12-root"
export SIEVE_DEBIAN_ROOT="$root/build/debian12-root"

echo "== formatting"
bash scripts/lint.sh --format-only

echo "== unit tests"
ctest --test-dir build --output-on-failure -j2

echo "== integration and parity tests"
.venv/bin/python -m pytest -q -s tests/integration

echo "== Go binding (bindings/go: go vet, go test -race, the example)"
bash scripts/test_go.sh build/stage

echo "== Zig binding (bindings/zig: zig build test, the example)"
bash scripts/test_zig.sh build/stage

echo "== sanitizer build (address, undefined, leak)"
cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSIEVE_WERROR=ON \
  -DSIEVE_SANITIZE=ON -DSIEVE_BUILD_BENCH=OFF >/dev/null
cmake --build build-sanitize
# Full unwinding lets the suppressions recognise ONNX Runtime's own one-time allocations.
export ASAN_OPTIONS="detect_leaks=1:fast_unwind_on_malloc=0:strict_string_checks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$root/tests/lsan.supp:print_suppressions=0"
ctest --test-dir build-sanitize --output-on-failure -j2
# The command-line error paths, the server (bad inputs, limits, drain; a leak
# makes the server's exit status non-zero) and sieve pull against the mock hub
# (cut connections, bad checksums, a full disk), through the sanitized binary.
# Also the search index (ingest of every format, SIGKILL at random moments,
# readers during an add), without the real-model quality tests.
SIEVE_BIN="$root/build-sanitize/sieve" .venv/bin/python -m pytest -q tests/integration/test_cli.py \
  tests/integration/test_server.py tests/integration/test_pull.py tests/integration/test_search.py -k "not real_model"

echo "== fuzzing (libFuzzer, bounded time; longer: bash scripts/fuzz.sh SECONDS)"
bash scripts/fuzz.sh "${SIEVE_FUZZ_SECONDS:-60}"
