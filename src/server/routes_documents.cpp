// The documents of the served indexes: GET /v1/documents (a listing),
// GET /v1/documents/{id} (a document's text as indexed, or a span of it) and
// GET /v1/documents/{id}/original (its file as it is, when it is still the
// file indexed). The id is percent-encoded in the path ("%2F" for "/").
#include <cctype>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include "server/routes.hpp"
#include "server/served_indexes.hpp"
#include "sieve/error.hpp"
#include "sieve/search.hpp"

namespace sieve::server {
namespace document_routes {

using nlohmann::json;

// The largest original file served (it is sent in blocks, never held in memory): larger than any file
// `sieve index add` reads by default.
constexpr std::uint64_t kMaxOriginalBytes = std::uint64_t{4} << 30;
constexpr std::size_t kMaxListing = 1000;

const ServedIndex& index_of(const ServedIndexes& indexes, const Request& req) {
  return indexes.find(req.has_param("index") ? std::optional<std::string>(req.param("index")) : std::nullopt);
}

// A query parameter that must be a non-negative integer; `fallback` when absent.
std::size_t count_param(const Request& req, const char* name, std::size_t fallback) {
  if (!req.has_param(name)) return fallback;
  const std::string text = req.param(name);
  std::size_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
    throw HttpError(400, "`" + std::string(name) + "` must be a non-negative integer, not \"" + text + "\"", name);
  }
  return value;
}

DocumentView document_or_404(const ServedIndex& served, const std::string& id, std::size_t begin, std::size_t end) {
  auto view = served.index->document(id, begin, end);
  if (!view) throw HttpError(404, "no document \"" + id + "\" in index " + served.name, "id", "document_not_found");
  return std::move(*view);
}

// `name` as a quoted-string of Content-Disposition (ASCII, no quotes or
// controls) and as its RFC 8187 form for the rest.
std::string disposition(std::string_view name) {
  std::string plain;
  std::string encoded;
  static constexpr char kHex[] = "0123456789ABCDEF";
  for (const char c : name) {
    const auto byte = static_cast<unsigned char>(c);
    const bool safe = byte > 0x20 && byte < 0x7F && c != '"' && c != '\\' && c != '%' && c != ';' && c != ',';
    plain += safe ? c : '_';
    if (std::isalnum(byte) != 0 || c == '.' || c == '-' || c == '_') {
      encoded += c;
    } else {
      encoded += '%';
      encoded += kHex[byte >> 4U];
      encoded += kHex[byte & 0xFU];
    }
  }
  return "inline; filename=\"" + plain + "\"; filename*=UTF-8''" + encoded;
}

// What every served document body gets: the browser must take it for what
// the type says, and run nothing of it in the server's origin (the sandbox
// gives it an opaque origin of its own: no script, no forms, no access to
// the page's storage).
void protect(Response& res, std::string_view format) {
  res.set_header("X-Content-Type-Options", "nosniff");
  // Browsers' PDF viewers refuse to open in a sandbox; a PDF's own scripts never run in the page's origin.
  if (format != "pdf") res.set_header("Content-Security-Policy", "sandbox");
  res.set_header("Cross-Origin-Resource-Policy", "same-origin");
  res.set_header("Referrer-Policy", "no-referrer");
  res.set_header("Cache-Control", "no-store");
}

void original(const ServedIndexes& indexes, const Request& req, Response& res) {
  const ServedIndex& served = index_of(indexes, req);
  const std::string& id = req.matches[1];
  DocumentView view = document_or_404(served, id, 0, 0);  // what it is, without its text
  const auto file_name = [](std::string_view path) {
    const std::size_t cut = path.find_last_of("/!");
    return path.substr(cut == std::string_view::npos ? 0 : cut + 1);
  };
  if (view.id != view.source) {
    // A member of an archive, an attachment or a record: its text as indexed.
    view = document_or_404(served, id, 0, static_cast<std::size_t>(-1));
    protect(res, "text");
    res.set_header("Content-Disposition", disposition(std::string(file_name(view.id)) + ".txt"));
    res.set_content(std::move(view.text), "text/plain; charset=utf-8");
    return;
  }
  OriginalFile file;
  try {
    file = served.index->original(id, kMaxOriginalBytes);
  } catch (const Error& e) {
    if (e.code() != ErrorCode::kNotFound) throw;
    throw HttpError(404, e.what(), "id", "original_not_available");
  }
  protect(res, file.format);
  res.set_header("Content-Disposition", disposition(file_name(view.source)));
  res.set_content({}, file.media_type);
  res.file = std::move(file.descriptor);
  res.file_size = file.size;
}

}  // namespace document_routes

void add_document_routes(Router& http, ServerState& state, const ServedIndexes& indexes) {
  using document_routes::count_param;
  using document_routes::index_of;
  using nlohmann::json;
  add_route(http, state, "GET", "/v1/documents", ApiStyle::kOpenAI, [&indexes](const Request& req) {
    const ServedIndex& served = index_of(indexes, req);
    const std::size_t limit = count_param(req, "limit", 100);
    if (limit == 0 || limit > document_routes::kMaxListing) {
      throw HttpError(400, "`limit` must be between 1 and " + std::to_string(document_routes::kMaxListing), "limit");
    }
    const DocumentListing listing = served.index->documents(req.param("after"), limit);
    json documents = json::array();
    for (const auto& entry : listing.documents) {
      documents.push_back({{"id", entry.id}, {"source", entry.source}, {"title", entry.title}});
    }
    return json{{"index", served.name}, {"documents", std::move(documents)}, {"next", listing.next}};
  });
  add_raw_route(
      http, state, "GET", "/v1/documents/{id}", ApiStyle::kOpenAI,
      [&indexes](const Request& req, Response& res) {
        const ServedIndex& served = index_of(indexes, req);
        const std::size_t begin = count_param(req, "begin", 0);
        const std::size_t end = count_param(req, "end", static_cast<std::size_t>(-1));
        if (end < begin) throw HttpError(400, "`end` must not be before `begin`", "end");
        const DocumentView view = document_routes::document_or_404(served, req.matches[1], begin, end);
        res.set_content(document_json(view), "application/json");
      },
      false, "/v1/documents/{id}");
  add_raw_route(
      http, state, "GET", "/v1/documents/{id}/original", ApiStyle::kOpenAI,
      [&indexes](const Request& req, Response& res) { document_routes::original(indexes, req, res); }, false,
      "/v1/documents/{id}/original");
}

}  // namespace sieve::server
