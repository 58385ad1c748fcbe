#include "server/mcp.hpp"

#include <algorithm>
#include <array>
#include <new>
#include <stdexcept>
#include <utility>

#include "server/http_error.hpp"
#include "server/http_message.hpp"
#include "server/request_json.hpp"
#include "sieve/error.hpp"
#include "sieve/search.hpp"

namespace sieve::server {
namespace mcp_detail {

using nlohmann::json;

constexpr std::string_view kUriScheme = "sieve://";
constexpr std::string_view kDocumentsSegment = "/documents/";
// outputSchema and structuredContent came with this version.
constexpr std::string_view kStructuredSince = "2025-06-18";

// A JSON-RPC error raised while answering a request.
class RpcError : public std::runtime_error {
 public:
  RpcError(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
  [[nodiscard]] int code() const noexcept { return code_; }

 private:
  int code_;
};

// A tool's own failure: answered as a result with isError, for the model to read.
class ToolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

bool structured(const McpSession& session) {
  return session.protocol_version >= kStructuredSince;
}

// A JSON-RPC id: a string or an integer (MCP allows no null id in a request).
bool valid_id(const json& id) {
  return id.is_string() || id.is_number_integer();
}

json text_content(const std::string& text) {
  return json::array({{{"type", "text"}, {"text", text}}});
}

json tool_error(const std::string& message) {
  return {{"content", text_content(message)}, {"isError", true}};
}

// Reads a tool's argument with the server's request readers, whose
// complaints name the argument; they become the tool's error message.
template <class Read>
auto argument(Read&& read) -> decltype(read()) {
  try {
    return read();
  } catch (const HttpError& e) {
    throw ToolError(e.what());
  }
}

std::string names_of(const ServedIndexes& indexes) {
  std::string names;
  for (const ServedIndex& served : indexes.all()) names += (names.empty() ? "" : ", ") + served.name;
  return names;
}

SearchMode mode_named(const std::string& name) {
  if (name == "vector") return SearchMode::kVector;
  if (name == "bm25") return SearchMode::kBm25;
  if (name == "sparse") return SearchMode::kSparse;
  if (name == "hybrid") return SearchMode::kHybrid;
  throw ToolError("`mode` must be \"vector\", \"bm25\", \"sparse\" or \"hybrid\", not \"" + name + "\"");
}

const char* mode_name(SearchMode mode) {
  switch (mode) {
    case SearchMode::kVector: return "vector";
    case SearchMode::kBm25: return "bm25";
    case SearchMode::kSparse: return "sparse";
    case SearchMode::kHybrid: break;
  }
  return "hybrid";
}

json metadata_object(const std::vector<std::pair<std::string, std::string>>& metadata) {
  json out = json::object();
  for (const auto& [key, value] : metadata) out[key] = value;
  return out;
}

json index_property(const ServedIndexes& indexes) {
  json property = {{"type", "string"}, {"description", "The index to use: one of list_indexes' names"}};
  json names = json::array();
  for (const ServedIndex& served : indexes.all()) names.push_back(served.name);
  property["enum"] = names;
  if (indexes.all().size() == 1) property["description"] = "The index to use (optional: one index is served)";
  return property;
}

// The JSON Schema of index_stats_json's object with the index's name.
json stats_schema() {
  return {{"type", "object"},
          {"properties",
           {{"name", {{"type", "string"}}},
            {"documents", {{"type", "integer"}}},
            {"chunks", {{"type", "integer"}}},
            {"sources", {{"type", "integer"}}},
            {"model", {{"type", "object"}}}}},
          {"required", {"name", "documents", "chunks"}}};
}

json search_tool(const ServedIndexes& indexes, bool rerank, bool with_output) {
  json properties = {
      {"query", {{"type", "string"}, {"minLength", 1}, {"description", "What to look for, in words"}}},
      {"index", index_property(indexes)},
      {"k",
       {{"type", "integer"}, {"minimum", 1}, {"maximum", 100}, {"default", 10}, {"description", "Hits to return"}}},
      {"mode",
       {{"type", "string"},
        {"enum", {"hybrid", "vector", "bm25", "sparse"}},
        {"default", "hybrid"},
        {"description",
         "hybrid (fuses the lists below; the default), vector (meaning), bm25 (exact words) or sparse (an index "
         "with a sparse model)"}}},
      {"filters",
       {{"type", "object"},
        {"additionalProperties", {{"type", "string"}}},
        {"description", "Metadata key=value pairs a hit's document must all have (\"source\" matches its file)"}}}};
  if (rerank) {
    properties["rerank"] = {{"type", "boolean"},
                            {"default", false},
                            {"description", "Rescore the best candidates with the server's cross-encoder"}};
  }
  json tool = {
      {"name", "search"},
      {"title", "Search documents"},
      {"description",
       "Search a local document index. Each hit is a passage (a chunk) of a document: its document id, source file, "
       "title, section, score, the byte span [begin, end) of the passage in the document and its text. Read more of "
       "a document with get_document (id and span)."},
      {"inputSchema",
       {{"type", "object"}, {"properties", properties}, {"required", {"query"}}, {"additionalProperties", false}}},
      {"annotations", {{"readOnlyHint", true}, {"openWorldHint", false}}}};
  if (with_output) {
    const json hit = {{"type", "object"},
                      {"properties",
                       {{"rank", {{"type", "integer"}}},
                        {"document_id", {{"type", "string"}}},
                        {"source", {{"type", "string"}}},
                        {"title", {{"type", "string"}}},
                        {"section", {{"type", "string"}}},
                        {"score", {{"type", "number"}}},
                        {"relevance", {{"type", "number"}, {"minimum", 0}, {"maximum", 1}}},
                        {"format", {{"type", "string"}}},
                        {"snippet", {{"type", "string"}}},
                        {"chunk_index", {{"type", "integer"}}},
                        {"begin", {{"type", "integer"}}},
                        {"end", {{"type", "integer"}}},
                        {"text", {{"type", "string"}}},
                        {"metadata", {{"type", "object"}, {"additionalProperties", {{"type", "string"}}}}},
                        {"uri", {{"type", "string"}}}}},
                      {"required", {"rank", "document_id", "source", "score", "begin", "end", "text", "uri"}}};
    tool["outputSchema"] = {{"type", "object"},
                            {"properties",
                             {{"index", {{"type", "string"}}},
                              {"query", {{"type", "string"}}},
                              {"mode", {{"type", "string"}}},
                              {"hits", {{"type", "array"}, {"items", hit}}}}},
                            {"required", {"index", "query", "mode", "hits"}}};
  }
  return tool;
}

json get_document_tool(const ServedIndexes& indexes, std::size_t max_bytes, bool with_output) {
  json tool = {
      {"name", "get_document"},
      {"title", "Read a document"},
      {"description",
       "The text of an indexed document (as it was indexed), or of the byte span [begin, end) of it, e.g. a search "
       "hit's span. At most " +
           std::to_string(max_bytes) +
           " bytes come back at once: when `end` is below `length`, ask again from `end` for the rest."},
      {"inputSchema",
       {{"type", "object"},
        {"properties",
         {{"id",
           {{"type", "string"}, {"minLength", 1}, {"description", "The document id (a search hit's document_id)"}}},
          {"index", index_property(indexes)},
          {"begin", {{"type", "integer"}, {"minimum", 0}, {"description", "First byte (default 0)"}}},
          {"end", {{"type", "integer"}, {"minimum", 0}, {"description", "Byte after the last (default: the end)"}}}}},
        {"required", {"id"}},
        {"additionalProperties", false}}},
      {"annotations", {{"readOnlyHint", true}, {"openWorldHint", false}}}};
  if (with_output) {
    const json section = {{"type", "object"},
                          {"properties", {{"begin", {{"type", "integer"}}}, {"name", {{"type", "string"}}}}}};
    const json properties = {{"index", {{"type", "string"}}},    {"id", {{"type", "string"}}},
                             {"source", {{"type", "string"}}},   {"title", {{"type", "string"}}},
                             {"metadata", {{"type", "object"}}}, {"begin", {{"type", "integer"}}},
                             {"end", {{"type", "integer"}}},     {"length", {{"type", "integer"}}},
                             {"chunks", {{"type", "integer"}}},  {"sections", {{"type", "array"}, {"items", section}}},
                             {"text", {{"type", "string"}}},     {"uri", {{"type", "string"}}}};
    tool["outputSchema"] = {{"type", "object"},
                            {"properties", properties},
                            {"required", {"index", "id", "begin", "end", "length", "text"}}};
  }
  return tool;
}

json list_indexes_tool(bool with_output) {
  json tool = {{"name", "list_indexes"},
               {"title", "List the indexes"},
               {"description", "The search indexes served, each with its statistics (documents, chunks, model)."},
               {"inputSchema", {{"type", "object"}, {"properties", json::object()}, {"additionalProperties", false}}},
               {"annotations", {{"readOnlyHint", true}, {"openWorldHint", false}}}};
  if (with_output) {
    tool["outputSchema"] = {{"type", "object"},
                            {"properties", {{"indexes", {{"type", "array"}, {"items", stats_schema()}}}}},
                            {"required", {"indexes"}}};
  }
  return tool;
}

json index_stats_tool(const ServedIndexes& indexes, bool with_output) {
  json tool = {
      {"name", "index_stats"},
      {"title", "Index statistics"},
      {"description",
       "Statistics of one index: documents, chunks, sources, the embedding model, chunking and storage sizes."},
      {"inputSchema",
       {{"type", "object"}, {"properties", {{"index", index_property(indexes)}}}, {"additionalProperties", false}}},
      {"annotations", {{"readOnlyHint", true}, {"openWorldHint", false}}}};
  if (with_output) tool["outputSchema"] = stats_schema();
  return tool;
}

json stats_of(const ServedIndex& served) {
  json stats = json::parse(index_stats_json(served.index->stats()));
  stats["name"] = served.name;
  return stats;
}

// A tool's result: the structured content, and the same as JSON text (for
// clients that read only text).
json tool_result(json content, const McpSession& session) {
  json result = {{"content", text_content(dump(content))}, {"isError", false}};
  if (structured(session)) result["structuredContent"] = std::move(content);
  return result;
}

// resources/list's cursor: "POSITION:AFTER" (the index's position among
// those served, and the last document id listed, percent-encoded).
std::string make_cursor(std::size_t position, std::string_view after) {
  return std::to_string(position) + ":" + percent_encode(after);
}

std::pair<std::size_t, std::string> read_cursor(const std::string& cursor, std::size_t indexes) {
  const auto colon = cursor.find(':');
  if (colon == std::string::npos || colon == 0 || colon > 6)
    throw RpcError(McpServer::kInvalidParams, "invalid cursor");
  std::size_t position = 0;
  for (std::size_t i = 0; i < colon; ++i) {
    if (cursor[i] < '0' || cursor[i] > '9') throw RpcError(McpServer::kInvalidParams, "invalid cursor");
    position = position * 10 + static_cast<std::size_t>(cursor[i] - '0');
  }
  auto after = percent_decode(std::string_view(cursor).substr(colon + 1), false);
  if (!after || position >= indexes) throw RpcError(McpServer::kInvalidParams, "invalid cursor");
  return {position, std::move(*after)};
}

}  // namespace mcp_detail

using mcp_detail::RpcError;
using mcp_detail::ToolError;
using nlohmann::json;

std::string percent_encode(std::string_view text) {
  static constexpr std::array<char, 16> kHex = {'0', '1', '2', '3', '4', '5', '6', '7',
                                                '8', '9', 'A', 'B', 'C', 'D', 'E', 'F'};
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    const bool unreserved = (byte >= 'A' && byte <= 'Z') || (byte >= 'a' && byte <= 'z') ||
                            (byte >= '0' && byte <= '9') || byte == '-' || byte == '.' || byte == '_' || byte == '~';
    if (unreserved) {
      out.push_back(c);
    } else {
      out.push_back('%');
      out.push_back(kHex[byte >> 4U]);
      out.push_back(kHex[byte & 15U]);
    }
  }
  return out;
}

std::string mcp_document_uri(std::string_view index, std::string_view id) {
  return std::string(mcp_detail::kUriScheme) + percent_encode(index) + std::string(mcp_detail::kDocumentsSegment) +
         percent_encode(id);
}

McpServer::McpServer(const ServedIndexes& indexes, McpOptions options)
    : indexes_(indexes), options_(std::move(options)) {}

const std::vector<std::string>& McpServer::protocol_versions() {
  static const std::vector<std::string> versions = {"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"};
  return versions;
}

bool McpServer::supports(std::string_view version) {
  const auto& versions = protocol_versions();
  return std::find(versions.begin(), versions.end(), version) != versions.end();
}

json McpServer::error_response(const json& id, int code, const std::string& message) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

std::optional<json> McpServer::handle_text(std::string_view text, McpSession& session) const {
  json message;
  try {
    message = json::parse(text);
  } catch (const json::exception& e) {
    return error_response(nullptr, kParseError, std::string("Parse error: ") + e.what());
  }
  return handle(message, session);
}

std::optional<json> McpServer::handle(const json& message, McpSession& session) const {
  if (!message.is_array()) return handle_one(message, session);
  if (message.empty()) return error_response(nullptr, kInvalidRequest, "Invalid Request: an empty batch");
  json answers = json::array();
  for (const json& item : message) {
    if (auto answer = handle_one(item, session)) answers.push_back(std::move(*answer));
  }
  if (answers.empty()) return std::nullopt;
  return answers;
}

std::optional<json> McpServer::handle_one(const json& message, McpSession& session) const {
  if (!message.is_object()) return error_response(nullptr, kInvalidRequest, "Invalid Request: not a JSON object");
  const auto id_it = message.find("id");
  const bool has_id = id_it != message.end();
  const json id = has_id && mcp_detail::valid_id(*id_it) ? *id_it : json(nullptr);
  const auto version = message.find("jsonrpc");
  if (version == message.end() || *version != "2.0") {
    return error_response(id, kInvalidRequest, "Invalid Request: \"jsonrpc\" must be \"2.0\"");
  }
  const auto method_it = message.find("method");
  if (method_it == message.end()) {
    // A client's response (to a request this server never sends) is taken and dropped.
    if (has_id && (message.contains("result") || message.contains("error"))) return std::nullopt;
    return error_response(id, kInvalidRequest, "Invalid Request: no \"method\"");
  }
  if (!method_it->is_string())
    return error_response(id, kInvalidRequest, "Invalid Request: \"method\" must be a string");
  if (has_id && !mcp_detail::valid_id(*id_it)) {
    return error_response(nullptr, kInvalidRequest, "Invalid Request: \"id\" must be a string or an integer");
  }
  const std::string method = method_it->get<std::string>();
  const auto params_it = message.find("params");
  const json params = params_it == message.end() || params_it->is_null() ? json::object() : *params_it;
  if (!has_id) {  // a notification: never answered
    if (method == "notifications/initialized" && !session.protocol_version.empty()) session.initialized = true;
    return std::nullopt;
  }
  if (!params.is_object()) return error_response(id, kInvalidParams, "Invalid params: \"params\" must be an object");
  try {
    return json{{"jsonrpc", "2.0"}, {"id", id}, {"result", dispatch(method, params, session)}};
  } catch (const RpcError& e) {
    return error_response(id, e.code(), e.what());
  } catch (const std::bad_alloc&) {
    return error_response(id, kInternalError, "out of memory for this request");
  } catch (const std::exception& e) {
    return error_response(id, kInternalError, std::string("internal error: ") + e.what());
  }
}

json McpServer::dispatch(const std::string& method, const json& params, McpSession& session) const {
  if (method == "initialize") return initialize(params, session);
  if (method == "ping") return json::object();
  if (session.protocol_version.empty()) {
    throw RpcError(kInvalidRequest, "the session is not initialized: send \"initialize\" first");
  }
  if (method == "tools/list") return list_tools(session);
  if (method == "tools/call") return call_tool(params, session);
  if (method == "resources/list") return list_resources(params);
  if (method == "resources/templates/list") return list_resource_templates();
  if (method == "resources/read") return read_resource(params);
  throw RpcError(kMethodNotFound, "Method not found: " + method);
}

json McpServer::initialize(const json& params, McpSession& session) const {
  if (!session.protocol_version.empty()) throw RpcError(kInvalidRequest, "the session is already initialized");
  const auto requested = params.find("protocolVersion");
  if (requested == params.end() || !requested->is_string()) {
    throw RpcError(kInvalidParams, "Invalid params: \"protocolVersion\" (a string) is required");
  }
  const std::string asked = requested->get<std::string>();
  session.protocol_version = supports(asked) ? asked : protocol_versions().back();
  std::string instructions =
      "Sieve searches local document indexes (" + mcp_detail::names_of(indexes_) +
      "). Use `search` to find passages, then `get_document` with a hit's document_id (and its begin/end span) to "
      "read more; `list_indexes` and `index_stats` tell what is indexed. Documents are also resources at "
      "sieve://INDEX/documents/ID.";
  return {{"protocolVersion", session.protocol_version},
          {"capabilities",
           {{"tools", {{"listChanged", false}}}, {"resources", {{"subscribe", false}, {"listChanged", false}}}}},
          {"serverInfo", {{"name", "sieve"}, {"title", "Sieve search"}, {"version", options_.server_version}}},
          {"instructions", instructions}};
}

json McpServer::list_tools(const McpSession& session) const {
  const bool output = mcp_detail::structured(session);
  return {{"tools",
           {mcp_detail::search_tool(indexes_, options_.reranker != nullptr, output),
            mcp_detail::get_document_tool(indexes_, options_.max_document_bytes, output),
            mcp_detail::list_indexes_tool(output), mcp_detail::index_stats_tool(indexes_, output)}}};
}

json McpServer::call_tool(const json& params, const McpSession& session) const {
  const auto name = params.find("name");
  if (name == params.end() || !name->is_string()) {
    throw RpcError(kInvalidParams, "Invalid params: \"name\" (a string) is required");
  }
  const std::string tool = name->get<std::string>();
  if (tool != "search" && tool != "get_document" && tool != "list_indexes" && tool != "index_stats") {
    throw RpcError(kInvalidParams, "Unknown tool: " + tool);
  }
  const auto arguments_it = params.find("arguments");
  const json arguments = arguments_it == params.end() || arguments_it->is_null() ? json::object() : *arguments_it;
  if (!arguments.is_object()) return mcp_detail::tool_error("`arguments` must be an object");
  try {
    return mcp_detail::tool_result(run_tool(tool, arguments), session);
  } catch (const ToolError& e) {
    return mcp_detail::tool_error(e.what());
  } catch (const HttpError& e) {
    return mcp_detail::tool_error(e.what());
  } catch (const Error& e) {
    return mcp_detail::tool_error(e.message());
  } catch (const std::bad_alloc&) {
    return mcp_detail::tool_error("out of memory for this request");
  }
}

json McpServer::run_tool(const std::string& name, const json& arguments) const {
  if (name == "search") return search(arguments);
  if (name == "get_document") return get_document(arguments);
  if (name == "index_stats") return index_stats(arguments);
  for (const auto& [key, value] : arguments.items()) {
    throw ToolError("list_indexes takes no arguments, not `" + key + "`");
  }
  json list = json::array();
  for (const ServedIndex& served : indexes_.all()) list.push_back(mcp_detail::stats_of(served));
  return {{"indexes", std::move(list)}};
}

const ServedIndex& McpServer::index_named(const json& arguments) const {
  const auto name = mcp_detail::argument([&] { return optional_string(arguments, "index"); });
  const auto& all = indexes_.all();
  if (!name) {
    if (all.size() == 1) return all.front();
    throw ToolError("`index` is required: " + std::to_string(all.size()) +
                    " indexes are served: " + mcp_detail::names_of(indexes_));
  }
  for (const ServedIndex& served : all) {
    if (served.name == *name) return served;
  }
  throw ToolError("unknown index `" + *name + "`: the indexes served are " + mcp_detail::names_of(indexes_));
}

namespace mcp_detail {

void check_arguments(const json& arguments, std::initializer_list<std::string_view> known, const char* tool) {
  for (const auto& [key, value] : arguments.items()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      throw ToolError(std::string(tool) + " has no argument `" + key + "`");
    }
  }
}

}  // namespace mcp_detail

json McpServer::search(const json& arguments) const {
  mcp_detail::check_arguments(arguments, {"query", "index", "k", "mode", "filters", "rerank"}, "search");
  const ServedIndex& served = index_named(arguments);
  const auto query = mcp_detail::argument([&] { return optional_string(arguments, "query"); });
  if (!query || query->find_first_not_of(" \t\r\n") == std::string::npos) {
    throw ToolError("`query` is required: the words to search for");
  }
  SearchOptions options;
  options.k =
      static_cast<std::size_t>(mcp_detail::argument([&] { return optional_int(arguments, "k", 1, 100); }).value_or(10));
  const auto mode = mcp_detail::argument([&] { return optional_string(arguments, "mode"); });
  options.mode = mode ? mcp_detail::mode_named(*mode) : SearchMode::kHybrid;
  if (const auto filters = arguments.find("filters"); filters != arguments.end() && !filters->is_null()) {
    if (!filters->is_object()) throw ToolError("`filters` must be an object of metadata keys and string values");
    for (const auto& [key, value] : filters->items()) {
      if (key.empty()) throw ToolError("`filters` keys must not be empty");
      if (!value.is_string()) throw ToolError("`filters` value of \"" + key + "\" must be a string");
      options.filters.emplace_back(key, value.get<std::string>());
    }
  }
  const Reranker* reranker = nullptr;
  if (mcp_detail::argument([&] { return optional_bool(arguments, "rerank"); }).value_or(false)) {
    if (options_.reranker == nullptr) throw ToolError("`rerank`: no cross-encoder is loaded on this server");
    reranker = options_.reranker;
    options.rerank_candidates = std::max(options_.rerank_candidates, options.k);
  }
  const SearchResult result = served.search(*query, options, reranker);
  json hits = json::array();
  for (const SearchHit& hit : result.hits) {
    hits.push_back({{"rank", hit.rank},
                    {"document_id", hit.document_id},
                    {"source", hit.source},
                    {"title", hit.title},
                    {"section", hit.section},
                    {"score", hit.score},
                    {"relevance", hit.relevance},
                    {"format", hit.format},
                    {"snippet", hit.snippet},
                    {"chunk_index", hit.chunk_index},
                    {"begin", hit.chunk_begin},
                    {"end", hit.chunk_end},
                    {"text", hit.text},
                    {"metadata", mcp_detail::metadata_object(hit.metadata)},
                    {"uri", mcp_document_uri(served.name, hit.document_id)}});
  }
  return {{"index", served.name}, {"query", *query}, {"mode", mcp_detail::mode_name(options.mode)}, {"hits", hits}};
}

json McpServer::get_document(const json& arguments) const {
  mcp_detail::check_arguments(arguments, {"id", "index", "begin", "end"}, "get_document");
  const ServedIndex& served = index_named(arguments);
  const auto id = mcp_detail::argument([&] { return optional_string(arguments, "id"); });
  if (!id || id->empty()) throw ToolError("`id` is required: a document id (a search hit's document_id)");
  constexpr std::int64_t kMax = std::int64_t{1} << 52;
  const auto begin = static_cast<std::size_t>(
      mcp_detail::argument([&] { return optional_int(arguments, "begin", 0, kMax); }).value_or(0));
  const auto end_arg = mcp_detail::argument([&] { return optional_int(arguments, "end", 0, kMax); });
  if (end_arg && static_cast<std::size_t>(*end_arg) < begin) throw ToolError("`end` must not be below `begin`");
  const std::size_t end = std::min(end_arg ? static_cast<std::size_t>(*end_arg) : static_cast<std::size_t>(-1),
                                   begin + options_.max_document_bytes);
  const auto document = served.index->document(*id, begin, end);
  if (!document) throw ToolError("no document `" + *id + "` in the index `" + served.name + "`");
  if (begin > document->length) {
    throw ToolError("`begin` is beyond the end of the document (" + std::to_string(document->length) + " bytes)");
  }
  json out = json::parse(document_json(*document));
  out["index"] = served.name;
  out["uri"] = mcp_document_uri(served.name, document->id);
  return out;
}

json McpServer::index_stats(const json& arguments) const {
  mcp_detail::check_arguments(arguments, {"index"}, "index_stats");
  return mcp_detail::stats_of(index_named(arguments));
}

json McpServer::list_resources(const json& params) const {
  const auto& all = indexes_.all();
  std::size_t position = 0;
  std::string after;
  if (const auto cursor = params.find("cursor"); cursor != params.end() && !cursor->is_null()) {
    if (!cursor->is_string()) throw RpcError(kInvalidParams, "invalid cursor");
    std::tie(position, after) = mcp_detail::read_cursor(cursor->get<std::string>(), all.size());
  }
  json resources = json::array();
  std::size_t listed = 0;
  while (position < all.size() && listed < options_.resources_page) {
    const ServedIndex& served = all[position];
    const DocumentListing listing = served.index->documents(after, options_.resources_page - listed);
    for (const auto& document : listing.documents) {
      json resource = {
          {"uri", mcp_document_uri(served.name, document.id)},
          {"name", document.id},
          {"description",
           "Document " + document.id + " of the index " + served.name +
               (document.source.empty() || document.source == document.id ? "" : ", from " + document.source)},
          {"mimeType", "text/plain"}};
      if (!document.title.empty()) resource["title"] = document.title;
      resources.push_back(std::move(resource));
      ++listed;
    }
    if (listing.next.empty()) {
      ++position;
      after.clear();
    } else {
      after = listing.next;
    }
  }
  json result = {{"resources", std::move(resources)}};
  if (position < all.size()) result["nextCursor"] = mcp_detail::make_cursor(position, after);
  return result;
}

json McpServer::list_resource_templates() const {
  json templates = json::array();
  for (const ServedIndex& served : indexes_.all()) {
    templates.push_back(
        {{"uriTemplate", std::string(mcp_detail::kUriScheme) + percent_encode(served.name) +
                             std::string(mcp_detail::kDocumentsSegment) + "{id}"},
         {"name", served.name + " documents"},
         {"description", "A document of the index " + served.name + " by its id (percent-encoded), as plain text"},
         {"mimeType", "text/plain"}});
  }
  return {{"resourceTemplates", std::move(templates)}};
}

json McpServer::read_resource(const json& params) const {
  const auto uri_it = params.find("uri");
  if (uri_it == params.end() || !uri_it->is_string()) {
    throw RpcError(kInvalidParams, "Invalid params: \"uri\" (a string) is required");
  }
  const std::string uri = uri_it->get<std::string>();
  const std::string_view view(uri);
  const auto not_found = [&uri] { return RpcError(kResourceNotFound, "Resource not found: " + uri); };
  if (view.substr(0, mcp_detail::kUriScheme.size()) != mcp_detail::kUriScheme) throw not_found();
  const std::string_view rest = view.substr(mcp_detail::kUriScheme.size());
  const auto segment = rest.find(mcp_detail::kDocumentsSegment);
  if (segment == std::string_view::npos) throw not_found();
  const auto name = percent_decode(rest.substr(0, segment), false);
  const auto id = percent_decode(rest.substr(segment + mcp_detail::kDocumentsSegment.size()), false);
  if (!name || !id || id->empty()) throw not_found();
  for (const ServedIndex& served : indexes_.all()) {
    if (served.name != *name) continue;
    const auto document = served.index->document(*id);
    if (!document) throw not_found();
    return {{"contents", {{{"uri", uri}, {"mimeType", "text/plain"}, {"text", document->text}}}}};
  }
  throw not_found();
}

}  // namespace sieve::server
