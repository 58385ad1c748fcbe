// Hugging Face Text Embeddings Inference's API: POST /embed, /rerank,
// /tokenize, /decode and GET /info. TEI serves one model; here an optional
// "model" field picks one, and without it the first of the kind is used.
#include <algorithm>
#include <cmath>

#include "server/request_json.hpp"
#include "server/routes.hpp"
#include "sieve/json_text.hpp"
#include "sieve/serving.hpp"

namespace sieve::server {
namespace {

using nlohmann::json;

bool truncation_of(const ServerState& state, const json& body) {
  return optional_bool(body, "truncate").value_or(state.options.auto_truncate);
}

std::string embed(ServerState& state, const httplib::Request& req) {
  const json body = parse_object(req.body);
  const ServedModel& model = state.models.embedding(optional_string(body, "model"));
  const Inputs inputs = read_inputs(body, "inputs", state.options.max_inputs, true);
  const ModelInfo& info = model.info();
  const bool normalize = optional_bool(body, "normalize").value_or(true);
  const auto dimensions = optional_int(body, "dimensions", 1, static_cast<std::int64_t>(info.model_dimension));
  EncodeOptions options;
  options.truncate = truncation_of(state, body);
  options.truncation_direction = truncate_left(body, "truncation_direction") ? Direction::kLeft : Direction::kRight;
  options.prompt_name = optional_string(body, "prompt_name");
  options.threads = 1;
  EmbeddingService& service = *model.embedding;
  std::vector<EncodedText> encoded;
  try {
    const TokenizeTimer timer(state.metrics);
    if (inputs.texts.empty()) {
      encoded = service.encode_ids(inputs.ids, options.truncate);
    } else {
      const std::vector<std::string_view> views(inputs.texts.begin(), inputs.texts.end());
      encoded = service.encode(views, options);
    }
  } catch (const Error& e) {
    throw to_http_error(e, "inputs");
  }
  const Embeddings result = service.embed(std::move(encoded), static_cast<std::size_t>(dimensions.value_or(0)),
                                          normalize, state.deadline(), ServerState::client_gone(req));
  std::string out = "[";
  for (std::size_t i = 0; i < result.rows; ++i) {
    if (i > 0) out += ",";
    append_json_array(out, result.row(i));
  }
  out += "]";
  return out;
}

json rerank(ServerState& state, const httplib::Request& req) {
  const json body = parse_object(req.body);
  const ServedModel& model = state.models.reranker(optional_string(body, "model"));
  const std::string query = required_string(body, "query");
  const Inputs texts = read_inputs(body, "texts", state.options.max_inputs, false);
  const bool raw = optional_bool(body, "raw_scores").value_or(false);
  const bool return_text = optional_bool(body, "return_text").value_or(false);
  std::vector<Encoding> pairs;
  const std::vector<std::string_view> views(texts.texts.begin(), texts.texts.end());
  try {
    const TokenizeTimer timer(state.metrics);
    pairs = model.reranker->encode(query, views, truncation_of(state, body));
  } catch (const Error& e) {
    throw to_http_error(e, "texts");
  }
  const std::vector<float> scores =
      model.reranker->score(std::move(pairs), raw, state.deadline(), ServerState::client_gone(req));
  std::vector<std::size_t> order = rank_by_score(scores);
  json out = json::array();
  for (const std::size_t i : order) {
    json item = {{"index", i}, {"score", scores[i]}};
    if (return_text) item["text"] = texts.texts[i];
    out.push_back(std::move(item));
  }
  return out;
}

json tokenize(ServerState& state, const httplib::Request& req) {
  const json body = parse_object(req.body);
  const ServedModel& model = state.models.any(optional_string(body, "model"));
  const Inputs inputs = read_inputs(body, "inputs", state.options.max_inputs, false);
  const bool add_special = optional_bool(body, "add_special_tokens").value_or(true);
  const auto prompt_name = optional_string(body, "prompt_name");
  std::string prompt;
  if (prompt_name) {
    const auto& prompts = model.info().prompts;
    const auto it =
        std::find_if(prompts.begin(), prompts.end(), [&](const auto& p) { return p.first == *prompt_name; });
    if (it == prompts.end()) throw HttpError(422, "unknown prompt name `" + *prompt_name + "`", "prompt_name");
    prompt = it->second;
  }
  const Tokenizer& tokenizer = model.tokenizer();
  json out = json::array();
  const TokenizeTimer timer(state.metrics);
  for (std::size_t i = 0; i < inputs.texts.size(); ++i) {
    const std::string text = prompt + inputs.texts[i];
    Encoding e;
    try {
      e = tokenizer.encode(text, add_special);
    } catch (const Error& error) {
      throw to_http_error(Error(error.code(), error.message(), i), "inputs");
    }
    json tokens = json::array();
    for (std::size_t k = 0; k < e.size(); ++k) {
      const bool special = e.special_tokens_mask[k] != 0;
      const auto [begin, end] = e.offsets[k];
      json token = {{"id", e.ids[k]}, {"special", special}};
      if (special) {
        token["text"] = std::string(tokenizer.id_to_token(e.ids[k]));
        token["start"] = nullptr;
        token["stop"] = nullptr;
      } else {
        token["text"] = begin <= end && end <= text.size() ? text.substr(begin, end - begin) : std::string();
        token["start"] = begin;
        token["stop"] = end;
      }
      tokens.push_back(std::move(token));
    }
    out.push_back(std::move(tokens));
  }
  return out;
}

json decode(ServerState& state, const httplib::Request& req) {
  const json body = parse_object(req.body);
  const ServedModel& model = state.models.any(optional_string(body, "model"));
  const Inputs inputs = read_inputs(body, "ids", state.options.max_inputs, true);
  if (!inputs.texts.empty()) throw HttpError(422, "`ids` must be a list of token ids or a list of such lists", "ids");
  const bool skip_special = optional_bool(body, "skip_special_tokens").value_or(true);
  const Tokenizer& tokenizer = model.tokenizer();
  const std::size_t vocabulary = tokenizer.vocab_size();
  json out = json::array();
  for (std::size_t i = 0; i < inputs.ids.size(); ++i) {
    for (const std::uint32_t id : inputs.ids[i]) {
      if (id >= vocabulary) {
        throw HttpError(422,
                        "`ids` input " + std::to_string(i) + ": token id " + std::to_string(id) +
                            " is outside the vocabulary of " + std::to_string(vocabulary),
                        "ids");
      }
    }
    out.push_back(tokenizer.decode(inputs.ids[i], skip_special));
  }
  return out;
}

json info(ServerState& state, const httplib::Request& req) {
  std::optional<std::string> name;
  if (req.has_param("model")) name = req.get_param_value("model");
  const ServedModel& model = state.models.any(name);
  const ModelInfo& i = model.info();
  json type;
  if (model.is_reranker()) {
    json id2label = json::object();
    json label2id = json::object();
    for (std::size_t k = 0; k < i.dimension; ++k) {
      id2label[std::to_string(k)] = "LABEL_" + std::to_string(k);
      label2id["LABEL_" + std::to_string(k)] = k;
    }
    type = {{"reranker", {{"id2label", id2label}, {"label2id", label2id}}}};
  } else {
    type = {{"embedding", {{"pooling", pooling_name(i)}}}};
  }
  const SchedulerOptions& s = state.options.scheduling;
  return {{"model_id", model.name},
          {"model_sha", nullptr},
          {"model_dtype", "float32"},
          {"model_type", type},
          {"max_concurrent_requests", state.options.http_threads},
          {"max_input_length", i.max_length},
          {"max_batch_tokens", s.max_batch_tokens},
          {"max_batch_requests", s.max_batch_size},
          {"max_client_batch_size", state.options.max_inputs},
          {"auto_truncate", state.options.auto_truncate},
          {"tokenization_workers", state.options.http_threads},
          {"version", "sieve-0.1.0"},
          {"sha", nullptr},
          {"docker_label", nullptr}};
}

}  // namespace

void add_tei_routes(httplib::Server& http, ServerState& state) {
  add_raw_route(http, state, "POST", "/embed", ApiStyle::kTei,
                [&state](const httplib::Request& req, httplib::Response& res) {
                  res.set_content(embed(state, req), "application/json");
                });
  add_route(http, state, "POST", "/rerank", ApiStyle::kTei,
            [&state](const httplib::Request& req) { return rerank(state, req); });
  add_route(http, state, "POST", "/tokenize", ApiStyle::kTei,
            [&state](const httplib::Request& req) { return tokenize(state, req); });
  add_route(http, state, "POST", "/decode", ApiStyle::kTei,
            [&state](const httplib::Request& req) { return decode(state, req); });
  add_route(http, state, "GET", "/info", ApiStyle::kTei,
            [&state](const httplib::Request& req) { return info(state, req); });
}

}  // namespace sieve::server
