#pragma once

// The only header that includes ONNX Runtime's; it stays inside src/runtime.
#include <onnxruntime_c_api.h>

#include <memory>
#include <string>

namespace sieve::runtime {

const OrtApi& ort();

// Throws sieve::Error with ORT's message (and releases the status) on failure.
void check(OrtStatus* status, const char* what);

template <typename T>
struct OrtDeleter;

#define SIEVE_ORT_DELETER(Type)                    \
  template <>                                      \
  struct OrtDeleter<Ort##Type> {                   \
    void operator()(Ort##Type* p) const noexcept { \
      if (p != nullptr) ort().Release##Type(p);    \
    }                                              \
  };

SIEVE_ORT_DELETER(Env)
SIEVE_ORT_DELETER(SessionOptions)
SIEVE_ORT_DELETER(Session)
SIEVE_ORT_DELETER(Value)
SIEVE_ORT_DELETER(MemoryInfo)
SIEVE_ORT_DELETER(TypeInfo)
SIEVE_ORT_DELETER(TensorTypeAndShapeInfo)
SIEVE_ORT_DELETER(Status)
SIEVE_ORT_DELETER(RunOptions)
#undef SIEVE_ORT_DELETER

template <>
struct OrtDeleter<OrtCUDAProviderOptionsV2> {
  void operator()(OrtCUDAProviderOptionsV2* p) const noexcept {
    if (p != nullptr) ort().ReleaseCUDAProviderOptions(p);
  }
};
template <>
struct OrtDeleter<OrtTensorRTProviderOptionsV2> {
  void operator()(OrtTensorRTProviderOptionsV2* p) const noexcept {
    if (p != nullptr) ort().ReleaseTensorRTProviderOptions(p);
  }
};

template <typename T>
using OrtPtr = std::unique_ptr<T, OrtDeleter<T>>;

}  // namespace sieve::runtime
