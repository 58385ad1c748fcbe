#!/usr/bin/env bash
# Tests the Go binding (bindings/go) against an installed libsieve:
#
#   bash scripts/test_go.sh [PREFIX]
#
# PREFIX is where `cmake --install build --prefix PREFIX` put Sieve (default:
# build/stage); the binding finds it through PREFIX/lib/pkgconfig/sieve.pc.
# Runs gofmt, go vet and go test -race on the module, then the example
# program from the command line. The command line the tests compare against
# is PREFIX/bin/sieve unless SIEVE_BIN is set; the models are the
# repository's (models/, and SIEVE_FIXTURES_DIR or build/fixtures).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
prefix="${1:-$root/build/stage}"
prefix="$(cd "$prefix" 2>/dev/null && pwd)" || { echo "test_go.sh: no folder ${1:-build/stage}" >&2; exit 1; }
pc_dir="$prefix/lib/pkgconfig"
if [[ ! -f "$pc_dir/sieve.pc" ]]; then
  echo "test_go.sh: $pc_dir/sieve.pc not found: install Sieve first (cmake --install build --prefix $prefix)" >&2
  exit 1
fi
if ! command -v go >/dev/null; then
  echo "test_go.sh: go not found (the binding needs Go 1.24 or newer)" >&2
  exit 1
fi

export PKG_CONFIG_PATH="$pc_dir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
export CGO_ENABLED=1
# Never fetch a newer toolchain: an older local Go fails with go.mod's version.
export GOTOOLCHAIN=local
if [[ -z "${SIEVE_BIN:-}" && -x "$prefix/bin/sieve" ]]; then
  export SIEVE_BIN="$prefix/bin/sieve"
fi

cd "$root/bindings/go"
echo "== go: $(go version), libsieve from $prefix"

unformatted="$(gofmt -l .)"
if [[ -n "$unformatted" ]]; then
  echo "test_go.sh: not gofmt-formatted:" >&2
  echo "$unformatted" >&2
  exit 1
fi
go vet ./...
go test -race -count=1 -timeout 15m ./...

# The example as docs/go.md shows it, run from the repository root and
# checked against the output shown there.
cd "$root"
"${PYTHON:-$root/.venv/bin/python}" tests/integration/doc_examples.py docs/go.md
echo "== go: binding tests and example passed"
