#pragma once

#include <string>
#include <vector>

#include "runtime/ort_api.hpp"
#include "sieve/runtime_options.hpp"

namespace sieve::runtime {

// Appends the requested providers to `options` in order, skipping (with a
// warning) or rejecting (strict) those the library lacks; returns the names
// really in use, "cpu" last.
std::vector<std::string> append_providers(OrtSessionOptions* options, const RuntimeOptions& runtime);

}  // namespace sieve::runtime
