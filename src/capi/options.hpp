#pragma once

// The C option structs as the C++ library's options.

#include "sieve.h"
#include "sieve/embedder.hpp"
#include "sieve/reranker.hpp"

namespace sieve::capi {

// The caller's options (NULL: defaults), with defaults for the fields an
// older caller's struct lacks.
sieve_model_options read_model_options(const sieve_model_options* options, const char* function);

EmbedderOptions embedder_options(const sieve_model_options& options);
RerankerOptions reranker_options(const sieve_model_options& options);

}  // namespace sieve::capi
