#include "capi/status.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>

#include "sieve/error.hpp"

namespace sieve::capi {
namespace {

// Returned when allocating a status fails; sieve_status_destroy() skips it.
sieve_status out_of_memory_status{SIEVE_OUT_OF_MEMORY, "out of memory", -1};

sieve_status_code to_status_code(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::kInvalidArgument: return SIEVE_INVALID_ARGUMENT;
    case ErrorCode::kInvalidInput: return SIEVE_INVALID_INPUT;
    case ErrorCode::kNotFound: return SIEVE_NOT_FOUND;
    case ErrorCode::kParse: return SIEVE_PARSE;
    case ErrorCode::kUnsupported: return SIEVE_UNSUPPORTED;
    // The scheduler's codes cannot arise in the C ABI's direct calls.
    case ErrorCode::kRuntime:
    case ErrorCode::kOverloaded:
    case ErrorCode::kTimeout:
    case ErrorCode::kCancelled: return SIEVE_RUNTIME;
  }
  return SIEVE_INTERNAL;
}

sieve_status* make_status(sieve_status_code code, std::string message, std::int64_t input_index = -1) noexcept {
  try {
    return new sieve_status{code, std::move(message), input_index};
  } catch (...) {
    return &out_of_memory_status;
  }
}

}  // namespace

sieve_status* status_from_current_exception(const char* function) noexcept {
  try {
    throw;
  } catch (const Error& e) {
    const auto index = e.input_index();
    return make_status(to_status_code(e.code()), e.what(), index ? static_cast<std::int64_t>(*index) : -1);
  } catch (const CapiError& e) {
    return make_status(e.code(), e.what());
  } catch (const std::bad_alloc&) {
    return &out_of_memory_status;
  } catch (const std::filesystem::filesystem_error& e) {
    return make_status(SIEVE_RUNTIME, e.what());
  } catch (const std::logic_error& e) {
    return make_status(SIEVE_INTERNAL, std::string(function) + ": internal error: " + e.what());
  } catch (const std::exception& e) {
    return make_status(SIEVE_RUNTIME, std::string(function) + ": " + e.what());
  } catch (...) {
    return make_status(SIEVE_INTERNAL, std::string(function) + ": unknown exception");
  }
}

void throw_invalid_argument(const char* function, const char* what) {
  throw CapiError(SIEVE_INVALID_ARGUMENT, std::string(function) + ": " + what);
}

std::string_view text_view(const sieve_text& text, const char* function, const char* what) {
  if (text.data == nullptr && text.size != 0) {
    throw CapiError(SIEVE_INVALID_ARGUMENT,
                    std::string(function) + ": " + what + " has NULL data and size " + std::to_string(text.size));
  }
  return text.data == nullptr ? std::string_view() : std::string_view(text.data, text.size);
}

void read_versioned(const void* from, std::size_t struct_size, void* defaults, std::size_t size, const char* function,
                    const char* struct_name) {
  if (struct_size < sizeof(std::size_t)) {
    throw CapiError(SIEVE_INVALID_ARGUMENT, std::string(function) + ": " + struct_name + ".struct_size is " +
                                                std::to_string(struct_size) +
                                                ": initialize the struct with its _init function");
  }
  if (struct_size > size) {
    // A newer header's struct: fine while the fields this library does not
    // know keep their zero defaults (as the Linux kernel treats larger structs).
    const auto* tail = static_cast<const unsigned char*>(from) + size;
    if (std::any_of(tail, tail + (struct_size - size), [](unsigned char byte) { return byte != 0; })) {
      throw CapiError(SIEVE_INVALID_ARGUMENT, std::string(function) + ": " + struct_name + " sets fields beyond the " +
                                                  std::to_string(size) +
                                                  " bytes this library knows: the header is newer than the library");
    }
    struct_size = size;
  }
  // The caller's struct_size is kept: the library's own size is what the
  // defaults already say.
  std::memcpy(static_cast<char*>(defaults) + sizeof(std::size_t), static_cast<const char*>(from) + sizeof(std::size_t),
              struct_size - sizeof(std::size_t));
}

void init_versioned(void* to, std::size_t struct_size, const void* defaults, std::size_t size) {
  const std::size_t n = std::min(struct_size, size);
  std::memcpy(to, defaults, n);
  if (struct_size > n) std::memset(static_cast<char*>(to) + n, 0, struct_size - n);
  std::memcpy(to, &struct_size, sizeof struct_size);
}

void write_versioned(void* to, const void* value, std::size_t size, const char* function, const char* struct_name) {
  std::size_t struct_size = 0;
  std::memcpy(&struct_size, to, sizeof struct_size);
  if (struct_size < sizeof(std::size_t)) {
    throw CapiError(SIEVE_INVALID_ARGUMENT, std::string(function) + ": set " + struct_name + ".struct_size to sizeof(" +
                                                struct_name + ") first");
  }
  const std::size_t n = std::min(struct_size, size);
  std::memcpy(static_cast<char*>(to) + sizeof(std::size_t), static_cast<const char*>(value) + sizeof(std::size_t),
              n - sizeof(std::size_t));
}

}  // namespace sieve::capi

extern "C" {

sieve_status_code sieve_status_get_code(const sieve_status* status) {
  return status ? status->code : SIEVE_OK;
}

const char* sieve_status_message(const sieve_status* status) {
  return status ? status->message.c_str() : "";
}

int64_t sieve_status_input_index(const sieve_status* status) {
  return status ? status->input_index : -1;
}

void sieve_status_destroy(sieve_status* status) {
  if (status != &sieve::capi::out_of_memory_status) delete status;
}

const char* sieve_status_code_name(sieve_status_code code) {
  // A caller's out-of-range value may not even be loaded as the enum type in
  // C++ (undefined behaviour): it is read as the integer it is.
  static_assert(sizeof(sieve_status_code) == sizeof(std::int32_t));
  std::int32_t value = 0;
  std::memcpy(&value, &code, sizeof value);
  switch (value) {
    case SIEVE_OK: return "ok";
    case SIEVE_INVALID_ARGUMENT: return "invalid_argument";
    case SIEVE_INVALID_INPUT: return "invalid_input";
    case SIEVE_NOT_FOUND: return "not_found";
    case SIEVE_PARSE: return "parse";
    case SIEVE_UNSUPPORTED: return "unsupported";
    case SIEVE_RUNTIME: return "runtime";
    case SIEVE_WRONG_KIND: return "wrong_kind";
    case SIEVE_BUFFER_TOO_SMALL: return "buffer_too_small";
    case SIEVE_OUT_OF_MEMORY: return "out_of_memory";
    case SIEVE_INTERNAL: return "internal";
  }
  return "unknown";
}

}  // extern "C"
