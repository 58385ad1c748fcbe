#!/usr/bin/env bash
# Runs the do-it-yourself Go peers once: each embeds every line of the sentence
# file (vectors to .build/run/PEER.npy), is compared with `sieve embed --format
# npy` on the same lines, and is timed at each batch size. Prints JSON lines
# on standard output: one per peer and batch size (peer, batch,
# sentences_per_s, p50_ms, p99_ms, iters, ...), and one agreement line per peer
# (peer, max_abs_diff, min_cosine against Sieve's vectors).
#
# Environment (defaults in brackets):
#   MODEL [models/all-MiniLM-L6-v2]  TEXTS [tests/data/sentences.txt]
#   PEERS ["ortgo gomlx"]  BATCHES [1,32]
#   ITERS [100], WARMUP [-1: one cycle through the file]   for ortgo
#   GOMLX_ITERS [5], GOMLX_WARMUP [3]                        for gomlx (about 25x slower)
#   SIEVE [build/sieve]   ONNXRUNTIME_LIB [.deps/onnxruntime/lib/libonnxruntime.so]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
model="${MODEL:-$root/models/all-MiniLM-L6-v2}"
texts="${TEXTS:-$root/tests/data/sentences.txt}"
sieve="${SIEVE:-$root/build/sieve}"
export ONNXRUNTIME_LIB="${ONNXRUNTIME_LIB:-$root/.deps/onnxruntime/lib/libonnxruntime.so}"
bin="$here/.build/bin"
out="$here/.build/run"
mkdir -p "$out"

if [[ ! -x "$bin/ortgo" || ! -x "$bin/gomlx" || ! -x "$bin/npycmp" ]]; then
  "$here/build.sh" >&2
fi

grep -v '^$' "$texts" | "$sieve" --log-level warn embed --model "$model" --format npy > "$out/sieve.npy"

for peer in ${PEERS:-ortgo gomlx}; do
  if [[ "$peer" == gomlx ]]; then
    timing=(-iters "${GOMLX_ITERS:-5}" -warmup "${GOMLX_WARMUP:-3}")
  else
    timing=(-iters "${ITERS:-100}" -warmup "${WARMUP:--1}")
  fi
  "$bin/$peer" -model "$model" -texts "$texts" -batch "${BATCHES:-1,32}" "${timing[@]}" -out "$out/$peer.npy"
  "$bin/npycmp" -peer "$peer" "$out/sieve.npy" "$out/$peer.npy"
done
