#pragma once

#include <string>
#include <vector>

namespace sieve {

// This build of Sieve ("0.1.0").
const char* version() noexcept;

// What Sieve runs on: the version of the ONNX Runtime library it loaded and
// the execution providers that library was built with ("cpu", "cuda", ...),
// in ONNX Runtime's order. A provider listed here can still fail to start
// (no GPU, missing CUDA libraries); the session reports that when it falls back.
struct RuntimeBuild {
  std::string onnxruntime_version;
  std::vector<std::string> providers;
};
RuntimeBuild runtime_build();

}  // namespace sieve
