#!/usr/bin/env bash
# Sets up everything (scripts/bootstrap.sh), then runs the test suite in one of
# two tiers:
#
#   bash scripts/test.sh            the fast tier, what CI runs: every kind of
#                                   check (unit, parity, integration, Go, Zig,
#                                   the sanitizer build and its tests, every
#                                   fuzz target) on samples of the large inputs
#   bash scripts/test.sh --full     the full tier: every input at full depth
#   bash scripts/test.sh --seed N   the fast tier with the samples of seed N
#
# The fast tier draws its samples (corpus lines, code points, queries, rounds)
# with a seed derived from the commit, printed at the start and the end, so
# successive commits cover the whole of each input and `--seed N` draws the
# same samples again to reproduce a failure.
#
# Every stage prints its duration; the run ends with a table of each stage's
# budget (the BUDGETS below, for a cold clone with empty caches on a 2-core
# machine) against its actual time. Time never fails the run: an overrun is a
# loud warning, so that drift shows long before CI's hard limit.
#
# Caches live outside the clone, in SIEVE_CACHE_DIR (default
# ~/.cache/sieve): compiler results (ccache), pip downloads, the Go and Zig
# build caches and the trained cross-encoder, so a second run on the same
# machine reuses them. SIEVE_CACHE_DIR=$(mktemp -d) measures a cold run.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

usage() { sed -n '2,10p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
tier=fast
seed=""
while (($#)); do
  case "$1" in
    --full) tier=full ;;
    --fast) tier=fast ;;
    --seed) [[ $# -ge 2 && "$2" =~ ^[0-9]+$ ]] || { echo "test.sh: --seed needs a number" >&2; exit 2; }
            seed="$2"; shift ;;
    --seed=*) seed="${1#--seed=}"
              [[ "$seed" =~ ^[0-9]+$ ]] || { echo "test.sh: --seed needs a number" >&2; exit 2; } ;;
    -h|--help) usage; exit 0 ;;
    *) echo "test.sh: unknown argument $1" >&2; usage >&2; exit 2 ;;
  esac
  shift
done
if [[ -z "$seed" ]]; then
  # The first 8 hex digits of the commit, as tests/integration/tier.py does.
  head="$(git rev-parse HEAD 2>/dev/null || true)"
  if [[ "$head" =~ ^[0-9a-f]{8} ]]; then seed=$((16#${head:0:8})); else seed=0; fi
fi
export SIEVE_TEST_TIER="$tier" SIEVE_TEST_SEED="$seed"

# --------------------------------------------------------------- budgets
# Seconds per stage on this project's 2-core machine, from a cold clone with
# empty caches (set-up includes the Release build). The one place to change.
# Background stages overlap the integration tests (at a lower priority, so
# in the full tier, whose integration tests run longer, they take longer too);
# "whole run" is the wall time of everything, which CI allows 90 minutes and
# the fast tier must keep within 40.
budgets='
  stage                        | fast | full
  packages                     |  240 |  240
  formatting                   |   10 |   10
  set-up                       |  480 |  480
  fixtures                     |  300 |  720
  unit tests                   |   60 |   60
  integration and parity tests | 1300 | 2400
  Zig and Go bindings          |  800 | 1500
  sanitizer builds and unit tests | 1500 | 2700
  integration tests, sanitized |  300 |  300
  fuzzing                      |   60 |  210
  whole run                    | 2400 | 5400
'
declare -A BUDGET=()
while IFS='|' read -r name fast full; do
  name="$(echo "$name" | xargs)"
  [[ -n "$name" && "$name" != stage ]] || continue
  if [[ "$tier" == full ]]; then BUDGET["$name"]=$((full)); else BUDGET["$name"]=$((fast)); fi
done <<<"$budgets"
# The fast tier runs each fuzz target for this long, the full tier for a minute.
fuzz_seconds="${SIEVE_FUZZ_SECONDS:-$([[ "$tier" == full ]] && echo 60 || echo 15)}"

# --------------------------------------------------------------- caches
cache="${SIEVE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/sieve}"
mkdir -p "$cache"
cache="$(cd "$cache" && pwd)"
export SIEVE_CACHE_DIR="$cache"
export CCACHE_DIR="${CCACHE_DIR:-$cache/ccache}"
export CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-4G}"
export PIP_CACHE_DIR="${PIP_CACHE_DIR:-$cache/pip}"
export GOCACHE="${GOCACHE:-$cache/go-build}"
export ZIG_GLOBAL_CACHE_DIR="${ZIG_GLOBAL_CACHE_DIR:-$cache/zig}"

# --------------------------------------------------------------- stages
run_start=$SECONDS
stage_name=""
stage_start=$SECONDS
stage_order=()
declare -A stage_time=()
record() {  # NAME SECONDS
  local name="$1" took="$2" budget="${BUDGET[$1]:-}"
  stage_order+=("$name")
  stage_time["$name"]="$took"
  echo "== $name: $took s (run so far: $((SECONDS - run_start)) s)"
  if [[ -n "$budget" ]] && ((took > budget)); then
    echo "!! ============================================================================" >&2
    echo "!! OVER BUDGET: stage \"$name\" took $took s, its budget is $budget s (scripts/test.sh)" >&2
    echo "!! ============================================================================" >&2
  fi
}
stage() {
  if [[ -n "$stage_name" ]]; then record "$stage_name" $((SECONDS - stage_start)); fi
  stage_name="$1"
  stage_start=$SECONDS
  [[ -z "$stage_name" ]] || echo "== $stage_name"
}
# Stages that run beside the foreground ones (each of them leaves a core
# mostly idle): started with `background NAME CMD...`, their output kept in a
# log that `join NAME` prints when they end.
bg_dir="$(mktemp -d)"
declare -A bg_pid=() bg_start=() bg_ran=()
background() {
  local name="$1"; shift
  echo "== $name (in the background)"
  bg_start["$name"]=$SECONDS
  # The subshell notes when the stage itself ended, which may be well before its join.
  (
    code=0
    "$@" >"$bg_dir/$name.log" 2>&1 || code=$?
    echo "$SECONDS" >"$bg_dir/$name.end"
    exit "$code"
  ) &
  bg_pid["$name"]=$!
  bg_ran["$name"]=1
}
join() {
  local name="$1" code=0
  wait "${bg_pid[$name]}" || code=$?
  local ended=$SECONDS
  [[ ! -s "$bg_dir/$name.end" ]] || ended="$(cat "$bg_dir/$name.end")"
  local took=$((ended - ${bg_start[$name]}))
  echo "== $name (ran in the background) output:"
  cat "$bg_dir/$name.log"
  unset "bg_pid[$name]"
  if ((code != 0)); then
    stage_name="$name"
    stage_start=${bg_start[$name]}
    echo "test.sh: $name failed (exit status $code)" >&2
    exit "$code"
  fi
  record "$name" "$took"
}
table() {
  local name over=0
  echo
  echo "== stages ($tier tier, sample seed $seed; budgets for a cold clone on 2 cores)"
  printf '%-42s %8s %8s\n' "stage (s)" "budget" "actual"
  for name in "${stage_order[@]}"; do
    local mark=""
    local took="${stage_time[$name]}" budget="${BUDGET[$name]:-}"
    if [[ -n "$budget" ]] && ((took > budget)); then mark="  OVER"; over=1; fi
    local label="$name"
    [[ -z "${bg_ran[$name]:-}" ]] || label="$name (background)"
    printf '%-42s %8s %8s%s\n' "$label" "${budget:--}" "$took" "$mark"
  done
  local whole=$((SECONDS - run_start)) limit="${BUDGET["whole run"]}" mark=""
  if ((whole > limit)); then mark="  OVER"; over=1; fi
  printf '%-42s %8s %8s%s\n' "whole run" "$limit" "$whole" "$mark"
  ((over == 0)) || echo "!! over budget: the stages marked OVER (budgets: the table at the top of scripts/test.sh)" >&2
}
kill_tree() {
  local child
  for child in $(pgrep -P "$1" 2>/dev/null); do kill_tree "$child"; done
  kill "$1" 2>/dev/null || true
}
on_exit() {
  local code=$?
  # Background stages and set-up steps still running when a foreground one
  # failed, with everything they started.
  local pid
  for pid in $(jobs -p); do kill_tree "$pid"; done
  rm -rf "$bg_dir"
  if ((code != 0)); then
    echo "== failed in stage \"$stage_name\" after $((SECONDS - stage_start)) s (run so far: $((SECONDS - run_start)) s)" >&2
    echo "== tier $tier, sample seed $seed: rerun with scripts/test.sh $([[ "$tier" == full ]] && echo "--full ")--seed $seed" >&2
  fi
}
trap on_exit EXIT

echo "== test.sh: $tier tier, sample seed $seed (draw the same samples: scripts/test.sh --seed $seed); caches in $cache"

stage "packages"
bash scripts/bootstrap.sh --packages-only

stage "formatting"
bash scripts/lint.sh --format-only

stage "set-up"
# The export environment (mostly downloads) and the Debian root file system
# (debootstrap, downloads) are set up while bootstrap builds, each logging to
# a file that is shown if it fails.
setup_logs="$bg_dir/set-up"
mkdir -p "$setup_logs"
# The export tools' own virtual environment (torch, transformers, optimum) for
# tests/integration/test_export_tool.py; kept out of .venv, whose pins differ.
bash scripts/setup_export_env.sh >"$setup_logs/export-env.log" 2>&1 &
export_env_pid=$!
# A minimal Debian 12 root file system that the bundle test runs a bundle in.
bash scripts/make_debian_root.sh "$root/build/debian12-root" >"$setup_logs/debian-root.log" 2>&1 &
debian_root_pid=$!
# A unity build (several sources per compiler run: shared headers and template
# instances compiled once per batch) through ccache.
bash scripts/bootstrap.sh
for job in "export-env:$export_env_pid" "debian-root:$debian_root_pid"; do
  if ! wait "${job#*:}"; then
    echo "test.sh: set-up step ${job%%:*} failed:" >&2
    cat "$setup_logs/${job%%:*}.log" >&2
    exit 1
  fi
done
export SIEVE_DEBIAN_ROOT="$root/build/debian12-root"

stage "fixtures"
# The Python package's wheel (tests/integration/test_python_wheel.py), built
# beside the fixtures, which are mostly Python on one core.
bash scripts/build_wheel.sh "$root/build/wheelhouse" >"$setup_logs/wheel.log" 2>&1 &
wheel_pid=$!
# Fixture models with deterministic random weights and their Python references.
export SIEVE_FIXTURES_DIR="$root/build/fixtures"
.venv/bin/python tools/make_fixtures.py --out "$SIEVE_FIXTURES_DIR" \
  --tokenizer models/all-MiniLM-L6-v2/tokenizer.json
.venv/bin/python tools/make_cross_encoder.py --out "$SIEVE_FIXTURES_DIR" --tokenizer models/all-MiniLM-L6-v2/tokenizer.json
# A real cross-encoder for the search quality test: all-MiniLM-L6-v2 fine-tuned on docstrings of
# third-party packages (minutes on two cores). Kept in the cache under a key of its inputs
# (sources, package versions, options): a rerun with the same inputs copies it.
if [[ "$tier" == full ]]; then
  train_args=(--queries 1800 --max-length 96)
else
  train_args=()
fi
.venv-export/bin/python tools/train_cross_encoder.py --out "$SIEVE_FIXTURES_DIR" --cache "$cache/fixtures" "${train_args[@]}"
# A real sparse (SPLADE) model exported with sieve-export, and its sentence-transformers reference;
# beside it (each is mostly Python start-up on one core) random-weight models in ColBERT's (PyLate)
# and BGE-M3's layouts, exported, with PyLate's own output and BGE-M3's formulas.
.venv-export/bin/python tools/make_colbert_fixture.py --out "$SIEVE_FIXTURES_DIR" --cache "$cache/fixtures" \
  --tokenizer models/all-MiniLM-L6-v2 &
colbert_pid=$!
.venv-export/bin/python tools/make_bge_m3_fixture.py --out "$SIEVE_FIXTURES_DIR" --cache "$cache/fixtures" &
bge_m3_pid=$!
.venv-export/bin/python tools/make_splade_fixture.py --out "$SIEVE_FIXTURES_DIR" --cache "$cache/fixtures"
wait "$colbert_pid"
wait "$bge_m3_pid"
if ! wait "$wheel_pid"; then
  echo "test.sh: building the Python package's wheel failed:" >&2
  cat "$setup_logs/wheel.log" >&2
  exit 1
fi
export SIEVE_WHEELHOUSE="$root/build/wheelhouse"

stage "unit tests"
# The README's first command (set-up, then a few sentences embedded) on the
# tree the set-up made: seconds, as its set-up has nothing left to do.
bash scripts/demo.sh >"$setup_logs/demo.log" 2>&1 || { cat "$setup_logs/demo.log" >&2; exit 1; }
ctest --test-dir build --output-on-failure -j2

stage "integration and parity tests"
# The integration tests leave a core idle much of the time, and so do the
# bindings' tests (Zig's build runner and header translation are
# single-threaded): the sanitizer and fuzzer builds, then the sanitized unit
# tests, and the Zig and Go bindings' tests run beside them, at lower
# priorities, so that the integration tests keep theirs. The fuzzers run beside
# the sanitized integration tests (each fuzzer takes a core; the tests mostly
# wait on servers).
#
# Allocation stacks by frame pointers (fast_unwind_on_malloc=1): several times faster than
# full unwinding, which the sanitized runs spent most of their time in. ONNX Runtime has no
# frame pointers, so its own one-time leaks are told apart by their library
# (tests/lsan-fast-unwind.supp); ctest's sieve_capi_precise_leak_check checks the C ABI's
# loop with full stacks and the narrow tests/lsan.supp, and sieve_capi_leaks_are_reported
# that dropped handles are still reported.
sanitizer_env=(
  ASAN_OPTIONS="detect_leaks=1:fast_unwind_on_malloc=1:strict_string_checks=1:detect_stack_use_after_return=1"
  UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
  LSAN_OPTIONS="suppressions=$root/tests/lsan-fast-unwind.supp:print_suppressions=0"
)
# Each step of the background stage says how long it took (in its output, shown at its join).
timed() {
  local name="$1" start=$SECONDS
  shift
  echo "== $name"
  "$@"
  echo "== $name: $((SECONDS - start)) s"
}
sanitized_builds_and_unit_tests() {
  timed "sanitizer build" bash scripts/sanitize_build.sh build-sanitize
  timed "fuzzer build" bash scripts/fuzz.sh --build-only
  timed "unit tests, sanitized" env "${sanitizer_env[@]}" ctest --test-dir build-sanitize --output-on-failure -j2
}
background "sanitizer builds and unit tests" nice -n 10 bash -c \
  "$(declare -p sanitizer_env root); $(declare -f timed sanitized_builds_and_unit_tests); set -euo pipefail; sanitized_builds_and_unit_tests"
background "Zig and Go bindings" nice -n 5 bash -c \
  'bash scripts/test_zig.sh build/stage && bash scripts/test_go.sh build/stage'
.venv/bin/python -m pytest -q -s --durations=15 tests/integration
stage ""
join "Zig and Go bindings"
join "sanitizer builds and unit tests"

export "${sanitizer_env[@]}"
background "fuzzing" nice -n 5 bash scripts/fuzz.sh "$fuzz_seconds"
stage "integration tests, sanitized"
# The command-line error paths, the server (bad inputs, limits, drain; a leak
# makes the server's exit status non-zero) and sieve pull against the mock hub
# (cut connections, bad checksums, a full disk), through the sanitized binary.
# Also the search index (ingest of every format, SIGKILL at random moments,
# readers during an add), without the real-model quality tests; and the
# PostgreSQL store (libpq, a server restart during an add). And the hostile
# clients, but for the resident-memory test (the sanitizer's allocator keeps
# freed memory in quarantine on purpose).
SIEVE_BIN="$root/build-sanitize/sieve" .venv/bin/python -m pytest -q tests/integration/test_cli.py \
  tests/integration/test_server.py tests/integration/test_pull.py tests/integration/test_search.py \
  tests/integration/test_postgres_store.py tests/integration/test_hostile_clients.py \
  tests/integration/test_hostile_ingest.py \
  -k "not real_model and not c_abi and not python_package and not memory_comes_back"
stage ""
join "fuzzing"
table
