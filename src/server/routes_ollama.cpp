// Ollama's embedding API, so that tools that speak only Ollama work against Sieve: POST /api/embed and the older
// POST /api/embeddings, GET /api/tags, POST /api/show, GET /api/ps and GET /api/version; errors as {"error": ...}.
// Ollama has no reranking: POST /api/rerank is Sieve's extension, in the shape Ollama's community proposed for it
// (query, documents, top_n; results of index, relevance_score, document).
#include <chrono>
#include <ctime>
#include <fstream>

#include "server/request_json.hpp"
#include "server/response_budget.hpp"
#include "server/routes.hpp"
#include "sieve/json_text.hpp"
#include "sieve/version.hpp"

namespace sieve::server {
namespace {
namespace ollama_routes {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr std::string_view kLatest = ":latest";

// Ollama names models NAME:TAG; Sieve's have no tags, so NAME and NAME:latest are the same model.
// `older_key`: also "name", which older clients send to /api/show.
std::optional<std::string> model_name(const json& body, bool older_key = false) {
  std::optional<std::string> name = optional_string(body, "model");
  if (!name && older_key) name = optional_string(body, "name");
  if (!name || name->empty()) throw HttpError(400, "`model` is required", "model");
  if (name->ends_with(kLatest)) name->resize(name->size() - kLatest.size());
  return name;
}

std::string tagged(const std::string& name) {
  return name + std::string(kLatest);
}

std::string rfc3339(std::chrono::system_clock::time_point when) {
  const std::time_t t = std::chrono::system_clock::to_time_t(when);
  std::tm utc{};
  gmtime_r(&t, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

// config.json's model_type ("bert", "xlm-roberta", ...), Ollama's "family".
std::string family(const ServedModel& m) {
  std::ifstream in(m.info().folder / "config.json");
  if (!in) return "";
  try {
    const json config = json::parse(in);
    return config.value("model_type", std::string());
  } catch (const json::exception&) {
    return "";
  }
}

std::uint64_t folder_bytes(const ServedModel& m) {
  std::error_code ec;
  std::uint64_t bytes = fs::file_size(m.info().onnx_file, ec);
  if (ec) bytes = 0;
  return bytes;
}

json details(const std::string& f) {
  return {{"parent_model", ""},   {"format", "onnx"},
          {"family", f},          {"families", f.empty() ? json::array() : json::array({f})},
          {"parameter_size", ""}, {"quantization_level", ""}};
}

json listed(const ServerState& state, const ServedModel& m) {
  return {{"name", tagged(m.name)},
          {"model", tagged(m.name)},
          {"modified_at", rfc3339(state.started)},
          {"size", folder_bytes(m)},
          {"digest", ""},
          {"details", details(family(m))}};
}

// The texts of /api/embed's "input" (a string or a list of strings) or /api/embeddings' "prompt"; none for an
// empty string or list, which Ollama answers with no vectors.
std::vector<std::string> texts_of(const ServerState& state, const json& body, const char* key) {
  const auto it = body.find(key);
  if (it == body.end() || it->is_null() || (it->is_string() && it->get_ref<const std::string&>().empty()) ||
      (it->is_array() && it->empty())) {
    return {};
  }
  if (!it->is_string() && !it->is_array()) {
    throw HttpError(400, std::string("`") + key + "` must be a string or a list of strings", key);
  }
  Inputs inputs = read_inputs(body, key, state.options.max_inputs, false);
  return std::move(inputs.texts);
}

struct Vectors {
  Embeddings embeddings;
  std::size_t tokens = 0;
};

Vectors embed(ServerState& state, const Request& req, const ServedModel& model, const std::vector<std::string>& texts,
              bool truncate, std::optional<std::int64_t> dimensions, const char* field) {
  EmbeddingService& service = *model.embedding;
  std::vector<EncodedText> encoded;
  try {
    const TokenizeTimer timer(state.metrics);
    const std::vector<std::string_view> views(texts.begin(), texts.end());
    EncodeOptions options;
    options.truncate = truncate;
    options.threads = 1;
    encoded = service.encode(views, options);
  } catch (const Error& e) {
    const HttpError error = to_http_error(e, field, "send \"truncate\": true to cut it at the model's maximum");
    // Ollama answers what the client sent wrong with 400.
    throw HttpError(error.status() == 422 ? 400 : error.status(), error.what(), error.param());
  }
  Vectors out;
  for (const EncodedText& e : encoded) out.tokens += e.encoding.size();
  const ModelInfo& info = model.info();
  const std::size_t columns = dimensions ? static_cast<std::size_t>(*dimensions) : info.dimension;
  ResponseBudget budget(state.options.max_response_bytes, field);
  budget.expect(encoded.size() * columns * 8,
                std::to_string(encoded.size()) + " vectors of " + std::to_string(columns) + " dimensions");
  out.embeddings = service.embed(std::move(encoded), static_cast<std::size_t>(dimensions.value_or(0)), info.normalize,
                                 state.deadline(), ServerState::client_gone(req));
  return out;
}

// keep_alive and options are accepted as Ollama's clients send them: Sieve keeps every served model loaded, and
// the options are a generator's (temperature, num_ctx ...).
void check_accepted_fields(const json& body) {
  if (const auto it = body.find("keep_alive");
      it != body.end() && !it->is_null() && !it->is_string() && !it->is_number()) {
    throw HttpError(400, "`keep_alive` must be a duration (\"5m\") or a number of seconds", "keep_alive");
  }
  if (const auto it = body.find("options"); it != body.end() && !it->is_null() && !it->is_object()) {
    throw HttpError(400, "`options` must be an object", "options");
  }
}

std::string embed_route(ServerState& state, const Request& req) {
  const auto start = std::chrono::steady_clock::now();
  const json body = parse_object(req.body);
  const std::optional<std::string> name = model_name(body);
  check_accepted_fields(body);
  const ServedModel& model = state.models.embedding(name);
  const bool truncate = optional_bool(body, "truncate").value_or(true);
  const auto dimensions = optional_int(body, "dimensions", 1, static_cast<std::int64_t>(model.info().model_dimension));
  const std::vector<std::string> texts = texts_of(state, body, "input");
  std::string out = R"({"model":)";
  append_json_string(out, *optional_string(body, "model"));
  out += R"(,"embeddings":[)";
  std::size_t tokens = 0;
  if (!texts.empty()) {
    const Vectors v = embed(state, req, model, texts, truncate, dimensions, "input");
    tokens = v.tokens;
    for (std::size_t i = 0; i < v.embeddings.rows; ++i) {
      if (i > 0) out += ',';
      append_json_array(out, v.embeddings.row(i));
    }
  }
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start);
  out += R"(],"total_duration":)" + std::to_string(ns.count()) + R"(,"load_duration":0,"prompt_eval_count":)" +
         std::to_string(tokens) + "}";
  return out;
}

std::string legacy_embeddings_route(ServerState& state, const Request& req) {
  const json body = parse_object(req.body);
  const std::optional<std::string> name = model_name(body);
  check_accepted_fields(body);
  const ServedModel& model = state.models.embedding(name);
  if (const auto it = body.find("prompt"); it != body.end() && !it->is_string() && !it->is_null()) {
    throw HttpError(400, "`prompt` must be a string", "prompt");
  }
  const std::vector<std::string> texts = texts_of(state, body, "prompt");
  std::string out = R"({"embedding":)";
  if (texts.empty()) {
    out += "[]";
  } else {
    // The older route cut long prompts too.
    const Vectors v = embed(state, req, model, texts, true, std::nullopt, "prompt");
    append_json_array(out, v.embeddings.row(0));
  }
  return out + "}";
}

json tags(const ServerState& state) {
  json models = json::array();
  for (const ServedModel& m : state.models.all()) models.push_back(listed(state, m));
  return {{"models", std::move(models)}};
}

json running(const ServerState& state) {
  json models = json::array();
  for (const ServedModel& m : state.models.all()) {
    json entry = listed(state, m);
    entry.erase("modified_at");
    entry["expires_at"] = "2999-12-31T23:59:59Z";  // never unloaded (keep_alive -1)
    entry["size_vram"] = 0;
    models.push_back(std::move(entry));
  }
  return {{"models", std::move(models)}};
}

json show(ServerState& state, const Request& req) {
  const json body = parse_object(req.body);
  const ServedModel& m = state.models.any(model_name(body, true));
  const std::string f = family(m);
  const std::string arch = f.empty() ? "onnx" : f;
  json model_info = {{"general.architecture", arch}};
  model_info[arch + ".context_length"] = m.info().max_length;
  if (!m.is_reranker()) model_info[arch + ".embedding_length"] = m.info().dimension;
  return {{"modelfile", ""},
          {"parameters", ""},
          {"template", ""},
          {"details", details(f)},
          {"model_info", std::move(model_info)},
          {"capabilities", m.is_reranker() ? json::array({"rerank"}) : json::array({"embedding"})},
          {"modified_at", rfc3339(state.started)}};
}

}  // namespace ollama_routes
}  // namespace

void add_ollama_routes(Router& http, ServerState& state) {
  using namespace ollama_routes;
  add_raw_route(http, state, "POST", "/api/embed", ApiStyle::kOllama, [&state](const Request& req, Response& res) {
    res.set_content(embed_route(state, req), "application/json");
  });
  add_raw_route(http, state, "POST", "/api/embeddings", ApiStyle::kOllama, [&state](const Request& req, Response& res) {
    res.set_content(legacy_embeddings_route(state, req), "application/json");
  });
  add_route(http, state, "GET", "/api/tags", ApiStyle::kOllama, [&state](const Request&) { return tags(state); });
  add_route(http, state, "GET", "/api/ps", ApiStyle::kOllama, [&state](const Request&) { return running(state); });
  add_route(http, state, "POST", "/api/show", ApiStyle::kOllama,
            [&state](const Request& req) { return show(state, req); });
  add_route(http, state, "GET", "/api/version", ApiStyle::kOllama, [](const Request&) {
    return json{{"version", version()}};
  });
  add_route(http, state, "POST", "/api/rerank", ApiStyle::kOllama, [&state](const Request& req) {
    const json body = parse_object(req.body);
    json answer = rerank_documents(state, req, body, model_name(body));
    answer["model"] = body["model"];  // as the client named it
    return answer;
  });
}

}  // namespace sieve::server
