#include "runtime/ort_api.hpp"

#include <string>

#include "sieve/error.hpp"

namespace sieve::runtime {

const OrtApi& ort() {
  static const OrtApi* api = [] {
    const OrtApi* p = OrtGetApiBase()->GetApi(ORT_API_VERSION);
    if (p == nullptr) {
      throw Error(ErrorCode::kRuntime, std::string("the loaded ONNX Runtime (") + OrtGetApiBase()->GetVersionString() +
                                           ") does not provide C API version " + std::to_string(ORT_API_VERSION));
    }
    return p;
  }();
  return *api;
}

void check(OrtStatus* status, const char* what) {
  if (status == nullptr) return;
  const OrtPtr<OrtStatus> owned(status);
  std::string message = ort().GetErrorMessage(status);
  while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();  // one line
  throw Error(ErrorCode::kRuntime, std::string(what) + ": " + message);
}

}  // namespace sieve::runtime
