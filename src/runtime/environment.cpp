#include "runtime/environment.hpp"

#include "runtime/ort_api.hpp"

namespace sieve::runtime {

OrtEnv* environment() {
  static const OrtPtr<OrtEnv> env = [] {
    OrtEnv* raw = nullptr;
    check(ort().CreateEnv(ORT_LOGGING_LEVEL_ERROR, "sieve", &raw), "creating the ONNX Runtime environment");
    return OrtPtr<OrtEnv>(raw);
  }();
  return env.get();
}

std::string onnxruntime_version() {
  return OrtGetApiBase()->GetVersionString();
}

}  // namespace sieve::runtime
