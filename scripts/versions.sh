# The one place where pinned third-party versions live; sourced by the other scripts.
# ONNX Runtime: the native library (taken from the PyPI wheel onnxruntime)
# and the Python package used by reference tests are the same version.
ORT_VERSION=1.32.0
# The ORT C API header comes from the Go module github.com/yalue/onnxruntime_go,
# which ships onnxruntime_c_api.h (API version 24); a newer library serves older
# API versions, so this header works with ORT_VERSION.
ORT_HEADER_GO_MODULE=github.com/yalue/onnxruntime_go
ORT_HEADER_GO_MODULE_VERSION=v1.27.0
# Unicode data (npm @unicode/unicode-X, Unicode version @ package version):
# 14.0.0 is PCRE2 10.42's, 16.0.0 Oniguruma's and the Rust regex crate's,
# 17.0.0 the Rust standard library's in the Hugging Face tokenizers we match.
UNICODE_PACKAGES="14.0.0@2.0.7 16.0.0@2.0.7 17.0.0@2.1.0"
# ONNX Runtime's OpenVINO execution provider as a plugin library (the PyPI wheel
# onnxruntime-ep-openvino, which carries the OpenVINO runtime it needs); the
# set-up puts it beside the ONNX Runtime library, where `--provider openvino` finds it.
OPENVINO_EP_VERSION=1.8.1
# OpenVINO's runtime of the same build as the plugin's (its libopenvino.so), from the PyPI wheel openvino: its C
# library and headers, through which Sieve runs a whole graph on OpenVINO where the plugin offers no device
# (the plugin takes Intel hardware only; OpenVINO's own CPU runtime runs on any x86-64 CPU with AVX2).
OPENVINO_VERSION=2026.4.1
