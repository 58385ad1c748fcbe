#include "runtime/environment.hpp"
#include "runtime/session.hpp"
#include "sieve/version.hpp"

namespace sieve {

const char* version() noexcept {
  return SIEVE_VERSION_STRING;
}

RuntimeBuild runtime_build() {
  return {runtime::onnxruntime_version(), runtime::available_providers()};
}

}  // namespace sieve
