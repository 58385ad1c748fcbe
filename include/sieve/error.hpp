#pragma once

#include <cstddef>
#include <optional>
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
  kOverloaded,       // too much work is queued, or the service is stopping: retry later
  kTimeout,          // the work's deadline passed before it was done
  kCancelled,        // whoever asked for the work gave up on it (a client went away)
};

const char* to_string(ErrorCode code) noexcept;

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code), message_(message) {}
  // An error about one input of a batch: what() reads "text N: message".
  Error(ErrorCode code, const std::string& message, std::size_t input_index)
      : std::runtime_error("text " + std::to_string(input_index) + ": " + message),
        code_(code),
        message_(message),
        input_index_(input_index) {}

  [[nodiscard]] ErrorCode code() const noexcept { return code_; }
  // The message without the input it concerns, for callers that name inputs their own way.
  [[nodiscard]] const std::string& message() const noexcept { return message_; }
  [[nodiscard]] std::optional<std::size_t> input_index() const noexcept { return input_index_; }

 private:
  ErrorCode code_;
  std::string message_;
  std::optional<std::size_t> input_index_;
};

}  // namespace sieve
