// Hugging Face Text Embeddings Inference's API: POST /embed, /embed_sparse, /rerank,
// /predict, /tokenize, /decode and GET /info. TEI serves one model; here an optional
// "model" field picks one, and without it the first of the kind is used.
#include <algorithm>
#include <cmath>

#include "model/model_spec.hpp"
#include "server/late_chunks.hpp"
#include "server/request_json.hpp"
#include "server/response_budget.hpp"
#include "server/routes.hpp"
#include "sieve/json_text.hpp"
#include "sieve/serving.hpp"
#include "sieve/version.hpp"

namespace sieve::server {
namespace {
namespace tei_routes {

using nlohmann::json;

// The least bytes a float takes in an answer ("0.1234567," and the like are longer).
constexpr std::size_t kMinBytesPerFloat = 8;

constexpr std::string_view kHowToTruncate =
    "send \"truncate\": true to cut it at the model's maximum, or start the server with --auto-truncate";

bool truncation_of(const ServerState& state, const json& body) {
  return optional_bool(body, "truncate").value_or(state.options.auto_truncate);
}

// /embed's and /embed_sparse's inputs (texts or token ids), tokenized.
std::vector<EncodedText> encode_inputs(ServerState& state, const json& body, const ServedModel& model) {
  const Inputs inputs = read_inputs(body, "inputs", state.options.max_inputs, true);
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
    throw to_http_error(e, "inputs", kHowToTruncate);
  }
  return encoded;
}

std::string embed(ServerState& state, const Request& req) {
  const json body = parse_object(req.body);
  const ServedModel& model = state.models.embedding(optional_string(body, "model"));
  const ModelInfo& info = model.info();
  const bool normalize = optional_bool(body, "normalize").value_or(true);
  const auto dimensions = optional_int(body, "dimensions", 1, static_cast<std::int64_t>(info.model_dimension));
  if (asks_late_chunking(body)) {
    const LateChunked late =
        late_chunk(state, req, body, model, "inputs", static_cast<std::size_t>(dimensions.value_or(0)), normalize,
                   optional_string(body, "prompt_name"));
    std::string out = "[";
    for (std::size_t i = 0; i < late.vectors.rows; ++i) {
      if (i > 0) out += ",";
      append_json_array(out, late.vectors.row(i));
    }
    return out + "]";
  }
  std::vector<EncodedText> encoded = encode_inputs(state, body, model);
  const std::size_t columns = dimensions ? static_cast<std::size_t>(*dimensions) : info.dimension;
  ResponseBudget budget(state.options.max_response_bytes, "inputs");
  budget.expect(encoded.size() * columns * kMinBytesPerFloat,
                std::to_string(encoded.size()) + " vectors of " + std::to_string(columns) + " dimensions");
  const Embeddings result = model.embedding->embed(std::move(encoded), static_cast<std::size_t>(dimensions.value_or(0)),
                                                   normalize, state.deadline(), ServerState::client_gone(req));
  std::string out = "[";
  for (std::size_t i = 0; i < result.rows; ++i) {
    if (i > 0) out += ",";
    append_json_array(out, result.row(i));
    budget.check(out.size());
  }
  out += "]";
  return out;
}

// Text Embeddings Inference's sparse embeddings: per input, the non-zero
// weights as [{"index": token id, "value": weight}, ...] by ascending id.
// Beyond TEI: "top_k" and "min_weight" prune each vector, and
// "return_tokens" adds each id's vocabulary token.
std::string embed_sparse(ServerState& state, const Request& req) {
  const json body = parse_object(req.body);
  const ServedModel& model = state.models.sparse(optional_string(body, "model"));
  SparseOptions options;
  options.top_k = static_cast<std::size_t>(optional_int(body, "top_k", 1, 1 << 30).value_or(0));
  if (const auto it = body.find("min_weight"); it != body.end() && !it->is_null()) {
    if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < 0) {
      throw HttpError(422, "`min_weight` must be a number at least 0", "min_weight");
    }
    options.min_weight = it->get<float>();
  }
  const bool tokens = optional_bool(body, "return_tokens").value_or(false);
  // A SPLADE model's vectors, or BGE-M3's lexical weights (from their own output and queue).
  std::vector<EncodedText> encoded = encode_inputs(state, body, model);
  const std::vector<SparseVector> vectors =
      model.embedding->embed_sparse(std::move(encoded), options, state.deadline(), ServerState::client_gone(req));
  const Tokenizer& tokenizer = model.tokenizer();
  std::function<std::string_view(std::uint32_t)> token;
  if (tokens) token = [&](std::uint32_t id) { return tokenizer.id_to_token(id); };
  ResponseBudget budget(state.options.max_response_bytes, "inputs");
  std::string out = "[";
  for (std::size_t i = 0; i < vectors.size(); ++i) {
    if (i > 0) out += ",";
    append_sparse_json(out, vectors[i].ids, vectors[i].weights, token);
    budget.check(out.size());
  }
  out += "]";
  return out;
}

// Text Embeddings Inference's /embed_all: every token's vector. Served for
// late-interaction (ColBERT) models, whose token vectors these are; Sieve's
// "query": true encodes the inputs as queries (marker and expansion).
std::string embed_all(ServerState& state, const Request& req) {
  const json body = parse_object(req.body);
  const ServedModel& model = state.models.late_interaction(optional_string(body, "model"));
  const Inputs inputs = read_inputs(body, "inputs", state.options.max_inputs, false);
  const bool query = optional_bool(body, "query").value_or(false);
  const std::vector<std::string_view> views(inputs.texts.begin(), inputs.texts.end());
  std::vector<TokenInput> encoded;
  {
    const TokenizeTimer timer(state.metrics);
    encoded = model.encode_tokens(views, query ? TextRole::kQuery : TextRole::kDocument, truncation_of(state, body),
                                  "inputs");
  }
  // A vector per token: the answer's least size, refused before the vectors
  // are computed when it cannot fit.
  std::size_t tokens = 0;
  for (const TokenInput& e : encoded) tokens += e.encoding.size();
  // BGE-M3's token vectors are as wide as its graph says (its hidden size where that width is dynamic).
  const std::size_t dimension = !model.late && model.info().bge_m3.token_dimension != 0
                                    ? model.info().bge_m3.token_dimension
                                    : model.info().dimension;
  ResponseBudget budget(state.options.max_response_bytes, "inputs");
  budget.expect(tokens * dimension * kMinBytesPerFloat,
                std::to_string(tokens) + " token vectors of " + std::to_string(dimension) + " dimensions");
  const std::vector<TokenVectors> vectors =
      model.token_vectors(std::move(encoded), state.deadline(), ServerState::client_gone(req));
  std::string out = "[";
  for (std::size_t i = 0; i < vectors.size(); ++i) {
    if (i > 0) out += ",";
    out += "[";
    for (std::size_t r = 0; r < vectors[i].rows; ++r) {
      if (r > 0) out += ",";
      append_json_array(out, vectors[i].row(r));
    }
    out += "]";
    budget.check(out.size());
  }
  out += "]";
  return out;
}

json rerank(ServerState& state, const Request& req) {
  const json body = parse_object(req.body);
  const ServedModel& model = state.models.reranker(optional_string(body, "model"));
  const std::string query = required_string(body, "query");
  const Inputs texts = read_inputs(body, "texts", state.options.max_inputs, false);
  const bool raw = optional_bool(body, "raw_scores").value_or(false);
  const bool return_text = optional_bool(body, "return_text").value_or(false);
  const std::vector<std::string_view> views(texts.texts.begin(), texts.texts.end());
  std::vector<float> scores;
  if (model.is_late_interaction()) {
    // MaxSim sums have no activation: raw or not, the score is the same.
    scores = model.maxsim_scores(query, views, "texts", state.deadline(), ServerState::client_gone(req)).scores;
  } else {
    std::vector<Encoding> pairs;
    try {
      const TokenizeTimer timer(state.metrics);
      pairs = model.reranker->encode(query, views, truncation_of(state, body));
    } catch (const Error& e) {
      throw to_http_error(e, "texts", kHowToTruncate);
    }
    scores = model.reranker->score(std::move(pairs), raw, state.deadline(), ServerState::client_gone(req));
  }
  std::vector<std::size_t> order = rank_by_score(scores);
  json out = json::array();
  for (const std::size_t i : order) {
    json item = {{"index", i}, {"score", scores[i]}};
    if (return_text) item["text"] = texts.texts[i];
    out.push_back(std::move(item));
  }
  return out;
}

// /predict's inputs as Text Embeddings Inference reads them: a string is
// one text, a list of two strings one pair (so a batch of two texts is
// [["a"], ["b"]]), and any other list a batch whose items are a string, a
// one-string list or a two-string list (a pair).
struct PredictInputs {
  std::vector<std::string> first;
  std::vector<std::optional<std::string>> second;
  bool batch = false;
};

PredictInputs read_predict_inputs(const json& body, std::size_t max_inputs) {
  const auto it = body.find("inputs");
  if (it == body.end() || it->is_null()) throw HttpError(422, "`inputs` is required", "inputs");
  const json& v = *it;
  const char* expected = "`inputs` must be a string, a pair [text, text], or a list of texts and pairs";
  PredictInputs out;
  const auto add = [&](const json& item, std::size_t index) {
    if (item.is_string()) {
      out.first.push_back(item.get<std::string>());
      out.second.emplace_back();
      return;
    }
    const bool strings =
        item.is_array() && std::all_of(item.begin(), item.end(), [](const json& x) { return x.is_string(); });
    if (!strings || item.empty() || item.size() > 2) {
      throw HttpError(422, "`inputs` item " + std::to_string(index) + " is neither a text nor a pair; " + expected,
                      "inputs");
    }
    out.first.push_back(item[0].get<std::string>());
    out.second.push_back(item.size() == 2 ? std::optional<std::string>(item[1].get<std::string>()) : std::nullopt);
  };
  if (v.is_string()) {
    add(v, 0);
    return out;
  }
  if (!v.is_array()) throw HttpError(422, expected, "inputs");
  if (v.empty()) throw HttpError(400, "`inputs` must not be empty", "inputs");
  if (v.size() == 2 && v[0].is_string() && v[1].is_string()) {
    add(v, 0);
    return out;
  }
  if (v.size() > max_inputs) {
    throw HttpError(413,
                    "`inputs` has " + std::to_string(v.size()) + " inputs, more than the " +
                        std::to_string(max_inputs) + " allowed per request",
                    "inputs");
  }
  out.batch = true;
  for (std::size_t i = 0; i < v.size(); ++i) add(v[i], i);
  return out;
}

json predict(ServerState& state, const Request& req) {
  const json body = parse_object(req.body);
  const ServedModel& model = state.models.reranker(optional_string(body, "model"));
  const Reranker& reranker = model.reranker->reranker();
  if (model.type == ModelType::kLlmReranker || model.type == ModelType::kMultiVector) {
    throw HttpError(422,
                    "the model `" + model.name + "` is " + model::kind_noun(model.type) +
                        ": it scores (query, document) pairs with /rerank and does not classify",
                    "model");
  }
  const PredictInputs inputs = read_predict_inputs(body, state.options.max_inputs);
  const bool raw = optional_bool(body, "raw_scores").value_or(false);
  const bool truncate = truncation_of(state, body);
  // Texts and pairs are tokenized in two groups, then put back in order; an
  // error names the input's index in the request.
  std::vector<std::size_t> single_at;
  std::vector<std::size_t> pair_at;
  std::vector<std::string_view> singles;
  std::vector<TextPair> pairs;
  for (std::size_t i = 0; i < inputs.first.size(); ++i) {
    if (inputs.second[i]) {
      pair_at.push_back(i);
      pairs.push_back({inputs.first[i], *inputs.second[i]});
    } else {
      single_at.push_back(i);
      singles.emplace_back(inputs.first[i]);
    }
  }
  std::vector<Encoding> encodings(inputs.first.size());
  {
    const TokenizeTimer timer(state.metrics);
    const auto place = [&](std::vector<Encoding> group, const std::vector<std::size_t>& at) {
      for (std::size_t k = 0; k < group.size(); ++k) encodings[at[k]] = std::move(group[k]);
    };
    const auto renumber = [](const Error& e, const std::vector<std::size_t>& at) {
      return e.input_index() && *e.input_index() < at.size() ? Error(e.code(), e.message(), at[*e.input_index()]) : e;
    };
    try {
      if (!singles.empty()) place(reranker.encode_texts(singles, truncate, 1), single_at);
    } catch (const Error& e) {
      throw to_http_error(renumber(e, single_at), "inputs");
    }
    try {
      if (!pairs.empty()) place(reranker.encode_pairs(pairs, truncate, 1), pair_at);
    } catch (const Error& e) {
      throw to_http_error(renumber(e, pair_at), "inputs");
    }
  }
  const auto rows =
      model.reranker->classify(std::move(encodings), raw, state.deadline(), ServerState::client_gone(req));
  const auto& labels = reranker.labels();
  json out = json::array();
  for (const auto& row : rows) {
    // Best first, as Text Embeddings Inference lists them.
    json predictions = json::array();
    for (const std::size_t k : rank_by_score(row)) predictions.push_back({{"score", row[k]}, {"label", labels[k]}});
    out.push_back(std::move(predictions));
  }
  return inputs.batch ? out : out[0];
}

// /tokenize's answer is written directly: a tree of one object per token
// took about ten times the answer's size (hundreds of megabytes for a
// request of 2,048 paragraphs).
std::string tokenize(ServerState& state, const Request& req) {
  const json body = parse_object(req.body);
  const ServedModel& model = state.models.any(optional_string(body, "model"));
  const Inputs inputs = read_inputs(body, "inputs", state.options.max_inputs, false);
  const bool add_special = optional_bool(body, "add_special_tokens").value_or(true);
  const auto prompt_name = optional_string(body, "prompt_name");
  std::string prompt;
  if (prompt_name) {
    const auto& prompts = model.info().dense.prompts;
    const auto it =
        std::find_if(prompts.begin(), prompts.end(), [&](const auto& p) { return p.first == *prompt_name; });
    if (it == prompts.end()) throw HttpError(422, "unknown prompt name `" + *prompt_name + "`", "prompt_name");
    prompt = it->second;
  }
  const Tokenizer& tokenizer = model.tokenizer();
  std::vector<std::string> texts;
  std::vector<Encoding> encodings;
  texts.reserve(inputs.texts.size());
  encodings.reserve(inputs.texts.size());
  {
    const TokenizeTimer timer(state.metrics);
    for (std::size_t i = 0; i < inputs.texts.size(); ++i) {
      texts.push_back(prompt + inputs.texts[i]);
      try {
        encodings.push_back(tokenizer.encode(texts.back(), add_special));
      } catch (const Error& error) {
        throw to_http_error(Error(error.code(), error.message(), i), "inputs");
      }
    }
  }
  // Each token takes at least this many bytes of the answer: refused before
  // any is written when they cannot fit.
  constexpr std::size_t kBytesPerToken = 48;
  std::size_t tokens = 0;
  for (const Encoding& e : encodings) tokens += e.size();
  ResponseBudget budget(state.options.max_response_bytes, "inputs");
  budget.expect(tokens * kBytesPerToken, std::to_string(tokens) + " tokens");
  std::string out = "[";
  for (std::size_t i = 0; i < encodings.size(); ++i) {
    const Encoding& e = encodings[i];
    const std::string& text = texts[i];
    out += i == 0 ? "[" : ",[";
    for (std::size_t k = 0; k < e.size(); ++k) {
      const bool special = e.special_tokens_mask[k] != 0;
      const auto [begin, end] = e.offsets[k];
      out += k == 0 ? R"({"id":)" : R"(,{"id":)";
      out += std::to_string(e.ids[k]);
      // The keys in the order Sieve has always written them (sorted).
      if (special) {
        out += R"(,"special":true,"start":null,"stop":null,"text":)";
        append_text_json(out, tokenizer.id_to_token(e.ids[k]));
      } else {
        out += R"(,"special":false,"start":)" + std::to_string(begin) + R"(,"stop":)" + std::to_string(end) +
               R"(,"text":)";
        append_text_json(out, begin <= end && end <= text.size() ? std::string_view(text).substr(begin, end - begin)
                                                                 : std::string_view());
      }
      out += "}";
    }
    out += "]";
    budget.check(out.size());
  }
  out += "]";
  return out;
}

json decode(ServerState& state, const Request& req) {
  const json body = parse_object(req.body);
  const ServedModel& model = state.models.any(optional_string(body, "model"));
  const Inputs inputs = read_inputs(body, "ids", state.options.max_inputs, true);
  if (!inputs.texts.empty()) throw HttpError(422, "`ids` must be a list of token ids or a list of such lists", "ids");
  const bool skip_special = optional_bool(body, "skip_special_tokens").value_or(true);
  const Tokenizer& tokenizer = model.tokenizer();
  const std::size_t vocabulary = tokenizer.vocab_size();
  ResponseBudget budget(state.options.max_response_bytes, "ids");
  std::size_t decoded = 0;
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
    decoded += out.back().get_ref<const std::string&>().size();
    budget.check(decoded);
  }
  return out;
}

json info(ServerState& state, const Request& req) {
  std::optional<std::string> name;
  if (req.has_param("model")) name = req.param("model");
  const ServedModel& model = state.models.any(name);
  const ModelInfo& i = model.info();
  json type;
  if (model.is_reranker()) {
    const auto& labels = model.reranker->reranker().labels();
    json id2label = json::object();
    json label2id = json::object();
    for (std::size_t k = 0; k < labels.size(); ++k) {
      id2label[std::to_string(k)] = labels[k];
      label2id[labels[k]] = k;
    }
    // As Text Embeddings Inference reports them: one label ranks, several classify.
    const bool classifier = labels.size() > 1 && !model.reranker->reranker().is_llm_reranker();
    type = {{classifier ? "classifier" : "reranker", {{"id2label", id2label}, {"label2id", label2id}}}};
  } else {
    // Text Embeddings Inference names SPLADE pooling "splade".
    type = {{"embedding", {{"pooling", model.is_sparse() ? std::string("splade") : pooling_name(i)}}}};
  }
  const SchedulerOptions& s = state.options.scheduling;
  return {{"model_id", model.name},
          {"model_sha", nullptr},
          {"model_dtype", "float32"},
          {"model_type", type},
          {"max_concurrent_requests", state.options.http.handler_threads},
          {"max_input_length", i.max_length},
          {"max_batch_tokens", s.max_batch_tokens},
          {"max_batch_requests", s.max_batch_size},
          {"max_client_batch_size", state.options.max_inputs},
          {"auto_truncate", state.options.auto_truncate},
          {"tokenization_workers", state.options.http.handler_threads},
          {"version", std::string("sieve-") + sieve::version()},
          {"sha", nullptr},
          {"docker_label", nullptr}};
}

}  // namespace tei_routes
}  // namespace

void add_tei_routes(Router& http, ServerState& state) {
  using namespace tei_routes;
  add_raw_route(http, state, "POST", "/embed", ApiStyle::kTei, [&state](const Request& req, Response& res) {
    res.set_content(embed(state, req), "application/json");
  });
  add_raw_route(http, state, "POST", "/embed_sparse", ApiStyle::kTei, [&state](const Request& req, Response& res) {
    res.set_content(embed_sparse(state, req), "application/json");
  });
  add_raw_route(http, state, "POST", "/embed_all", ApiStyle::kTei, [&state](const Request& req, Response& res) {
    res.set_content(embed_all(state, req), "application/json");
  });
  add_route(http, state, "POST", "/rerank", ApiStyle::kTei,
            [&state](const Request& req) { return rerank(state, req); });
  add_route(http, state, "POST", "/predict", ApiStyle::kTei,
            [&state](const Request& req) { return predict(state, req); });
  add_raw_route(http, state, "POST", "/tokenize", ApiStyle::kTei, [&state](const Request& req, Response& res) {
    res.set_content(tokenize(state, req), "application/json");
  });
  add_route(http, state, "POST", "/decode", ApiStyle::kTei,
            [&state](const Request& req) { return decode(state, req); });
  add_route(http, state, "GET", "/info", ApiStyle::kTei, [&state](const Request& req) { return info(state, req); });
}

}  // namespace sieve::server
