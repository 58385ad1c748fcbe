#!/usr/bin/env bash
# The main job: set up, then embed a few sentences with all-MiniLM-L6-v2.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/bootstrap.sh
./build/sieve info --model models/all-MiniLM-L6-v2
printf '%s\n' "Sieve embeds text locally." "A cat sits on the mat." "Local inference keeps data private." |
  ./build/sieve embed --model models/all-MiniLM-L6-v2 --format jsonl | cut -c1-120
