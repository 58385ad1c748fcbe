#!/usr/bin/env bash
# Creates .venv-bench, the environment of fastembed for bench/python_peers.py,
# idempotently. fastembed pins its own onnxruntime (and tokenizers,
# huggingface_hub), so it gets a venv of its own rather than sharing .venv
# (Sieve's tests) or .venv-export (torch, sentence-transformers, optimum).
# Re-running is a no-op while the stamp (a hash of this script) matches.
#   bash bench/setup_python_peers.sh
# Environment: SIEVE_BENCH_VENV (default .venv-bench).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

FASTEMBED_VERSION=0.9.1

log() { echo "setup_python_peers: $*" >&2; }
venv="${SIEVE_BENCH_VENV:-.venv-bench}"

if [[ ! -x "$venv/bin/python" ]]; then
  log "creating $venv"
  python3 -m venv "$venv"
fi
stamp="$venv/.sieve-bench-requirements"
want="$(sha256sum bench/setup_python_peers.sh | cut -d' ' -f1)"
if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
  log "$venv is up to date"
  exit 0
fi
rm -f "$stamp"
log "installing fastembed $FASTEMBED_VERSION into $venv"
"$venv/bin/python" -m pip install -q --upgrade pip
# fastembed's own dependency pins decide onnxruntime's version here, as they
# would for a user who installs fastembed; bench/python_peers.py records it.
"$venv/bin/python" -m pip install -q "fastembed==$FASTEMBED_VERSION"
"$venv/bin/python" -c 'import fastembed, onnxruntime, tokenizers, numpy' >/dev/null
echo "$want" > "$stamp"
log "ready: $venv (fastembed $FASTEMBED_VERSION, onnxruntime $("$venv/bin/python" -c 'import onnxruntime; print(onnxruntime.__version__)'))"
