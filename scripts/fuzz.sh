#!/usr/bin/env bash
# Builds the libFuzzer targets of the tokenizer and the document readers (clang; ASan, UBSan and LSan) in
# build-fuzz and runs each for SECONDS (default 60, or SIEVE_FUZZ_SECONDS);
# `fuzz.sh --build-only` only builds them.
# Exits non-zero on any crash, hang, leak, sanitizer report or broken
# invariant, printing the reproducer; rerun one with
#   build-fuzz/tests/fuzz/<target> <reproducer>
# The working corpus stays in build-fuzz/corpus, so longer local runs
# (scripts/fuzz.sh 3600) build on earlier ones.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

build_only=false
if [[ "${1:-}" == "--build-only" ]]; then build_only=true; shift; fi
seconds="${1:-${SIEVE_FUZZ_SECONDS:-60}}"
build_dir="${SIEVE_FUZZ_BUILD_DIR:-build-fuzz}"
shared_tokenizers="${SIEVE_SHARED_TOKENIZERS:-$root/../shared/tokenizers}"
targets=(tokenizer_json_fuzz tokenizer_text_fuzz document_fuzz)

log() { echo "fuzz: $*" >&2; }
for tool in clang clang++; do
  command -v "$tool" >/dev/null || { log "$tool not found (scripts/bootstrap.sh installs it)"; exit 2; }
done

# -O1 with assertions on (no NDEBUG) and libstdc++'s bounds checks, so that
# an out-of-range operator[] is a finding rather than a silent read; line
# tables only (-gline-tables-only), which is all a report needs and compiles
# faster than full debug information.
flags="-O1 -gline-tables-only -D_GLIBCXX_ASSERTIONS"
# A unity build (several sources per compiler run), through ccache where it is installed.
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
CC=clang CXX=clang++ cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="$flags" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$flags" \
  -DSIEVE_WERROR=ON -DSIEVE_BUILD_FUZZ=ON -DSIEVE_BUILD_TESTS=OFF -DSIEVE_BUILD_BENCH=OFF -DCMAKE_UNITY_BUILD=ON \
  "${launcher[@]}" >/dev/null
cmake --build "$build_dir" --target "${targets[@]}" -- -j "${SIEVE_FUZZ_JOBS:-$(nproc)}"
if $build_only; then exit 0; fi

# Seeds for the document target: the hand-written ones, and the real
# tokenizers cut down to a few hundred tokens (their full vocabularies make
# every run slow and leave nothing to mutate that matters; the text target
# loads them whole).
shrunk="$build_dir/seeds/json-shared"
mkdir -p "$shrunk"
if [[ -d "$shared_tokenizers" ]]; then
  python3 tests/fuzz/shrink_tokenizer.py --out "$shrunk" "$shared_tokenizers"/*/tokenizer.json
else
  log "no shared tokenizers at $shared_tokenizers: seeding from tests/fuzz/seeds only"
fi

# Seeds for the document target: one small valid file per format.
python3 tests/fuzz/make_document_seeds.py "$build_dir/seeds/documents"

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:detect_stack_use_after_return=1:strict_string_checks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$root/tests/lsan.supp:print_suppressions=0}"
if [[ -z "${SIEVE_FUZZ_TOKENIZERS:-}" && -d "$shared_tokenizers" ]]; then
  export SIEVE_FUZZ_TOKENIZERS="$shared_tokenizers:$root/tests/fuzz/seeds/json"
fi

failed=()
for target in "${targets[@]}"; do
  corpus="$build_dir/corpus/$target"
  artifacts="$build_dir/artifacts/$target"
  logfile="$build_dir/logs/$target.log"
  mkdir -p "$corpus" "$artifacts" "$(dirname "$logfile")"
  args=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -detect_leaks=1
        -print_final_stats=1 -artifact_prefix="$artifacts/")
  case "$target" in
    tokenizer_json_fuzz)
      args+=(-max_len=16384 -dict=tests/fuzz/tokenizer_json.dict)
      seeds=(tests/fuzz/seeds/json "$shrunk") ;;
    tokenizer_text_fuzz)
      args+=(-max_len=4096)
      seeds=(tests/fuzz/seeds/text) ;;
    document_fuzz)
      args+=(-max_len=65536)
      seeds=("$build_dir/seeds/documents") ;;
  esac
  log "$target: ${seconds}s (log: $logfile)"
  if "$build_dir/tests/fuzz/$target" "${args[@]}" "$corpus" "${seeds[@]}" >"$logfile" 2>&1; then
    grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|#[0-9]+.*DONE)' "$logfile" | sed "s/^/fuzz: $target: /" >&2 || true
  else
    tail -n 80 "$logfile" >&2
    found="$(grep -o 'Test unit written to .*' "$logfile" | sed 's/^Test unit written to //' || true)"
    [[ -n "$found" ]] || found="(none written: see $logfile)"
    log "$target FAILED; reproducer: $found"
    log "rerun: $build_dir/tests/fuzz/$target <reproducer>"
    failed+=("$target")
  fi
done

if ((${#failed[@]})); then
  log "findings in: ${failed[*]}"
  exit 1
fi
log "no findings (${targets[*]}, ${seconds}s each)"
