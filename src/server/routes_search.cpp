// Local search over the indexes of `sieve serve --index NAME=DIR`:
// POST /v1/search, GET /v1/indexes, GET /v1/indexes/{name}.
#include <string>
#include <utility>
#include <vector>

#include "server/request_json.hpp"
#include "server/routes.hpp"
#include "server/served_indexes.hpp"
#include "sieve/search.hpp"

namespace sieve::server {
namespace {
namespace search_routes {

using nlohmann::json;

// The shared field readers answer a field of the wrong type with 422 (the
// embedding APIs' "validation" status); a search request's fields are its
// options, and a bad option is 400, as the library's own errors map.
template <class Read>
auto option(Read&& read) -> decltype(read()) {
  try {
    return read();
  } catch (const HttpError& e) {
    if (e.status() != 422) throw;
    throw HttpError(400, e.what(), e.param(), e.code());
  }
}

SearchMode mode_named(const std::string& name, const char* field) {
  if (name == "vector") return SearchMode::kVector;
  if (name == "bm25") return SearchMode::kBm25;
  if (name == "sparse") return SearchMode::kSparse;
  if (name == "hybrid") return SearchMode::kHybrid;
  throw HttpError(
      400,
      "`" + std::string(field) + "` must name \"vector\", \"bm25\", \"sparse\" or \"hybrid\", not \"" + name + "\"",
      field);
}

SearchMode read_mode(const json& body) {
  const auto name = option([&] { return optional_string(body, "mode"); });
  return name ? mode_named(*name, "mode") : SearchMode::kHybrid;
}

// "fuse": the lists a hybrid search fuses, e.g. ["sparse", "bm25"].
std::vector<SearchMode> read_fuse(const json& body) {
  std::vector<SearchMode> lists;
  const auto it = body.find("fuse");
  if (it == body.end() || it->is_null()) return lists;
  if (!it->is_array()) throw HttpError(400, "`fuse` must be an array of \"vector\", \"bm25\" and \"sparse\"", "fuse");
  for (const auto& item : *it) {
    if (!item.is_string()) throw HttpError(400, "`fuse` must hold strings", "fuse");
    lists.push_back(mode_named(item.get<std::string>(), "fuse"));
  }
  return lists;
}

std::vector<std::pair<std::string, std::string>> read_filters(const json& body) {
  std::vector<std::pair<std::string, std::string>> filters;
  const auto it = body.find("filter");
  if (it == body.end() || it->is_null()) return filters;
  if (!it->is_object()) {
    throw HttpError(400, "`filter` must be an object of metadata keys and string values", "filter");
  }
  for (const auto& [key, value] : it->items()) {
    if (key.empty()) throw HttpError(400, "`filter` keys must not be empty", "filter");
    if (!value.is_string()) {
      throw HttpError(400, "`filter` value of \"" + key + "\" must be a string", "filter");
    }
    filters.emplace_back(key, value.get<std::string>());
  }
  return filters;
}

// "formats": ["pdf", "markdown"], "folders": ["/srv/docs"]: a list of strings (null or absent: none).
std::vector<std::string> read_strings(const json& body, const char* field) {
  std::vector<std::string> items;
  const auto it = body.find(field);
  if (it == body.end() || it->is_null()) return items;
  if (!it->is_array()) throw HttpError(400, "`" + std::string(field) + "` must be an array of strings", field);
  for (const auto& item : *it) {
    if (!item.is_string() || item.get<std::string>().empty()) {
      throw HttpError(400, "`" + std::string(field) + "` must hold non-empty strings", field);
    }
    items.push_back(item.get<std::string>());
  }
  return items;
}

// POST /v1/search: the body of sieve::search_result_json, as `sieve search --json` prints it.
void search(ServerState& state, const ServedIndexes& indexes, const Request& req, Response& res) {
  const json body = parse_object(req.body);
  const ServedIndex& served = indexes.find(option([&] { return optional_string(body, "index"); }));
  const std::string query = option([&] { return required_string(body, "query"); });
  SearchOptions options;
  options.k = static_cast<std::size_t>(option([&] { return optional_int(body, "k", 1, 1000); }).value_or(10));
  options.mode = read_mode(body);
  options.fuse = read_fuse(body);
  options.rerank_candidates =
      static_cast<std::size_t>(option([&] {
                                 return optional_int(body, "rerank_candidates", 1, 1000);
                               }).value_or(static_cast<std::int64_t>(kDefaultRerankCandidates)));
  options.per_document = static_cast<std::size_t>(option([&] {
                                                    return optional_int(body, "per_document", 0, 1000);
                                                  }).value_or(static_cast<std::int64_t>(kDefaultHitsPerDocument)));
  if (const auto fusion = option([&] { return optional_string(body, "fusion"); })) {
    if (*fusion != "weighted" && *fusion != "rrf") {
      throw HttpError(400, "`fusion` must be \"weighted\" or \"rrf\", not \"" + *fusion + "\"", "fusion");
    }
    options.fusion = parse_search_fusion(*fusion);
  }
  options.exact = option([&] { return optional_bool(body, "exact"); }).value_or(false);
  options.ef_search = static_cast<std::size_t>(option([&] {
                                                 return optional_int(body, "ef", 1, 100000);
                                               }).value_or(static_cast<std::int64_t>(options.ef_search)));
  options.filters = read_filters(body);
  options.formats = read_strings(body, "formats");
  options.folders = read_strings(body, "folders");
  for (const std::string& folder : options.folders) {
    if (folder.front() != '/')
      throw HttpError(400, "`folders` must hold absolute paths, not \"" + folder + "\"", "folders");
  }
  options.offset = static_cast<std::size_t>(option([&] { return optional_int(body, "offset", 0, 999); }).value_or(0));
  const Reranker* reranker = nullptr;
  if (const auto name = option([&] { return optional_string(body, "rerank"); })) {
    if (name->empty()) throw HttpError(400, "`rerank` must name a served reranker", "rerank");
    try {
      reranker = &state.models.reranker(name).reranker->reranker();
    } catch (const HttpError& e) {
      throw HttpError(e.status(), e.what(), "rerank", e.code());
    }
  }
  const SearchResult result = served.search(query, options, reranker);
  res.set_content(search_result_json(result, query, options.mode), "application/json");
}

json stats_of(const ServedIndex& served) {
  json stats = json::parse(index_stats_json(served.index->stats()));
  stats["name"] = served.name;
  return stats;
}

}  // namespace search_routes
}  // namespace

void add_search_routes(Router& http, ServerState& state, const ServedIndexes& indexes) {
  using namespace search_routes;
  add_raw_route(http, state, "POST", "/v1/search", ApiStyle::kOpenAI,
                [&state, &indexes](const Request& req, Response& res) { search(state, indexes, req, res); });
  add_route(http, state, "GET", "/v1/indexes", ApiStyle::kOpenAI, [&indexes](const Request&) {
    json list = json::array();
    for (const ServedIndex& served : indexes.all()) list.push_back(stats_of(served));
    return json{{"indexes", std::move(list)}};
  });
  add_route(
      http, state, "GET", "/v1/indexes/{name}", ApiStyle::kOpenAI,
      [&indexes](const Request& req) { return stats_of(indexes.find(req.matches[1])); }, false, "/v1/indexes/{name}");
}

}  // namespace sieve::server
