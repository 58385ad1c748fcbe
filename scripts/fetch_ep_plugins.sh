#!/usr/bin/env bash
# Puts the execution-provider plugin libraries Sieve can load (today OpenVINO's)
# into .deps/onnxruntime/lib/ep/<name>/, beside the ONNX Runtime library, where
# `--provider openvino` looks for them. They come from their PyPI wheels with
# the libraries they need (OpenVINO, TBB). OpenVINO's C library and its headers
# (the wheel openvino, of the same build) go into the same folder: through them
# Sieve runs a whole graph on OpenVINO's own runtime where the plugin offers no
# device. Idempotent; run after fetch_onnxruntime.sh, which replaces
# .deps/onnxruntime on a new version.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=versions.sh
source "$root/scripts/versions.sh"
dest="$root/.deps/onnxruntime/lib/ep/openvino"
stamp="$dest/.version"
want="$OPENVINO_EP_VERSION+$OPENVINO_VERSION"
if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
  echo "OpenVINO plugin $OPENVINO_EP_VERSION and runtime $OPENVINO_VERSION already in $dest"
  exit 0
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "fetching the OpenVINO plugin $OPENVINO_EP_VERSION (PyPI wheel) ..."
python3 -m venv "$work/venv"
"$work/venv/bin/python" -m pip download -q --no-deps --only-binary :all: -d "$work" \
  "onnxruntime-ep-openvino==$OPENVINO_EP_VERSION" "openvino==$OPENVINO_VERSION"
wheel="$(ls "$work"/onnxruntime_ep_openvino-"$OPENVINO_EP_VERSION"-*.whl 2>/dev/null | head -1)"
[[ -f "$wheel" ]] || { echo "error: the onnxruntime-ep-openvino $OPENVINO_EP_VERSION wheel was not downloaded" >&2; exit 1; }
(cd "$work" && unzip -q -o "$wheel" 'onnxruntime_ep_openvino/*.so*')
[[ -f "$work/onnxruntime_ep_openvino/libonnxruntime_providers_openvino_plugin.so" ]] ||
  { echo "error: no plugin library in $wheel" >&2; exit 1; }
runtime_wheel="$(ls "$work"/openvino-"$OPENVINO_VERSION"-*.whl 2>/dev/null | head -1)"
[[ -f "$runtime_wheel" ]] || { echo "error: the openvino $OPENVINO_VERSION wheel was not downloaded" >&2; exit 1; }
(cd "$work" && unzip -q -o "$runtime_wheel" 'openvino/libs/libopenvino.so.*' 'openvino/libs/libopenvino_c.so.*' \
  'openvino/include/openvino/c/*')
# The C library links the runtime by its soname; it must be the very build the plugin carries.
for lib in "$work"/openvino/libs/libopenvino.so.*; do
  cmp -s "$lib" "$work/onnxruntime_ep_openvino/$(basename "$lib")" || {
    echo "error: openvino $OPENVINO_VERSION is not the OpenVINO build of onnxruntime-ep-openvino" \
      "$OPENVINO_EP_VERSION ($(basename "$lib") differs); pin matching versions in scripts/versions.sh" >&2
    exit 1
  }
done
rm -rf "$dest.tmp"
mkdir -p "$dest.tmp"
cp -a "$work"/onnxruntime_ep_openvino/*.so* "$work"/openvino/libs/libopenvino_c.so.* "$dest.tmp/"
cp -a "$work"/openvino/include "$dest.tmp/include"
echo "$want" > "$dest.tmp/.version"
rm -rf "$dest"
mv "$dest.tmp" "$dest"
echo "OpenVINO plugin $OPENVINO_EP_VERSION and runtime $OPENVINO_VERSION installed in $dest"
