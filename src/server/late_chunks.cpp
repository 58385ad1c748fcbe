#include "server/late_chunks.hpp"

#include <string_view>
#include <vector>

#include "server/http_error.hpp"
#include "server/request_json.hpp"
#include "server/response_budget.hpp"
#include "sieve/serving.hpp"

namespace sieve::server {

using nlohmann::json;

bool asks_late_chunking(const json& body) {
  const bool asked = optional_bool(body, "late_chunking").value_or(false);
  for (const char* option : {"chunk_separator", "overlap"}) {
    if (!asked && body.contains(option)) {
      throw HttpError(422, std::string("`") + option + "` is a late chunking option: send \"late_chunking\": true",
                      option);
    }
  }
  return asked;
}

LateChunked late_chunk(ServerState& state, const Request& req, const json& body, const ServedModel& model,
                       const char* inputs_key, std::size_t dimensions, bool normalize,
                       std::optional<std::string> prompt_name) {
  const Inputs inputs = read_inputs(body, inputs_key, state.options.max_inputs, false);
  LateChunkOptions options;
  options.separator = optional_string(body, "chunk_separator").value_or(" ");
  // At most half a window's text (the model's maximum less its special tokens, two for most models).
  const auto max_length = static_cast<std::int64_t>(model.info().max_length);
  if (const auto overlap = optional_int(body, "overlap", 0, max_length > 4 ? max_length / 2 - 1 : 0)) {
    options.overlap = static_cast<std::size_t>(*overlap);
  }
  // A document runs in windows as a request's inputs run: no more of them than a request may send.
  options.max_windows = state.options.max_inputs;
  if (dimensions > 0) options.embed.dimensions = dimensions;
  options.embed.normalize = normalize;
  options.embed.prompt_name = std::move(prompt_name);
  const std::vector<std::string_view> chunks(inputs.texts.begin(), inputs.texts.end());
  const ResponseBudget budget(state.options.max_response_bytes, inputs_key);
  const std::size_t columns = dimensions > 0 ? dimensions : model.info().dimension;
  budget.expect(chunks.size() * columns * 8,
                std::to_string(chunks.size()) + " vectors of " + std::to_string(columns) + " dimensions");
  LateChunked out;
  try {
    out.vectors = model.embedding->embed_late_chunks(chunks, options, state.deadline(), ServerState::client_gone(req),
                                                     &out.tokens);
  } catch (const Error& e) {
    throw to_http_error(e, inputs_key);
  }
  return out;
}

}  // namespace sieve::server
