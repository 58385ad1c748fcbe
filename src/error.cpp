#include "sieve/error.hpp"

namespace sieve {

const char* to_string(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::kInvalidArgument: return "invalid argument";
    case ErrorCode::kInvalidInput: return "invalid input";
    case ErrorCode::kNotFound: return "not found";
    case ErrorCode::kParse: return "parse error";
    case ErrorCode::kUnsupported: return "unsupported";
    case ErrorCode::kRuntime: return "runtime error";
    case ErrorCode::kOverloaded: return "overloaded";
    case ErrorCode::kTimeout: return "timeout";
    case ErrorCode::kCancelled: return "cancelled";
  }
  return "error";
}

}  // namespace sieve
