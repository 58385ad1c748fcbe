#!/usr/bin/env bash
# Reranking benchmark: one query against 100 candidate documents of 32, 128
# and 256 tokens; per-call latency p50/p99 and pairs/s for Sieve
# (bench/rerank_bench.cpp), a plain Python onnxruntime loop on the same
# model.onnx and sentence-transformers' CrossEncoder (bench/rerank_peers.py),
# in one run. Checks the scores agree within 1e-4, then writes the
# "## Reranking (issue 4)" section of bench/RESULTS.md.
#
# Settings (environment):
#   BENCH_VENV   Python with torch + sentence-transformers (default .bench-venv,
#                created as bench/run.sh does); onnxruntime and tokenizers are
#                added to it at the pinned versions if it lacks them
#   BUILD_DIR    CMake build folder holding sieve_rerank_bench (default build)
#   SIEVE_RERANK_BENCH  a sieve_rerank_bench already built elsewhere (skips the build)
#   MODEL        cross-encoder folder (default build/fixtures/cross-encoder-minilm-l6)
#   LENGTHS COUNT QUERY BATCH_SIZE THREADS MIN_SECONDS MIN_REPS
#   NOTE         a line added to the results (e.g. that the machine was shared)
#   RESULTS      the file to write (default bench/RESULTS.md)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
source scripts/versions.sh
TOKENIZERS_VERSION=0.23.3 # as requirements.txt

build="${BUILD_DIR:-build}"
model="${MODEL:-build/fixtures/cross-encoder-minilm-l6}"
lengths="${LENGTHS:-32,128,256}"
count="${COUNT:-100}"
query="${QUERY:-how do I reset my password}"
batch_size="${BATCH_SIZE:-32}"
threads="${THREADS:-}"
min_seconds="${MIN_SECONDS:-2}"
min_reps="${MIN_REPS:-10}"

bench_bin="${SIEVE_RERANK_BENCH:-}"
if [[ -z "$bench_bin" ]]; then
  [[ -d "$build" ]] || bash scripts/bootstrap.sh
  cmake --build "$build" --target sieve_rerank_bench >/dev/null
  bench_bin="$build/sieve_rerank_bench"
fi
if [[ ! -f "$model/model.onnx" ]]; then
  echo "no cross-encoder at $model: make it with" >&2
  echo "  .venv/bin/python tools/make_cross_encoder.py --out build/fixtures --tokenizer models/all-MiniLM-L6-v2/tokenizer.json" >&2
  exit 1
fi

venv="${BENCH_VENV:-.bench-venv}"
if [[ ! -x "$venv/bin/python" ]]; then
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --upgrade pip
  "$venv/bin/python" -m pip install -q -r requirements.txt "onnxruntime==$ORT_VERSION" torch sentence-transformers
fi
py="$venv/bin/python"
if ! "$py" -c 'import onnxruntime, tokenizers, sentence_transformers' 2>/dev/null; then
  "$py" -m pip install -q "onnxruntime==$ORT_VERSION" "tokenizers==$TOKENIZERS_VERSION" sentence-transformers
fi

out="$(mktemp -d)"
"$py" bench/rerank_peers.py docs --model "$model" --lengths "$lengths" --count "$count" --out-dir "$out" > "$out/docs.json"
docs=""
for n in ${lengths//,/ }; do docs+="${docs:+,}$out/docs-$n.txt"; done

thread_args=()
[[ -n "$threads" ]] && thread_args=(--threads "$threads")
echo "running Sieve ..." >&2
"$bench_bin" --model "$model" --query "$query" --documents "$docs" --batch-size "$batch_size" \
  "${thread_args[@]}" --min-seconds "$min_seconds" --min-reps "$min_reps" > "$out/sieve.json"
# The near-lossless tier: the same model on the OpenVINO plugin (bf16 where the CPU has it), when Sieve finds the
# plugin (the set-up installs it); TIERS=0 skips it.
tier_args=()
if [[ "${TIERS:-1}" == 1 ]] && "$build/sieve" --version 2>/dev/null | grep -q "^  openvino: /"; then
  echo "running Sieve on the OpenVINO plugin ..." >&2
  "$bench_bin" --model "$model" --query "$query" --documents "$docs" --batch-size "$batch_size" \
    "${thread_args[@]}" --min-seconds "$min_seconds" --min-reps "$min_reps" --provider openvino > "$out/sieve-ov.json"
  tier_args=(--tier "near-lossless (OpenVINO, default precision)=$out/sieve-ov.json")
fi
echo "running the Python peers ..." >&2
"$py" bench/rerank_peers.py measure --model "$model" --query "$query" --documents "$docs" --batch-size "$batch_size" \
  "${thread_args[@]}" --min-seconds "$min_seconds" --min-reps "$min_reps" > "$out/peers.json"
"$py" bench/rerank_report.py --sieve "$out/sieve.json" --peers "$out/peers.json" --out "${RESULTS:-bench/RESULTS.md}" \
  --note "${NOTE:-}" "${tier_args[@]}"
echo "wrote the reranking section of bench/RESULTS.md (raw results in $out)" >&2
