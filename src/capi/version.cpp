#include <string>

#include "capi/status.hpp"
#include "runtime/environment.hpp"

extern "C" {

uint32_t sieve_abi_version(void) {
  return SIEVE_ABI_VERSION;
}

const char* sieve_version(void) {
  return SIEVE_VERSION_STRING;
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

}  // extern "C"
