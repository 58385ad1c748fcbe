// Cohere's (and Jina's) rerank API: POST /v1/rerank.
#include <algorithm>
#include <atomic>
#include <cmath>

#include "server/request_json.hpp"
#include "server/routes.hpp"

namespace sieve::server {
namespace {
namespace cohere_routes {

using nlohmann::json;

// Documents are strings or objects with a "text" field.
std::vector<std::string> read_documents(const json& body, std::size_t max_inputs) {
  const auto it = body.find("documents");
  if (it == body.end() || !it->is_array()) {
    throw HttpError(422, "`documents` must be a list of strings or of objects with a \"text\" string", "documents");
  }
  if (it->empty()) throw HttpError(400, "`documents` must not be empty", "documents");
  if (it->size() > max_inputs) {
    throw HttpError(413,
                    "`documents` has " + std::to_string(it->size()) + " documents, more than the " +
                        std::to_string(max_inputs) + " allowed per request",
                    "documents");
  }
  std::vector<std::string> documents;
  documents.reserve(it->size());
  for (std::size_t i = 0; i < it->size(); ++i) {
    const json& d = (*it)[i];
    if (d.is_string()) {
      documents.push_back(d.get<std::string>());
    } else if (d.is_object() && d.contains("text") && d["text"].is_string()) {
      documents.push_back(d["text"].get<std::string>());
    } else {
      throw HttpError(
          422, "`documents` item " + std::to_string(i) + " is neither a string nor an object with a \"text\" string",
          "documents");
    }
  }
  return documents;
}

}  // namespace cohere_routes
}  // namespace

nlohmann::json rerank_documents(ServerState& state, const Request& req, const nlohmann::json& body,
                                const std::optional<std::string>& model_name) {
  using namespace cohere_routes;
  using nlohmann::json;
  static std::atomic<std::uint64_t> counter{0};
  const ServedModel& model = state.models.reranker(model_name);
  const std::string query = required_string(body, "query");
  const std::vector<std::string> documents = read_documents(body, state.options.max_inputs);
  const auto top_n = optional_int(body, "top_n", 1, std::numeric_limits<std::int32_t>::max());
  const bool return_documents = optional_bool(body, "return_documents").value_or(false);
  const std::vector<std::string_view> views(documents.begin(), documents.end());
  std::size_t tokens = 0;
  std::vector<float> scores;
  if (model.is_late_interaction()) {
    MaxSimScores late = model.maxsim_scores(query, views, "documents", state.deadline(), ServerState::client_gone(req));
    scores = std::move(late.scores);
    tokens = late.tokens;
  } else {
    std::vector<Encoding> pairs;
    try {
      const TokenizeTimer timer(state.metrics);
      // Cohere cuts long documents rather than refusing them.
      pairs = model.reranker->encode(query, views, true);
    } catch (const Error& e) {
      throw to_http_error(e, "documents");
    }
    for (const Encoding& e : pairs) tokens += e.size();
    scores = model.reranker->score(std::move(pairs), false, state.deadline(), ServerState::client_gone(req));
  }
  std::vector<std::size_t> order = rank_by_score(scores);
  if (top_n && static_cast<std::size_t>(*top_n) < order.size()) order.resize(static_cast<std::size_t>(*top_n));
  json results = json::array();
  for (const std::size_t i : order) {
    json item = {{"index", i}, {"relevance_score", scores[i]}};
    if (return_documents) item["document"] = {{"text", documents[i]}};
    results.push_back(std::move(item));
  }
  return {{"id", "sieve-rerank-" + std::to_string(counter.fetch_add(1) + 1)},
          {"model", model.name},
          {"results", std::move(results)},
          {"usage", {{"total_tokens", tokens}}},
          {"meta", {{"api_version", {{"version", "2"}}}, {"billed_units", {{"search_units", 1}}}}}};
}

void add_cohere_routes(Router& http, ServerState& state) {
  add_route(http, state, "POST", "/v1/rerank", ApiStyle::kCohere, [&state](const Request& req) {
    const nlohmann::json body = parse_object(req.body);
    return rerank_documents(state, req, body, optional_string(body, "model"));
  });
}

}  // namespace sieve::server
