#pragma once

// Late chunking in an embedding request: `"late_chunking": true` on OpenAI's /v1/embeddings (as Jina's embedding
// API takes it) and on Text Embeddings Inference's /embed. The inputs are then consecutive chunks of one document,
// encoded together (in overlapping windows of the model's maximum length when longer): one vector per chunk, each
// pooled from its own tokens' states, so that it knows the text around it.

#include <cstddef>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "server/routes.hpp"
#include "sieve/embedder.hpp"

namespace sieve::server {

// Whether the body asks for late chunking; HttpError 422 when "late_chunking" is not a boolean, or when the
// options only late chunking takes ("chunk_separator", "overlap") come without it.
bool asks_late_chunking(const nlohmann::json& body);

struct LateChunked {
  Embeddings vectors;
  std::size_t tokens = 0;  // the document's tokens, every window's counted (special tokens included)
};

// The chunks under `inputs_key` (strings: token ids are refused) embedded by late chunking through the model's
// queue, with the body's "chunk_separator" (default " ") and "overlap" (text tokens consecutive windows share),
// `dimensions` (0: the model's), `normalize` and `prompt_name`. Errors as HttpError, naming the field.
LateChunked late_chunk(ServerState& state, const Request& req, const nlohmann::json& body, const ServedModel& model,
                       const char* inputs_key, std::size_t dimensions, bool normalize,
                       std::optional<std::string> prompt_name);

}  // namespace sieve::server
