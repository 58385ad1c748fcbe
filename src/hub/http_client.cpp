#include "hub/http_client.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <memory>
#include <mutex>

namespace sieve::hub {
namespace {

// curl_global_init is not thread-safe and must run once before any handle.
void global_init() {
  static std::once_flag once;
  static CURLcode result = CURLE_OK;
  std::call_once(once, [] { result = curl_global_init(CURL_GLOBAL_DEFAULT); });
  if (result != CURLE_OK) {
    throw NetworkError(ErrorCode::kRuntime, std::string("libcurl: ") + curl_easy_strerror(result), false);
  }
}

// Error bodies are only read for their message.
constexpr std::size_t kMaxErrorBody = std::size_t{64} * 1024;
// Metadata documents of repositories with many files run to megabytes, not more.
constexpr std::size_t kMaxDocument = std::size_t{64} * 1024 * 1024;
// The headers of one response: the hub's and a CDN's take a few kilobytes.
constexpr std::size_t kMaxHeaders = std::size_t{256} * 1024;

struct Transfer {
  HttpResponse response;
  const BodySink* sink = nullptr;
  bool too_large = false;
  std::size_t header_bytes = 0;  // of the current response
  bool headers_too_large = false;
};

std::string trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())) != 0) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())) != 0) s.remove_suffix(1);
  return std::string(s);
}

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
  auto& t = *static_cast<Transfer*>(user);
  const std::string_view line(data, size * count);
  if (line.starts_with("HTTP/")) t.header_bytes = 0;
  t.header_bytes += line.size();
  if (t.header_bytes > kMaxHeaders) {
    t.headers_too_large = true;
    return 0;
  }
  if (line.starts_with("HTTP/")) {
    // A new response (the first, or one after a redirect): forget the last one's headers.
    t.response.headers.clear();
    const auto space = line.find(' ');
    t.response.status = space == std::string_view::npos ? 0 : std::atol(std::string(line.substr(space + 1, 3)).c_str());
    return size * count;
  }
  const auto colon = line.find(':');
  if (colon != std::string_view::npos) {
    std::string name(line.substr(0, colon));
    std::transform(name.begin(), name.end(), name.begin(),
                   [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); });
    t.response.headers[name] = trim(line.substr(colon + 1));
  }
  return size * count;
}

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto& t = *static_cast<Transfer*>(user);
  const std::string_view chunk(data, size * count);
  const bool success = t.response.status >= 200 && t.response.status < 300;
  if (success && t.sink != nullptr) {
    if (!(*t.sink)(t.response, chunk)) {
      t.response.aborted = true;
      return 0;
    }
    return chunk.size();
  }
  const std::size_t limit = success ? kMaxDocument : kMaxErrorBody;
  if (t.response.body.size() + chunk.size() > limit) {
    // An error body is cut short (the message is at its start); a document too long is refused.
    if (success) {
      t.too_large = true;
      return 0;
    }
    t.response.body.append(chunk.substr(0, limit - t.response.body.size()));
    return chunk.size();
  }
  t.response.body.append(chunk);
  return chunk.size();
}

bool retryable(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_PARTIAL_FILE:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_SSL_CONNECT_ERROR: return true;
    default: return false;
  }
}

struct HeaderList {
  curl_slist* list = nullptr;
  ~HeaderList() { curl_slist_free_all(list); }
  void add(const std::string& header) {
    curl_slist* next = curl_slist_append(list, header.c_str());
    if (next == nullptr) throw NetworkError(ErrorCode::kRuntime, "libcurl: out of memory", false);
    list = next;
  }
};

}  // namespace

HttpClient::HttpClient(HttpSettings settings) : settings_(std::move(settings)) {
  global_init();
  curl_ = curl_easy_init();
  if (curl_ == nullptr) throw NetworkError(ErrorCode::kRuntime, "libcurl: cannot create a handle", false);
}

HttpClient::~HttpClient() {
  curl_easy_cleanup(static_cast<CURL*>(curl_));
}

HttpResponse HttpClient::get(const std::string& url) {
  return perform(url, 0, nullptr);
}

HttpResponse HttpClient::download(const std::string& url, std::uint64_t offset, const BodySink& sink) {
  return perform(url, offset, &sink);
}

HttpResponse HttpClient::perform(const std::string& url, std::uint64_t offset, const BodySink* sink) {
  auto* curl = static_cast<CURL*>(curl_);
  // A reset handle keeps its connection cache: the next request reuses the connection.
  curl_easy_reset(curl);
  Transfer transfer;
  transfer.sink = sink;
  char error_text[CURL_ERROR_SIZE] = {};
  HeaderList headers;
  // Only custom headers: curl drops a custom Authorization header when a
  // redirect leads to another host or port, so the CDN never sees the token.
  if (!settings_.token.empty()) headers.add("Authorization: Bearer " + settings_.token);
  const std::string range = std::to_string(offset) + "-";
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers.list);
  curl_easy_setopt(curl, CURLOPT_USERAGENT, "sieve-pull");
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(curl, CURLOPT_MAXREDIRS, 10L);
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error_text);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(settings_.connect_timeout_s * 1000));
  // A stalled server (headers, then silence) is abandoned after stall_timeout_s.
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, std::max(1L, std::lround(settings_.stall_timeout_s)));
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &transfer);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &transfer);
  if (sink == nullptr) {
    curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");  // documents may come compressed
  } else if (offset > 0) {
    // CURLOPT_RANGE, not RESUME_FROM: a 200 (the whole file again) must be
    // accepted and handled by the caller, not turned into an error.
    curl_easy_setopt(curl, CURLOPT_RANGE, range.c_str());
  }
  const CURLcode code = curl_easy_perform(curl);
  char* effective = nullptr;
  if (curl_easy_getinfo(curl, CURLINFO_EFFECTIVE_URL, &effective) == CURLE_OK && effective != nullptr) {
    transfer.response.url = effective;
  }
  if (code == CURLE_WRITE_ERROR && transfer.response.aborted) return std::move(transfer.response);
  if (transfer.headers_too_large) {
    throw NetworkError(ErrorCode::kRuntime,
                       url + ": the response's headers are larger than " + std::to_string(kMaxHeaders >> 10) + " KiB",
                       false);
  }
  if (transfer.too_large) {
    throw NetworkError(ErrorCode::kRuntime,
                       url + ": the response is larger than " + std::to_string(kMaxDocument >> 20) + " MiB", false);
  }
  if (code != CURLE_OK) {
    const std::string detail = error_text[0] != '\0' ? std::string(error_text) : curl_easy_strerror(code);
    throw NetworkError(code == CURLE_OPERATION_TIMEDOUT ? ErrorCode::kTimeout : ErrorCode::kRuntime,
                       url + ": " + detail, retryable(code));
  }
  return std::move(transfer.response);
}

}  // namespace sieve::hub
