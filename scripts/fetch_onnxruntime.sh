#!/usr/bin/env bash
# Puts ONNX Runtime (library + C API header) into .deps/onnxruntime using only
# the ordinary registry clients: pip for the library, the Go module proxy for
# the header. Idempotent. CMake uses a system install instead when it finds one.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=versions.sh
source "$root/scripts/versions.sh"
dest="$root/.deps/onnxruntime"
stamp="$dest/.version"
if [[ -f "$stamp" && "$(cat "$stamp")" == "$ORT_VERSION/$ORT_HEADER_GO_MODULE_VERSION" ]]; then
  echo "onnxruntime $ORT_VERSION already in $dest"
  exit 0
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The native library comes from the PyPI wheel of the same version as the
# Python reference (onnxruntime/capi/libonnxruntime.so.X.Y.Z: the full C API
# library, SONAME libonnxruntime.so.1), so both run the very same binary.
# Maven's Java artifact, used before, stops at 1.29. A throwaway venv gives a
# pip even where Debian's python3-pip is not installed.
echo "fetching onnxruntime $ORT_VERSION (PyPI wheel) ..."
python3 -m venv "$work/venv"
"$work/venv/bin/python" -m pip download -q --no-deps --only-binary :all: -d "$work" "onnxruntime==$ORT_VERSION"
wheel="$(ls "$work"/onnxruntime-"$ORT_VERSION"-*.whl 2>/dev/null | head -1)"
[[ -f "$wheel" ]] || { echo "error: the onnxruntime $ORT_VERSION wheel was not downloaded" >&2; exit 1; }
(cd "$work" && unzip -q -o "$wheel" "onnxruntime/capi/libonnxruntime.so.$ORT_VERSION")
lib="$work/onnxruntime/capi/libonnxruntime.so.$ORT_VERSION"
[[ -f "$lib" ]] || { echo "error: no libonnxruntime.so.$ORT_VERSION in $wheel" >&2; exit 1; }

echo "fetching the C API header ($ORT_HEADER_GO_MODULE@$ORT_HEADER_GO_MODULE_VERSION) ..."
moddir="$(cd "$work" && GOFLAGS=-mod=mod go mod download -json "$ORT_HEADER_GO_MODULE@$ORT_HEADER_GO_MODULE_VERSION" |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')"
[[ -f "$moddir/onnxruntime_c_api.h" ]] || { echo "error: no onnxruntime_c_api.h in $moddir" >&2; exit 1; }

rm -rf "$dest.tmp"
mkdir -p "$dest.tmp/include" "$dest.tmp/lib"
# The C API header includes its companion headers (e.g. onnxruntime_ep_c_api.h).
cp "$moddir"/onnxruntime_*api.h "$dest.tmp/include/"
cp "$lib" "$dest.tmp/lib/libonnxruntime.so.1"
# The library's SONAME is libonnxruntime.so.1; the plain name is for the linker.
ln -s libonnxruntime.so.1 "$dest.tmp/lib/libonnxruntime.so"
chmod -R u+w "$dest.tmp"
echo "$ORT_VERSION/$ORT_HEADER_GO_MODULE_VERSION" > "$dest.tmp/.version"
rm -rf "$dest"
mv "$dest.tmp" "$dest"
echo "onnxruntime $ORT_VERSION installed in $dest"
