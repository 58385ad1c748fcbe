#!/usr/bin/env bash
# The CUDA checks and CPU-versus-CUDA speed, on a machine with an NVIDIA GPU; where they install, the TensorRT
# RTX provider as an ONNX Runtime plugin (pip's onnxruntime-ep-nv-tensorrt-rtx-cu12) and sentence-transformers on
# the GPU, all in one prepared run.
#
# Needs:
#   ORT_CUDA_LIB  a folder holding a CUDA-enabled ONNX Runtime: libonnxruntime.so.1 with
#                 libonnxruntime_providers_cuda.so and libonnxruntime_providers_shared.so beside it
#                 (the CUDA, cuBLAS and cuDNN libraries it was built for on LD_LIBRARY_PATH);
#   BUILD         Sieve's build folder (default build): sieve, sieve_tests, sieve_bench, sieve_rerank_bench;
#   LIKE          a model folder whose tokenizer and config.json to copy (default models/all-MiniLM-L6-v2);
#   python3       with numpy, onnx, safetensors, tokenizers and onnxruntime (CPU is enough).
# The models are made here with random weights in the real architectures
# (tools/make_random_minilm.py, tools/make_cross_encoder.py): speed depends
# on shapes only, and correctness is checked against Python onnxruntime on
# the CPU over the same files. Results go to OUT_DIR (default build/gpu).
set -euo pipefail
cd "$(dirname "$0")/.."
build="${BUILD:-build}"
out="${OUT_DIR:-build/gpu}"
like="${LIKE:-models/all-MiniLM-L6-v2}"
min_seconds="${MIN_SECONDS:-2}"
sentences="${SENTENCES:-tests/data/sentences.txt}"
query="${QUERY:-how do I reset my password}"
: "${ORT_CUDA_LIB:?set ORT_CUDA_LIB to the folder of a CUDA-enabled libonnxruntime.so.1}"
# Only Sieve's programs see this ONNX Runtime: Python's onnxruntime, the
# reference, keeps its own.
with_ort() { LD_LIBRARY_PATH="$ORT_CUDA_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$@"; }

fixtures="$out/fixtures"
mkdir -p "$fixtures"
python3 tools/make_fixtures.py --out "$fixtures" --tokenizer "$like/tokenizer.json" > /dev/null
python3 tools/make_cross_encoder.py --out "$fixtures" --tokenizer "$like/tokenizer.json" > /dev/null
python3 tools/make_random_minilm.py --like "$like" --out "$fixtures/random-minilm-l6" > /dev/null
model="$fixtures/random-minilm-l6"
reranker="$fixtures/cross-encoder-minilm-l6"

echo "== CUDA provider tests (a skip is a failure here)"
SIEVE_REQUIRE_CUDA=1 SIEVE_FIXTURES_DIR="$fixtures" with_ort "$build/sieve_tests" --gtest_filter='CudaProvider.*'

echo "== sieve info with --provider cuda --strict-providers"
with_ort "$build/sieve" info --model "$model" --provider cuda --strict-providers

echo "== embeddings on CUDA (TF32 off) against Python onnxruntime on the CPU"
with_ort "$build/sieve" embed --model "$model" --provider cuda:use_tf32=0 --strict-providers --format npy \
  < "$sentences" > "$out/cuda.npy"
python3 bench/gpu_compare.py --model "$model" --sieve-npy "$out/cuda.npy" --sentences "$sentences" | tee "$out/compare.json"
echo "== the same with TF32 matrix products (ONNX Runtime's default on this GPU): reported, not checked"
with_ort "$build/sieve" embed --model "$model" --provider cuda --strict-providers --format npy \
  < "$sentences" > "$out/cuda-tf32.npy"
python3 bench/gpu_compare.py --model "$model" --sieve-npy "$out/cuda-tf32.npy" --sentences "$sentences" \
  --tolerance 1 | tee "$out/compare-tf32.json"

echo "== embedding throughput, CUDA then CPU"
for provider in cuda cpu; do
  with_ort "$build/sieve_bench" --model "$model" --sentences "$sentences" --provider "$provider" \
    --min-seconds "$min_seconds" > "$out/embed-$provider.json"
done

echo "== reranking: 100 documents of 32, 128 and 256 tokens, CUDA then CPU"
python3 bench/rerank_peers.py docs --model "$reranker" --lengths 32,128,256 --count 100 --out-dir "$out" > /dev/null
docs="$out/docs-32.txt,$out/docs-128.txt,$out/docs-256.txt"
for provider in cuda cpu; do
  with_ort "$build/sieve_rerank_bench" --model "$reranker" --query "$query" --documents "$docs" --provider "$provider" \
    --min-seconds "$min_seconds" --min-reps 5 > "$out/rerank-$provider.json"
done

echo "== TensorRT RTX as an ONNX Runtime plugin, where its wheel installs (TRT_RTX_PACKAGE)"
trt_package="${TRT_RTX_PACKAGE:-onnxruntime-ep-nv-tensorrt-rtx-cu12}"
trt_venv="$out/venv-trt-rtx"
: >"$out/embed-tensorrt_rtx.json"
if { [[ -x "$trt_venv/bin/python" ]] || python3 -m venv "$trt_venv"; } &&
  "$trt_venv/bin/python" -m pip install -q "$trt_package" >"$out/trt-rtx-install.log" 2>&1; then
  trt_dir="$("$trt_venv/bin/python" -c 'import importlib.util, os; s = importlib.util.find_spec("onnxruntime_ep_nv_tensorrt_rtx"); print(os.path.dirname(s.origin))')"
  if SIEVE_EP_PATH="$trt_dir" with_ort "$build/sieve" info --model "$model" --provider tensorrt_rtx --strict-providers; then
    SIEVE_EP_PATH="$trt_dir" with_ort "$build/sieve" embed --model "$model" --provider tensorrt_rtx --strict-providers \
      --format npy < "$sentences" > "$out/tensorrt_rtx.npy"
    # TensorRT RTX picks its own precision: reported against the CPU, not held to float32's tolerance.
    python3 bench/gpu_compare.py --model "$model" --sieve-npy "$out/tensorrt_rtx.npy" --sentences "$sentences" \
      --tolerance 1 | tee "$out/compare-tensorrt_rtx.json"
    SIEVE_EP_PATH="$trt_dir" with_ort "$build/sieve_bench" --model "$model" --sentences "$sentences" \
      --provider tensorrt_rtx --min-seconds "$min_seconds" > "$out/embed-tensorrt_rtx.json"
  else
    echo "tensorrt_rtx: the plugin did not start here (above); its legs are left out"
  fi
else
  echo "tensorrt_rtx: pip install $trt_package failed (see $out/trt-rtx-install.log); its legs are left out"
fi

echo "== sentence-transformers on the GPU (the same architecture, random weights), batch 32"
if python3 bench/st_gpu.py --like "$like" --sentences "$sentences" --min-seconds "$min_seconds" > "$out/st-gpu.json"; then
  cat "$out/st-gpu.json"
else
  : >"$out/st-gpu.json"
  echo "sentence-transformers on the GPU: not run (python3 needs torch with CUDA and sentence-transformers)"
fi

python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
import os
for provider in ("cuda", "tensorrt_rtx", "cpu"):
    path = f"{out}/embed-{provider}.json"
    if not os.path.getsize(path):
        continue
    e = json.load(open(path))
    rates = ", ".join(f"batch {b}: {v['sentences_per_second']:.0f}/s"
                      for b, v in sorted(e["embed"].items(), key=lambda item: int(item[0])))
    print(f"embed  {provider:4} {e['providers']} threads {e['threads']}: {rates}; "
          f"latency p50 {e['latency_ms']['p50']:.2f} ms, p99 {e['latency_ms']['p99']:.2f} ms")
runs = {p: json.load(open(f"{out}/rerank-{p}.json")) for p in ("cuda", "cpu")}
for provider, r in runs.items():
    sets = "; ".join(f"{s['file'].rsplit('/', 1)[-1]}: p50 {s['p50_ms']:.2f} ms ({s['pairs_per_s']:.0f} pairs/s)"
                     for s in r["sets"])
    print(f"rerank {provider:4} {r['providers']} threads {r['threads']}: {sets}")
worst = max(abs(a - b) for g, c in zip(runs["cuda"]["sets"], runs["cpu"]["sets"])
            for a, b in zip(g["scores"], c["scores"]))
# Measured with TF32 matrix products, ONNX Runtime's default on this GPU: the
# check against the CPU at float32 accuracy is the tests' (TF32 off) above.
print(f"rerank scores, CUDA (TF32) against CPU: largest difference {worst:.2e}")
if os.path.getsize(f"{out}/st-gpu.json"):
    st = json.load(open(f"{out}/st-gpu.json"))
    cuda = json.load(open(f"{out}/embed-cuda.json"))["embed"].get("32", {}).get("sentences_per_second")
    line = f"sentence-transformers on {st['gpu']}: batch 32: {st['sentences_per_second']:.0f}/s"
    print(line + (f"; Sieve on CUDA at batch 32: {cuda / st['sentences_per_second']:.2f}x" if cuda else ""))
PY
