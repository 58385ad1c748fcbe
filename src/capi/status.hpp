#pragma once

// The status objects of the C ABI and the one place where C++ exceptions
// become them: every extern "C" function runs its body through guarded().

#include <cstdint>
#include <exception>
#include <new>
#include <string>
#include <string_view>

#include "sieve.h"

struct sieve_status {
  sieve_status_code code = SIEVE_OK;
  std::string message;
  std::int64_t input_index = -1;
};

namespace sieve::capi {

// An error raised inside the C ABI layer itself (a NULL handle, a small
// buffer), with a code that sieve::ErrorCode has no equivalent for.
class CapiError : public std::exception {
 public:
  CapiError(sieve_status_code code, std::string message) : code_(code), message_(std::move(message)) {}
  [[nodiscard]] sieve_status_code code() const noexcept { return code_; }
  [[nodiscard]] const char* what() const noexcept override { return message_.c_str(); }

 private:
  sieve_status_code code_;
  std::string message_;
};

// The status of the exception being handled; never throws. When even the
// status cannot be allocated, a static out-of-memory status is returned,
// which sieve_status_destroy() knows not to free.
sieve_status* status_from_current_exception(const char* function) noexcept;

template <class Body>
sieve_status* guarded(const char* function, Body&& body) noexcept {
  try {
    body();
    return nullptr;
  } catch (...) {
    return status_from_current_exception(function);
  }
}

[[noreturn]] void throw_invalid_argument(const char* function, const char* what);

// Throws CapiError(SIEVE_INVALID_ARGUMENT) naming the function and parameter.
// Inline, so that static analysis sees that it does not return on failure.
inline void require(bool condition, const char* function, const char* what) {
  if (!condition) throw_invalid_argument(function, what);
}

template <class T>
T* require_not_null(T* pointer, const char* function, const char* parameter) {
  require(pointer != nullptr, function, parameter);
  return pointer;
}

// The bytes of a caller's text; NULL data is allowed only with size 0.
std::string_view text_view(const sieve_text& text, const char* function, const char* what);

// Copies the first `struct_size` bytes of a caller's option struct over
// `defaults`, so that a caller compiled against an older, shorter struct gets
// defaults for the fields it does not know. Throws when struct_size is unset,
// or larger than this library's struct (a newer header) with any of the
// fields this library does not know set.
void read_versioned(const void* from, std::size_t struct_size, void* defaults, std::size_t size, const char* function,
                    const char* struct_name);
// Fills a caller's struct of `struct_size` bytes with `defaults` (this
// library's struct of `size` bytes) and zeroes what lies beyond, then sets its
// struct_size: an _init function for callers with older or newer headers.
void init_versioned(void* to, std::size_t struct_size, const void* defaults, std::size_t size);
// Writes the first `struct_size` bytes of `value` (which starts with its own
// struct_size) into the caller's struct, keeping the caller's struct_size.
void write_versioned(void* to, const void* value, std::size_t size, const char* function, const char* struct_name);

}  // namespace sieve::capi
