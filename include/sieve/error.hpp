#pragma once

#include <stdexcept>
#include <string>

namespace sieve {

// Error categories are coarse on purpose: they are what the C ABI and the HTTP
// server map onto status codes, so each one must mean one kind of remedy.
enum class ErrorCode {
  kInvalidArgument,  // the caller passed a bad option or parameter
  kInvalidInput,     // user data (text, request) is malformed, e.g. not UTF-8
  kNotFound,         // a file or model that was named does not exist
  kParse,            // a file exists but its content is malformed
  kUnsupported,      // well-formed, but uses something Sieve does not implement
  kRuntime,          // ONNX Runtime or the operating system failed
};

const char* to_string(ErrorCode code) noexcept;

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  [[nodiscard]] ErrorCode code() const noexcept { return code_; }

 private:
  ErrorCode code_;
};

}  // namespace sieve
