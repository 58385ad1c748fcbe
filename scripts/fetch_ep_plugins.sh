#!/usr/bin/env bash
# Puts the execution-provider plugin libraries Sieve can load (today OpenVINO's)
# into .deps/onnxruntime/lib/ep/<name>/, beside the ONNX Runtime library, where
# `--provider openvino` looks for them. They come from their PyPI wheels with
# the libraries they need (OpenVINO, TBB). Idempotent; run after
# fetch_onnxruntime.sh, which replaces .deps/onnxruntime on a new version.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=versions.sh
source "$root/scripts/versions.sh"
dest="$root/.deps/onnxruntime/lib/ep/openvino"
stamp="$dest/.version"
if [[ -f "$stamp" && "$(cat "$stamp")" == "$OPENVINO_EP_VERSION" ]]; then
  echo "OpenVINO plugin $OPENVINO_EP_VERSION already in $dest"
  exit 0
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "fetching the OpenVINO plugin $OPENVINO_EP_VERSION (PyPI wheel) ..."
python3 -m venv "$work/venv"
"$work/venv/bin/python" -m pip download -q --no-deps --only-binary :all: -d "$work" \
  "onnxruntime-ep-openvino==$OPENVINO_EP_VERSION"
wheel="$(ls "$work"/onnxruntime_ep_openvino-"$OPENVINO_EP_VERSION"-*.whl 2>/dev/null | head -1)"
[[ -f "$wheel" ]] || { echo "error: the onnxruntime-ep-openvino $OPENVINO_EP_VERSION wheel was not downloaded" >&2; exit 1; }
(cd "$work" && unzip -q -o "$wheel" 'onnxruntime_ep_openvino/*.so*')
[[ -f "$work/onnxruntime_ep_openvino/libonnxruntime_providers_openvino_plugin.so" ]] ||
  { echo "error: no plugin library in $wheel" >&2; exit 1; }
rm -rf "$dest.tmp"
mkdir -p "$dest.tmp"
cp -a "$work"/onnxruntime_ep_openvino/*.so* "$dest.tmp/"
echo "$OPENVINO_EP_VERSION" > "$dest.tmp/.version"
rm -rf "$dest"
mv "$dest.tmp" "$dest"
echo "OpenVINO plugin $OPENVINO_EP_VERSION installed in $dest"
