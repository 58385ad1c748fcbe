#!/usr/bin/env bash
# Style and static checks: clang-format (must be clean) and clang-tidy over
# the library and CLI sources, using the build's compile_commands.json.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.c' '*.h')
clang-format --dry-run --Werror "${files[@]}"
echo "clang-format: ${#files[@]} files clean"
if [[ "${1:-}" == "--format-only" ]]; then exit 0; fi
[[ -f build/compile_commands.json ]] || cmake -S . -B build -G Ninja >/dev/null
mapfile -t sources < <(git ls-files 'src/*.cpp')
clang-tidy -p build --quiet "${sources[@]}"
echo "clang-tidy: ${#sources[@]} files clean"
