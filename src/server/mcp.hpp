#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/served_indexes.hpp"
#include "sieve/reranker.hpp"
#include "sieve/search.hpp"

namespace sieve::server {

// What one Model Context Protocol client has negotiated (over standard
// input and output: the one client; over HTTP: one Mcp-Session-Id).
struct McpSession {
  std::string protocol_version;  // empty until `initialize`
  bool initialized = false;      // notifications/initialized received
};

struct McpOptions {
  std::string server_version;
  // The cross-encoder a search may rerank with (the `search` tool's
  // `rerank` argument); none: the argument is not offered.
  const Reranker* reranker = nullptr;
  std::size_t rerank_candidates = kDefaultRerankCandidates;
  // Documents per page of resources/list.
  std::size_t resources_page = 100;
  // Bytes of text get_document returns at most (the rest is paged by begin/end).
  std::size_t max_document_bytes = std::size_t{256} * 1024;
};

// The Model Context Protocol (JSON-RPC 2.0) over the served search indexes,
// whatever carries the messages: the tools search, get_document,
// list_indexes and index_stats, and each document as a resource
// sieve://INDEX/documents/ID. Const and safe from many threads at once; a
// session is the caller's to keep (and to lock).
class McpServer {
 public:
  McpServer(const ServedIndexes& indexes, McpOptions options);

  // The answer to one message (an object) or a batch (an array): nullopt
  // when nothing is to be sent back (notifications, a client's responses).
  [[nodiscard]] std::optional<nlohmann::json> handle(const nlohmann::json& message, McpSession& session) const;
  // The same for a message's JSON text; text that is not JSON gets the
  // JSON-RPC parse error.
  [[nodiscard]] std::optional<nlohmann::json> handle_text(std::string_view text, McpSession& session) const;

  // The protocol versions answered, oldest first.
  [[nodiscard]] static const std::vector<std::string>& protocol_versions();
  [[nodiscard]] static bool supports(std::string_view version);
  // A JSON-RPC error response.
  [[nodiscard]] static nlohmann::json error_response(const nlohmann::json& id, int code, const std::string& message);

  // JSON-RPC error codes.
  static constexpr int kParseError = -32700;
  static constexpr int kInvalidRequest = -32600;
  static constexpr int kMethodNotFound = -32601;
  static constexpr int kInvalidParams = -32602;
  static constexpr int kInternalError = -32603;
  static constexpr int kResourceNotFound = -32002;

 private:
  [[nodiscard]] std::optional<nlohmann::json> handle_one(const nlohmann::json& message, McpSession& session) const;
  [[nodiscard]] nlohmann::json dispatch(const std::string& method, const nlohmann::json& params,
                                        McpSession& session) const;
  [[nodiscard]] nlohmann::json initialize(const nlohmann::json& params, McpSession& session) const;
  [[nodiscard]] nlohmann::json list_tools(const McpSession& session) const;
  [[nodiscard]] nlohmann::json call_tool(const nlohmann::json& params, const McpSession& session) const;
  [[nodiscard]] nlohmann::json run_tool(const std::string& name, const nlohmann::json& arguments) const;
  [[nodiscard]] nlohmann::json search(const nlohmann::json& arguments) const;
  [[nodiscard]] nlohmann::json get_document(const nlohmann::json& arguments) const;
  [[nodiscard]] nlohmann::json index_stats(const nlohmann::json& arguments) const;
  [[nodiscard]] nlohmann::json list_resources(const nlohmann::json& params) const;
  [[nodiscard]] nlohmann::json list_resource_templates() const;
  [[nodiscard]] nlohmann::json read_resource(const nlohmann::json& params) const;
  // The index an argument names, or the only one served.
  [[nodiscard]] const ServedIndex& index_named(const nlohmann::json& arguments) const;

  const ServedIndexes& indexes_;
  McpOptions options_;
};

// "sieve://INDEX/documents/ID" with the name and id percent-encoded.
std::string mcp_document_uri(std::string_view index, std::string_view id);
// Every byte but the unreserved characters of RFC 3986 as %XX.
std::string percent_encode(std::string_view text);

}  // namespace sieve::server
