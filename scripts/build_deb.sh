#!/usr/bin/env bash
# Builds the Debian packages (cmake/Package.cmake) from the set-up's build: sieve (the command line and server,
# libsieve.so.0, ONNX Runtime, a systemd unit) and libsieve-dev (the C header, libsieve.so/.a, pkg-config and CMake
# files), into DEST (default build/packages).
#   bash scripts/build_deb.sh [DEST]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${SIEVE_BUILD_DIR:-$root/build}"
dest="$(mkdir -p "${1:-$build/packages}" && cd "${1:-$build/packages}" && pwd)"
[[ -x "$build/sieve" ]] || { echo "build_deb: no $build/sieve: run scripts/bootstrap.sh first" >&2; exit 1; }
cmake --build "$build" >/dev/null
(cd "$build" && cpack -G DEB >/dev/null)
mv -f "$build"/sieve_*.deb "$build"/libsieve-dev_*.deb "$dest/"
ls "$dest"/*.deb
