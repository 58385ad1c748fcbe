#!/usr/bin/env bash
# A minimal Debian 12 root file system (debootstrap --variant=minbase), the
# "other machine with no installation" that tests/integration/test_bundle.py
# runs a `sieve bundle` folder in, with Python 3 alone (no pip, no NumPy) for
# tests/integration/test_python_wheel.py to run the Python package's wheel in.
# Idempotent; needs root and apt's mirror.
#   bash scripts/make_debian_root.sh DIR
set -euo pipefail
dir="${1:?usage: make_debian_root.sh DIR}"
if [[ -f "$dir/.sieve-debian-root" && -x "$dir/usr/bin/python3" ]]; then exit 0; fi
as_root() { if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi; }

# The mirror apt already uses (deb822 sources, else sources.list).
mirror=""
if [[ -f /etc/apt/sources.list.d/debian.sources ]]; then
  mirror=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources)
fi
if [[ -z "$mirror" && -f /etc/apt/sources.list ]]; then
  mirror=$(awk '$1 == "deb" && $3 ~ /^bookworm$/ {print $2; exit}' /etc/apt/sources.list)
fi
if [[ -z "$mirror" ]]; then
  echo "make_debian_root: no Debian mirror found in apt's sources" >&2
  exit 1
fi
mkdir -p "$(dirname "$dir")"
rm -rf "$dir.partial"
as_root debootstrap --variant=minbase --include=python3 bookworm "$dir.partial" "$mirror" >"$dir.log" 2>&1 || {
  tail -20 "$dir.log" >&2
  exit 1
}
touch "$dir.partial/.sieve-debian-root"
rm -rf "$dir"
mv "$dir.partial" "$dir"
