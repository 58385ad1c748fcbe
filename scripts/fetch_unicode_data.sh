#!/usr/bin/env bash
# Fetches the Unicode data of the versions Hugging Face `tokenizers` sees
# (tools/gen_unicode_tables.py says which part needs which) from the npm
# packages @unicode/unicode-X, and extracts what Sieve needs into
# .deps/unicode/tables.json, from which the build generates C++ tables.
# Idempotent; needs npm and node (scripts/bootstrap.sh installs them).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
# shellcheck source=versions.sh
source scripts/versions.sh

dest=.deps/unicode
stamp="$dest/.stamp"
want="$UNICODE_PACKAGES $(sha256sum tools/unicode_extract.mjs | cut -d' ' -f1)"
if [[ -f "$dest/tables.json" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
  exit 0
fi
for tool in npm node; do
  command -v "$tool" >/dev/null || { echo "fetch_unicode_data: $tool is not installed" >&2; exit 1; }
done
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for spec in $UNICODE_PACKAGES; do
  # spec: 16.0.0@2.0.7 (Unicode version @ package version)
  unicode_version="${spec%@*}"
  (cd "$tmp" && npm pack --silent "@unicode/unicode-$spec" >/dev/null)
  mkdir -p "$tmp/packages/$unicode_version"
  tar xzf "$tmp/unicode-unicode-${spec/@/-}.tgz" -C "$tmp/packages/$unicode_version" --strip-components=1
done
mkdir -p "$dest"
node tools/unicode_extract.mjs "$tmp/packages" "$tmp/tables.json"
mv "$tmp/tables.json" "$dest/tables.json"
echo "$want" > "$stamp"
echo "fetch_unicode_data: $dest/tables.json" >&2
