#pragma once

#include <string>

struct OrtEnv;

namespace sieve::runtime {

// The process-wide ONNX Runtime environment, created on first use; ORT
// allows one per process and every session must share it.
OrtEnv* environment();
std::string onnxruntime_version();

}  // namespace sieve::runtime
