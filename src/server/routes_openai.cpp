// OpenAI's embeddings API: POST /v1/embeddings, GET /v1/models.
#include <chrono>
#include <cstring>

#include "server/late_chunks.hpp"
#include "server/request_json.hpp"
#include "server/response_budget.hpp"
#include "server/routes.hpp"
#include "sieve/json_text.hpp"

namespace sieve::server {
namespace {
namespace openai_routes {

using nlohmann::json;

// OpenAI's base64 format: the float32 values' little-endian bytes.
std::string base64_floats(std::span<const float> values) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string bytes(values.size() * sizeof(float), '\0');
  std::memcpy(bytes.data(), values.data(), bytes.size());
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
    std::uint32_t chunk = 0;
    for (std::size_t k = 0; k < 3; ++k) {
      chunk = (chunk << 8) | (k < n ? static_cast<unsigned char>(bytes[i + k]) : 0U);
    }
    for (std::size_t k = 0; k < 4; ++k) {
      out += k <= n ? kAlphabet[(chunk >> (18 - 6 * k)) & 0x3F] : '=';
    }
  }
  return out;
}

std::string embeddings(ServerState& state, const Request& req) {
  const json body = parse_object(req.body);
  const ServedModel& model = state.models.embedding(optional_string(body, "model"));
  const std::string format = optional_string(body, "encoding_format").value_or("float");
  if (format != "float" && format != "base64") {
    throw HttpError(422, "`encoding_format` must be \"float\" or \"base64\"", "encoding_format");
  }
  const ModelInfo& info = model.info();
  const auto dimensions = optional_int(body, "dimensions", 1, static_cast<std::int64_t>(info.model_dimension));
  const auto kept = static_cast<std::size_t>(dimensions.value_or(0));
  ResponseBudget budget(state.options.max_response_bytes, "input");
  Embeddings result;
  std::size_t tokens = 0;
  if (asks_late_chunking(body)) {
    LateChunked late = late_chunk(state, req, body, model, "input", kept, info.normalize, std::nullopt);
    result = std::move(late.vectors);
    tokens = late.tokens;
  } else {
    const Inputs inputs = read_inputs(body, "input", state.options.max_inputs, true);
    EmbeddingService& service = *model.embedding;
    std::vector<EncodedText> encoded;
    try {
      const TokenizeTimer timer(state.metrics);
      if (inputs.texts.empty()) {
        encoded = service.encode_ids(inputs.ids, state.options.auto_truncate);
      } else {
        const std::vector<std::string_view> views(inputs.texts.begin(), inputs.texts.end());
        EncodeOptions options;
        options.truncate = state.options.auto_truncate;
        options.threads = 1;
        encoded = service.encode(views, options);
      }
    } catch (const Error& e) {
      throw to_http_error(e, "input",
                          state.options.auto_truncate
                              ? std::string_view{}
                              : "the OpenAI API has no field to ask for truncation: shorten the input, or start the "
                                "server with --auto-truncate to cut inputs at the model's maximum");
    }
    for (const EncodedText& e : encoded) tokens += e.encoding.size();
    const std::size_t columns = dimensions ? static_cast<std::size_t>(*dimensions) : info.dimension;
    // A float takes at least 8 bytes of text and 5.3 of base64.
    budget.expect(encoded.size() * columns * (format == "base64" ? 5 : 8),
                  std::to_string(encoded.size()) + " vectors of " + std::to_string(columns) + " dimensions");
    result = service.embed(std::move(encoded), kept, info.normalize, state.deadline(), ServerState::client_gone(req));
  }
  // Written directly: a tree of doubles would be slower and print each
  // float with 17 digits.
  std::string out = R"({"object":"list","data":[)";
  for (std::size_t i = 0; i < result.rows; ++i) {
    out += i == 0 ? "" : ",";
    out += R"({"object":"embedding","index":)" + std::to_string(i) + R"(,"embedding":)";
    if (format == "base64") {
      append_json_string(out, base64_floats(result.row(i)));
    } else {
      append_json_array(out, result.row(i));
    }
    out += "}";
    budget.check(out.size());
  }
  out += R"(],"model":)";
  append_json_string(out, model.name);
  out +=
      R"(,"usage":{"prompt_tokens":)" + std::to_string(tokens) + R"(,"total_tokens":)" + std::to_string(tokens) + "}}";
  return out;
}

json list_models(ServerState& state) {
  const auto created = std::chrono::duration_cast<std::chrono::seconds>(state.started.time_since_epoch()).count();
  json data = json::array();
  for (const ServedModel& m : state.models.all()) {
    data.push_back({{"id", m.name}, {"object", "model"}, {"created", created}, {"owned_by", "sieve"}});
  }
  return {{"object", "list"}, {"data", std::move(data)}};
}

}  // namespace openai_routes
}  // namespace

void add_openai_routes(Router& http, ServerState& state) {
  using namespace openai_routes;
  add_raw_route(http, state, "POST", "/v1/embeddings", ApiStyle::kOpenAI, [&state](const Request& req, Response& res) {
    res.set_content(embeddings(state, req), "application/json");
  });
  add_route(http, state, "GET", "/v1/models", ApiStyle::kOpenAI,
            [&state](const Request&) { return list_models(state); });
}

}  // namespace sieve::server
