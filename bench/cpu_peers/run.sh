#!/usr/bin/env bash
# Every CPU peer in one table: Sieve (fp32, O2, INT8) against
# sentence-transformers (PyTorch, ONNX backend), a plain onnxruntime loop,
# fastembed, CTranslate2 (float32, int8), OpenVINO (f32, default precision)
# and llama.cpp (f32, q8_0), all-MiniLM-L6-v2, same texts and thread count,
# batch 1 and 32 (bench/cpu_peers/cpu_peers.py). See bench/cpu_peers/README.md.
#
# Set-up (idempotent, each step skipped when done):
#   .venv, .venv-export   scripts/bootstrap.sh, scripts/setup_export_env.sh
#   .venv-bench           fastembed (bench/setup_python_peers.sh)
#   .venv-peers           a new venv that sees .venv-export's packages (torch,
#                         transformers: the converters need them) through a .pth
#                         file, plus ctranslate2, openvino, gguf and
#                         llama-cpp-python built from its sdist for this CPU
#                         (AVX-512, no AMX: about 6 minutes on 2 cores)
# A package that does not install is written to build/cpu_peers/setup/NAME.failed
# and its legs are reported as "not run"; the run goes on.
#
#   bash bench/cpu_peers/run.sh
# Environment: ROUNDS [5], TEXTS [256], THREADS [2], BATCH_SIZES [1,32],
# LEGS (comma-separated subset), SETUP_ONLY=1, CPU_PEERS_VENV [.venv-peers],
# LLAMA_CPP_CMAKE_ARGS (the llama.cpp ISA options; changing them rebuilds).
# Output: the table on stdout, build/cpu_peers/cpu_peers.json and
# build/cpu_peers/result.md (a copy of stdout).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"

CTRANSLATE2_VERSION=4.8.5
OPENVINO_VERSION=2026.4.1
LLAMA_CPP_PYTHON_VERSION=0.3.36
GGUF_VERSION=0.19.0

out=build/cpu_peers
setup="$out/setup"
venv="${CPU_PEERS_VENV:-.venv-peers}"
mkdir -p "$setup"
log() { echo "cpu_peers/run.sh: $*" >&2; }

[[ -x .venv/bin/python && -f models/all-MiniLM-L6-v2/model.onnx ]] || bash scripts/bootstrap.sh
[[ -x .venv-export/bin/python ]] || bash scripts/setup_export_env.sh
rm -f "$setup/fastembed.failed"
if ! bash bench/setup_python_peers.sh >"$setup/fastembed.log" 2>&1; then
  { echo -n "bench/setup_python_peers.sh failed: "; grep -iE "error" "$setup/fastembed.log" | tail -1; } \
    >"$setup/fastembed.failed"
fi

if [[ ! -x "$venv/bin/python" ]]; then
  log "creating $venv"
  python3 -m venv "$venv"
fi
site="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
"$root/.venv-export/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' \
  >"$site/zz-sieve-venv-export.pth"

# pip_install NAME PIP-ARGS...: once per distinct PIP-ARGS and CMAKE_ARGS; failure -> $setup/NAME.failed (one line)
pip_install() {
  local name="$1"
  shift
  local want="$* ${CMAKE_ARGS:-}"
  if [[ -f "$setup/$name.ok" && "$(cat "$setup/$name.ok")" == "$want" ]]; then
    return 0
  fi
  rm -f "$setup/$name.ok" "$setup/$name.failed"
  log "installing $name into $venv ($*)"
  local t0=$SECONDS
  if "$venv/bin/python" -m pip install "$@" >"$setup/$name.log" 2>&1; then
    echo "$want" >"$setup/$name.ok"
    log "  $name: done in $((SECONDS - t0)) s"
  else
    { echo -n "pip install $name failed: "; grep -E "ERROR|[Ee]rror:" "$setup/$name.log" | head -1 | cut -c1-200; } \
      >"$setup/$name.failed"
    log "  $name: FAILED ($(cat "$setup/$name.failed")); see $setup/$name.log"
  fi
}

pip_install ctranslate2 "ctranslate2==$CTRANSLATE2_VERSION"
pip_install openvino "openvino==$OPENVINO_VERSION"
pip_install gguf "gguf==$GGUF_VERSION"

# llama-cpp-python from its sdist, which also holds llama.cpp's convert_hf_to_gguf.py.
sdist="$out/dl/llama_cpp_python-$LLAMA_CPP_PYTHON_VERSION.tar.gz"
if [[ ! -f "$sdist" ]]; then
  log "downloading the llama-cpp-python $LLAMA_CPP_PYTHON_VERSION sdist"
  "$venv/bin/python" -m pip download -q --no-deps --no-binary :all: -d "$out/dl" \
    "llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION" >"$setup/llama-sdist.log" 2>&1 || true
fi
if [[ -f "$sdist" ]]; then
  converter="$out/llama.cpp"
  if [[ ! -f "$converter/conversion/__init__.py" ]]; then
    rm -rf "$converter" && mkdir -p "$converter"
    tar -xzf "$sdist" -C "$converter" --strip-components=3 \
      "llama_cpp_python-$LLAMA_CPP_PYTHON_VERSION/vendor/llama.cpp/convert_hf_to_gguf.py" \
      "llama_cpp_python-$LLAMA_CPP_PYTHON_VERSION/vendor/llama.cpp/conversion" \
      "llama_cpp_python-$LLAMA_CPP_PYTHON_VERSION/vendor/llama.cpp/gguf-py"
  fi
  # Built for this CPU: what -march=native gives on Sapphire Rapids (AVX-512 with
  # VBMI, VNNI, BF16; AVX-VNNI) less AMX: with GGML_NATIVE=ON, ggml's AMX int8
  # kernels die with SIGILL (tilezero) on this VM as soon as a q8_0 model runs.
  # LLAMA_CPP_CMAKE_ARGS overrides (e.g. -DGGML_NATIVE=ON on a machine where AMX works).
  # Apart from that, upstream's defaults, less what the benchmark does not use.
  isa="-DGGML_NATIVE=OFF -DGGML_SSE42=ON -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON \
-DGGML_AVX_VNNI=ON -DGGML_AVX512=ON -DGGML_AVX512_VBMI=ON -DGGML_AVX512_VNNI=ON -DGGML_AVX512_BF16=ON"
  grep -q avx512_bf16 /proc/cpuinfo || isa="-DGGML_NATIVE=ON"
  CMAKE_ARGS="${LLAMA_CPP_CMAKE_ARGS:-$isa} -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
-DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAVA_BUILD=OFF -DCMAKE_BUILD_TYPE=Release" \
  CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}" \
    pip_install llama-cpp-python --no-cache-dir "$sdist"
else
  echo "pip download llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION (sdist) failed" >"$setup/llama-cpp-python.failed"
fi

[[ "${SETUP_ONLY:-0}" == 1 ]] && exit 0

legs_args=()
[[ -n "${LEGS:-}" ]] && legs_args=(--legs "$LEGS")
.venv/bin/python bench/cpu_peers/cpu_peers.py --rounds "${ROUNDS:-5}" --texts "${TEXTS:-256}" \
  --threads "${THREADS:-2}" --batch-sizes "${BATCH_SIZES:-1,32}" --peers-python "$venv/bin/python" \
  "${legs_args[@]}" | tee "$out/result.md"
