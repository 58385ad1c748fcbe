// GET /openapi.json: this server's API as OpenAPI 3.1 (src/server/api/openapi.json, compiled in, with Sieve's
// version), and GET /docs: a page that renders it and sends requests to this server (its script and style compiled
// in too, under the search page's Content-Security-Policy). The document is checked against the route table when
// the server starts (check_routes_documented), so it cannot fall behind.
#include <algorithm>
#include <cctype>
#include <cstddef>
#include <string>

#include "server/routes.hpp"
#include "sieve/error.hpp"
#include "sieve/version.hpp"

namespace sieve::server {
namespace {
namespace api_docs_routes {

#include "api_assets.inc"

constexpr std::string_view kDocumentPath = "/openapi.json";

const EmbeddedAsset& document_asset() {
  for (const EmbeddedAsset& asset : kAssets) {
    if (asset.path == kDocumentPath) return asset;
  }
  throw Error(ErrorCode::kRuntime, "the OpenAPI document is not compiled in");
}

nlohmann::json document() {
  const EmbeddedAsset& asset = document_asset();
  nlohmann::json doc = nlohmann::json::parse(reinterpret_cast<const char*>(asset.data),
                                             reinterpret_cast<const char*>(asset.data) + asset.size);
  doc["info"]["version"] = version();
  return doc;
}

}  // namespace api_docs_routes
}  // namespace

void add_api_docs_routes(Router& http, ServerState& state) {
  using namespace api_docs_routes;
  for (const EmbeddedAsset& asset : kAssets) {
    std::string content(reinterpret_cast<const char*>(asset.data), asset.size);
    if (asset.path == kDocumentPath) content = document().dump();
    add_raw_route(
        http, state, "GET", asset.path, ApiStyle::kPlain,
        [content = std::move(content), &asset](const Request&, Response& res) {
          res.set_header("Content-Security-Policy", kPagePolicy);
          res.set_header("X-Content-Type-Options", "nosniff");
          res.set_header("Cache-Control", "no-cache");
          res.set_content(content, std::string(asset.content_type) + "; charset=utf-8");
        },
        true);
  }
}

void check_routes_documented(const Router& router) {
  using namespace api_docs_routes;
  const nlohmann::json doc = document();
  const nlohmann::json& paths = doc.at("paths");
  for (const auto& [method, path] : router.routes()) {
    std::string lower = method;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    if (!paths.contains(path) || !paths[path].contains(lower)) {
      throw Error(ErrorCode::kRuntime,
                  "the route " + method + " " + path + " is not in the OpenAPI document (src/server/api/openapi.json)");
    }
  }
}

}  // namespace sieve::server
