#!/usr/bin/env bash
# Tokenizer benchmark: Sieve (bench/tokenizer_bench.cpp) and Hugging Face
# tokenizers (bench/tokenizer_peers.py) in the same run, on the parity
# corpus, for every tokenizer.json under ../shared/tokenizers. Writes the
# tokenizer section of bench/RESULTS.md.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
[[ -x .venv/bin/python && -d build ]] || bash scripts/bootstrap.sh
cmake --build build --target sieve_tokenizer_bench >/dev/null

shared="${SHARED_TOKENIZERS:-$root/../shared/tokenizers}"
min_seconds="${MIN_SECONDS:-3}"
out="$(mktemp -d)"
.venv/bin/python tools/build_corpus.py --out "$out/corpus-raw.txt" >&2
# Only valid UTF-8 lines: Python strings cannot hold the others.
.venv/bin/python - "$out/corpus-raw.txt" "$out/corpus.txt" <<'PY'
import sys
lines = open(sys.argv[1], "rb").read().split(b"\n")
good = []
for line in lines:
    try:
        good.append(line.decode("utf-8"))
    except UnicodeDecodeError:
        pass
open(sys.argv[2], "w", encoding="utf-8", newline="\n").write("\n".join(l for l in good if l) + "\n")
PY

args=()
files="{"
# TOKENIZERS="gpt2 t5-small" limits the run to those folders.
for f in "$shared"/*/tokenizer.json; do
  name="$(basename "$(dirname "$f")")"
  if [[ -n "${TOKENIZERS:-}" && " $TOKENIZERS " != *" $name "* ]]; then continue; fi
  args+=(--tokenizer "$name=$f")
  files+="\"$name\": \"$f\","
done
files="${files%,}}"
echo "$files" > "$out/files.json"

# The Rust crate as a second peer, where cargo is installed (RUST_PEER=0 skips it).
rust_peer=""
if [[ "${RUST_PEER:-1}" != 0 ]] && command -v cargo >/dev/null; then
  cargo build --quiet --release --manifest-path bench/rust_peer/Cargo.toml >&2
  rust_peer=bench/rust_peer/target/release/sieve-tokenizer-rust-peer
fi

# Rounds of (Sieve, Hugging Face, its Rust crate) per tokenizer, back to back: see tokenizer_report.py.
rounds="${ROUNDS:-3}"
sieve_files=() peer_files=() rust_files=()
for ((r = 1; r <= rounds; r++)); do
  echo "round $r of $rounds ..." >&2
  for ((i = 0; i < ${#args[@]}; i += 2)); do
    one=("${args[i]}" "${args[i + 1]}")
    build/sieve_tokenizer_bench "${one[@]}" --corpus "$out/corpus.txt" --min-seconds "$min_seconds" \
      > "$out/sieve-$r-$i.json"
    .venv/bin/python bench/tokenizer_peers.py "${one[@]}" --corpus "$out/corpus.txt" --min-seconds "$min_seconds" \
      > "$out/peers-$r-$i.json"
    sieve_files+=(--sieve "$out/sieve-$r-$i.json") peer_files+=(--peers "$out/peers-$r-$i.json")
    if [[ -n "$rust_peer" ]]; then
      "$rust_peer" "${one[@]}" --corpus "$out/corpus.txt" --min-seconds "$min_seconds" > "$out/rust-$r-$i.json"
      rust_files+=(--rust "$out/rust-$r-$i.json")
    fi
  done
done
.venv/bin/python bench/tokenizer_report.py "${sieve_files[@]}" "${peer_files[@]}" "${rust_files[@]}" \
  --files "$out/files.json" --notes bench/TOKENIZER_NOTES.md --out bench/RESULTS.md
echo "wrote bench/RESULTS.md (raw results in $out)" >&2
