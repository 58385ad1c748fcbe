#include <string>

#include "capi/status.hpp"
#include "runtime/environment.hpp"
#include "sieve/logging.hpp"
#include "sieve/version.hpp"

extern "C" {

uint32_t sieve_abi_version(void) {
  return SIEVE_ABI_VERSION;
}

const char* sieve_version(void) {
  return sieve::version();
}

const char* sieve_onnxruntime_version(void) {
  // Asked once; ORT's version cannot change while the library is loaded.
  static const std::string version = [] {
    try {
      return sieve::runtime::onnxruntime_version();
    } catch (...) {
      return std::string("unknown");
    }
  }();
  return version.c_str();
}

sieve_status* sieve_set_log_level(const char* level) {
  static constexpr const char* kFunction = "sieve_set_log_level";
  return sieve::capi::guarded(kFunction, [&] {
    sieve::capi::require(level != nullptr, kFunction, "level is NULL");
    sieve::set_log_level(level);
  });
}

}  // extern "C"
