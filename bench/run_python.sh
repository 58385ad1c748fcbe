#!/usr/bin/env bash
# Python package benchmark (issue 21): sieve.Embedder.encode against
# sentence-transformers (PyTorch and its ONNX backend), fastembed and a plain
# onnxruntime + tokenizers loop, on the same model.onnx and texts with the same
# thread count, plus the binding's overhead against the C++ API
# (build/sieve_bench, build/sieve_embed_loop), in one run
# (bench/python_peers.py). Fails when a peer's vectors differ from Sieve's by
# more than 1e-4. Writes build/bench-python/python_peers.json and the section
# "## Python package against Python peers (issue 21)" of bench/RESULTS.md.
#
# Needs: scripts/bootstrap.sh (build/, .venv with the extension module,
# models/all-MiniLM-L6-v2), scripts/setup_export_env.sh (.venv-export:
# torch, sentence-transformers, optimum); creates .venv-bench (fastembed)
# with bench/setup_python_peers.sh.
#
# Environment: ROUNDS [3], THREADS [2], TEXTS [256], BATCH_SIZES [1,32,256],
# NO_BUILD=1 (use build/ as it is), NOTE (a line added to the results),
# RESULTS (the file to write, default bench/RESULTS.md).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

[[ -x .venv/bin/python && -f models/all-MiniLM-L6-v2/model.onnx ]] || bash scripts/bootstrap.sh
[[ -x .venv-export/bin/python ]] || bash scripts/setup_export_env.sh
bash bench/setup_python_peers.sh
if [[ "${NO_BUILD:-0}" != 1 ]]; then
  cmake --build build --target sieve sieve_bench sieve_embed_loop _sieve >/dev/null
fi

note_args=()
[[ -n "${NOTE:-}" ]] && note_args=(--note "$NOTE")
.venv/bin/python bench/python_peers.py --rounds "${ROUNDS:-3}" --threads "${THREADS:-2}" --texts "${TEXTS:-256}" \
  --batch-sizes "${BATCH_SIZES:-1,32,256}" --results "${RESULTS:-bench/RESULTS.md}" "${note_args[@]}"
