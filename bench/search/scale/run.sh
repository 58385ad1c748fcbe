#!/usr/bin/env bash
# The million-chunk benchmark (not in CI; hours at 1M on two cores): real chunks embedded once, grown to COUNT
# (bench/search/scale/prepare.py says how), then Sieve's index with each vector representation and the embedded
# stores users pick, on the same vectors, k 10, one query at a time: build time, size on disk, resident memory of
# the searching process, recall@10 against exact search, latency p50/p99. Prints a markdown table
# (bench/search/scale/report.py) and writes every figure to $OUT.
#
# Settings (environment): OUT (default /tmp/sieve-scale), COUNT (default 1000000), THREADS (building; default 2),
# SIEVE (Sieve's representations, default "float32 int8 binary"), PEERS (default: every peer of peers.py; "" for
# none), LIMIT (queries; default all, about 850), EFS (hnswlib's ef values Sieve is queried with; default "64 128
# 256"), BUILD_DIR (default build), KEEP=1 (keep each store on disk).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
cd "$root"
out="${OUT:-/tmp/sieve-scale}"
count="${COUNT:-1000000}"
threads="${THREADS:-2}"
build="${BUILD_DIR:-build}"
limit="${LIMIT:-0}"
sieve_kinds="${SIEVE-float32 int8 binary}"
peers="${PEERS-faiss-hnsw faiss-hnsw-sq8 faiss-ivfpq hnswlib sqlite-vec sqlite-vec-int8 sqlite-vec-bit lancedb chroma qdrant-local}"
venv=.venv-scale
log() { echo "scale: $*" >&2; }

mkdir -p "$out"
cmake --build "$build" --target sieve_scale_bench sieve >&2
.venv/bin/python bench/search/scale/prepare.py --out "$out" --count "$count" --sieve "$build/sieve" >&2
results="$out/results.jsonl"
: > "$results"
record() {  # NAME JSON...
  local name="$1"
  shift
  for json in "$@"; do echo "{\"name\": \"$name\", \"result\": $json}" >> "$results"; done
}
# The store's size of the searching process: run it alone.
for kind in $sieve_kinds; do
  index="$out/sieve-$kind"
  log "Sieve $kind: building ..."
  built="$("$build/sieve_scale_bench" build --index "$index" --base "$out/base.f32" --count "$count" --vectors "$kind")"
  # Settings swept at query time (the graph is built once): rescoring depth, and hnswlib's ef.
  rescores=(0)
  [[ "$kind" == int8 ]] && rescores=(1 4 10)
  [[ "$kind" == binary ]] && rescores=(4 10 20 40)
  for rescore in "${rescores[@]}"; do
    for ef in ${EFS:-64 128 256}; do
      log "Sieve $kind: querying (rescore $rescore, ef $ef) ..."
      args=(--ef "$ef")
      [[ "$kind" != float32 ]] && args+=(--rescore "$rescore")
      queried="$("$build/sieve_scale_bench" query --index "$index" --queries "$out/queries.f32" \
        --truth "$out/truth.i32" --limit "$limit" "${args[@]}")"
      record "sieve-$kind" "{\"build\": $built, \"query\": $queried}"
    done
  done
  if [[ "$kind" == float32 ]]; then
    log "Sieve exact search (50 queries) ..."
    queried="$("$build/sieve_scale_bench" query --index "$index" --queries "$out/queries.f32" \
      --truth "$out/truth.i32" --limit 50 --exact)"
    record "sieve-exact" "{\"build\": $built, \"query\": $queried}"
  fi
  [[ "${KEEP:-0}" == 1 ]] || rm -rf "$index"
done

if [[ -n "$peers" ]]; then
  if [[ ! -x "$venv/bin/python" ]] || ! "$venv/bin/python" -c 'import faiss, sqlite_vec, hnswlib' 2>/dev/null; then
    log "creating $venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q "numpy==2.4.6" "faiss-cpu==1.15.1" "sqlite-vec==0.1.9" "lancedb==0.40.0" \
      "chromadb==1.5.9" "qdrant-client==1.20.0" "hnswlib==0.8.0" "apsw==3.54.1.0"
  fi
  for peer in $peers; do
    folder="$out/peer-$peer"
    log "$peer: building ..."
    if ! built="$(THREADS="$threads" "$venv/bin/python" bench/search/scale/peers.py build --peer "$peer" \
      --dir "$folder" --base "$out/base.f32" --count "$count")"; then
      log "$peer: building failed"
      continue
    fi
    peer_limit="$limit"
    [[ "$peer" == sqlite-vec || "$peer" == qdrant-local ]] && peer_limit=50  # exact scans: slow
    peer_efs=(64)
    [[ "$peer" == faiss-hnsw* || "$peer" == hnswlib ]] && peer_efs=(${EFS:-64 128 256})
    for ef in "${peer_efs[@]}"; do
      log "$peer: querying (ef $ef) ..."
      if queried="$("$venv/bin/python" bench/search/scale/peers.py query --peer "$peer" --dir "$folder" \
        --queries "$out/queries.f32" --truth "$out/truth.i32" --limit "$peer_limit" --ef "$ef")"; then
        record "$peer" "{\"build\": $built, \"query\": $queried}"
      fi
    done
    [[ "${KEEP:-0}" == 1 ]] || rm -rf "$folder"
  done
fi
.venv/bin/python bench/search/scale/report.py "$results" "$out/vectors.json" | tee "$out/report.md"
