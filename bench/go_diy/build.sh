#!/usr/bin/env bash
# Builds the do-it-yourself Go peers of bench/go_diy:
#   1. libtokenizers.a, the Rust static library github.com/daulet/tokenizers
#      links through cgo, built with cargo from the module's own source in the
#      Go module cache (crates from the crates registry) into .build/;
#   2. the Go programs into .build/bin/: ortgo (onnxruntime_go + daulet/tokenizers),
#      gomlx (gomlx + onnx-gomlx on the pure-Go simplego backend, same tokenizer)
#      and npycmp (compares two .npy matrices).
# Everything it writes is under bench/go_diy/.build/ (gitignored).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
out="$here/.build"
mkdir -p "$out/bin"

go mod download
tok_dir="$(go list -m -f '{{.Dir}}' github.com/daulet/tokenizers)"
tok_ver="$(go list -m -f '{{.Version}}' github.com/daulet/tokenizers)"

lib="$out/tokenizers-$tok_ver/libtokenizers.a"
if [[ ! -f "$lib" ]]; then
  src="$out/tokenizers-$tok_ver/src"
  rm -rf "$src"
  mkdir -p "$src"
  cp -r "$tok_dir"/. "$src"/
  chmod -R u+w "$src"
  # The module's Cargo.toml takes tiktoken-rs from a git branch (a fork that
  # only bumps fancy-regex). Git hosts are out of reach here, so take the same
  # API from the crates registry instead (0.8.0, the fork's base, was never
  # published there; 0.9.1 is the next release); the tiktoken path is not
  # used by these peers (all-MiniLM-L6-v2 is a WordPiece tokenizer), it only
  # has to compile. Every other crate stays at the module's Cargo.lock pins.
  sed -i 's|^tiktoken-rs = .*|tiktoken-rs = "=0.9.1"|' "$src/Cargo.toml"
  (cd "$src" && CARGO_TARGET_DIR="$out/cargo-target" cargo build --release)
  cp "$out/cargo-target/release/libtokenizers.a" "$lib"
fi

export CGO_ENABLED=1
# cgo finds libtokenizers.a here; onnxruntime_go loads libonnxruntime.so at run time (-ort).
export CGO_LDFLAGS="-L$(dirname "$lib")"
go build -o "$out/bin/ortgo" ./cmd/ortgo
go build -o "$out/bin/gomlx" ./cmd/gomlx
go build -o "$out/bin/npycmp" ./cmd/npycmp
# The same harness on bindings/go, against the staged C ABI (scripts/bootstrap.sh stages it).
PKG_CONFIG_PATH="${SIEVE_STAGE:-$here/../../build/stage}/lib/pkgconfig" go build -o "$out/bin/sievego" ./cmd/sievego
echo "built: $(ls "$out/bin" | tr '\n' ' ')"
