// GET /ui: the search page, its script and style, compiled into the binary
// (src/server/ui/, embedded by tools/embed_assets.py).
#include <cstddef>
#include <string>

#include "server/routes.hpp"

namespace sieve::server {
namespace {
namespace ui_routes {

#include "ui_assets.inc"

}  // namespace ui_routes
}  // namespace

void add_ui_routes(Router& http, ServerState& state) {
  using namespace ui_routes;
  for (const EmbeddedAsset& asset : kAssets) {
    // The files hold no data, so they need no key; the page asks for one
    // when the API it calls answers 401.
    add_raw_route(
        http, state, "GET", asset.path, ApiStyle::kPlain,
        [&asset](const Request&, Response& res) {
          res.set_header("Content-Security-Policy", kPagePolicy);
          res.set_header("X-Content-Type-Options", "nosniff");
          res.set_header("Cache-Control", "no-cache");
          res.set_content(std::string(reinterpret_cast<const char*>(asset.data), asset.size),
                          std::string(asset.content_type) + "; charset=utf-8");
        },
        true);
  }
}

}  // namespace sieve::server
