#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "runtime/ort_api.hpp"
#include "sieve/runtime_options.hpp"

namespace sieve::runtime {

// Sieve's name for an ONNX Runtime provider name: "CPUExecutionProvider" -> "cpu".
std::string provider_name(std::string_view ort_name);

// Appends the requested providers to `options` in order, skipping (with a
// warning) or rejecting (strict) those the library lacks; a provider built
// as a plugin library (plugin_providers.hpp) is registered with `env` first.
// Returns the names really in use, "cpu" last. `intra_op_threads` is the
// session's thread count, which a plugin's own threads follow by default.
std::vector<std::string> append_providers(OrtEnv* env, OrtSessionOptions* options, const RuntimeOptions& runtime,
                                          int intra_op_threads);

}  // namespace sieve::runtime
