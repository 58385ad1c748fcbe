#!/usr/bin/env bash
# The bindings benchmark of issue 6, in one run (results: bench/RESULTS.md):
#  1. per-call overhead of the C ABI, the Go binding and the Zig binding
#     against the C++ API, at batch 1 and 32: the same loop (README.md) in
#     each language, run in rounds with the order shuffled every round so
#     that drifts of this noisy machine hit every leg alike;
#  2. bindings/go against the do-it-yourself Go approach (bench/go_diy:
#     onnxruntime_go + daulet/tokenizers + hand-written pooling, and gomlx
#     with its ONNX importer on the pure-Go backend) on throughput, latency,
#     agreement of the vectors with `sieve embed`, and lines of user code.
# Writes build/bench-bindings/results.jsonl and prints the report.
#
# Environment: MODEL, TEXTS, ROUNDS [5], GOMLX [1: also time gomlx, briefly],
# TINY_MODEL [build/fixtures/tiny-bert-tokens].
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
model="${MODEL:-$root/models/all-MiniLM-L6-v2}"
texts="${TEXTS:-$root/tests/data/sentences.txt}"
rounds="${ROUNDS:-5}"
out="$root/build/bench-bindings"
mkdir -p "$out"
results="$out/results.jsonl"
: > "$results"
export PKG_CONFIG_PATH="$root/build/stage/lib/pkgconfig"
export ONNXRUNTIME_LIB="$root/.deps/onnxruntime/lib/libonnxruntime.so"

echo "bench/bindings: building" >&2
cmake --build build --target sieve sieve_embed_loop sieve_embed_loop_c >/dev/null
cmake --install build --prefix "$root/build/stage" >/dev/null
(cd bench/bindings/go && go build -o "$out/embed_loop_go" .)
bash bench/bindings/zig/build.sh >/dev/null
bash bench/go_diy/build.sh >/dev/null
diy="$root/bench/go_diy/.build/bin"

lines=$(grep -cv '^$' "$texts")
declare -A leg=(
  [cpp]="$root/build/sieve_embed_loop"
  [c]="$root/build/sieve_embed_loop_c"
  [go]="$out/embed_loop_go"
  [zig]="$root/bench/bindings/zig/zig-out/bin/embed_loop_zig"
  [ortgo]="$diy/ortgo"
  [sievego]="$diy/sievego"
)

echo "bench/bindings: agreement with sieve embed" >&2
grep -v '^$' "$texts" | build/sieve --log-level warn embed --model "$model" --format npy >"$out/sieve.npy"
peers=(sievego ortgo)
[[ "${GOMLX:-1}" == 1 ]] && peers+=(gomlx)
for peer in "${peers[@]}"; do
  # One untimed call, then every line once in batches of 32 (-out).
  "$diy/$peer" -model "$model" -texts "$texts" -batch 1 -iters 1 -warmup 0 -out "$out/$peer.npy" >/dev/null 2>&1
  "$diy/npycmp" -peer "$peer" "$out/sieve.npy" "$out/$peer.npy" | sed 's/^{/{"kind":"agreement",/' >>"$results"
done
for peer in sievego ortgo gomlx; do
  echo "{\"kind\":\"user_code\",\"peer\":\"$peer\",\"lines\":$(grep -cv '^\s*\(//.*\)\?$' "bench/go_diy/cmd/$peer/embed.go")}" >>"$results"
done

# Every leg: one full cycle through the file untimed, then one timed.
for round in $(seq "$rounds"); do
  for batch in 1 32; do
    calls=$(((lines + batch - 1) / batch))
    for impl in $(shuf -e "${!leg[@]}"); do
      echo "bench/bindings: round $round, batch $batch, $impl" >&2
      "${leg[$impl]}" --model "$model" --texts "$texts" --batch "$batch" --calls "$calls" --warmup "$calls" 2>/dev/null |
        sed "s/^{/{\"kind\":\"loop\",\"round\":$round,\"leg\":\"$impl\",/" >>"$results"
    done
  done
done

# The binding's own cost is microseconds, below this machine's drift in a
# model call of milliseconds; on a tiny model (build/fixtures, about 0.1 ms a
# call) many calls measure it in absolute terms, which the report then relates
# to the real model's call.
tiny="${TINY_MODEL:-$root/build/fixtures/tiny-bert-tokens}"
if [[ -d "$tiny" ]]; then
  for round in $(seq "$rounds"); do
    for batch in 1 32; do
      calls=$((20 * ((lines + batch - 1) / batch)))
      for impl in $(shuf -e cpp c go zig); do
        echo "bench/bindings: tiny model, round $round, batch $batch, $impl" >&2
        "${leg[$impl]}" --model "$tiny" --texts "$texts" --batch "$batch" --calls "$calls" --warmup "$calls" 2>/dev/null |
          sed "s/^{/{\"kind\":\"tiny\",\"round\":$round,\"leg\":\"$impl\",/" >>"$results"
      done
    done
  done
fi

if [[ "${GOMLX:-1}" == 1 ]]; then
  # Indicative only: a few hundred milliseconds per sentence, and a graph
  # compiled per new input shape, so short runs after a short warm-up.
  echo "bench/bindings: gomlx (short runs)" >&2
  "$diy/gomlx" -model "$model" -texts "$texts" -batch 1 -iters 40 -warmup 40 2>/dev/null |
    sed 's/^{/{"kind":"gomlx",/' >>"$results"
  "$diy/gomlx" -model "$model" -texts "$texts" -batch 32 -iters 4 -warmup 4 2>/dev/null |
    sed 's/^{/{"kind":"gomlx",/' >>"$results"
fi

"$root/.venv/bin/python" bench/bindings/report.py "$results"
