#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "sieve/error.hpp"

namespace sieve::hub {

// A transfer that failed below HTTP: no connection, a cut or stalled
// transfer, a TLS failure. `retryable` says whether trying again (resuming)
// may help; the message carries curl's words and the URL (never the token,
// which only travels in a header).
class NetworkError : public Error {
 public:
  NetworkError(ErrorCode code, const std::string& message, bool retryable)
      : Error(code, message), retryable_(retryable) {}
  [[nodiscard]] bool retryable() const noexcept { return retryable_; }

 private:
  bool retryable_;
};

struct HttpSettings {
  std::string token;  // sent as "Authorization: Bearer" to the first host only; empty: none
  double connect_timeout_s = 30;
  double stall_timeout_s = 30;  // no byte for this long: the transfer is abandoned
};

// The final response (after redirects).
struct HttpResponse {
  long status = 0;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;                            // a get(), or the body of an error status
  std::string url;                             // after redirects
  bool aborted = false;                        // the body sink asked to stop
};

// Called with each piece of a 2xx body; the response carries the status and
// headers. Returning false stops the transfer (download() then returns with
// `aborted`).
using BodySink = std::function<bool(const HttpResponse& head, std::string_view chunk)>;

// One libcurl easy handle, reused so that consecutive requests share a
// connection. Redirects are followed (the hub sends LFS files to a CDN);
// curl sends a custom Authorization header to the original host only.
class HttpClient {
 public:
  explicit HttpClient(HttpSettings settings);
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;
  ~HttpClient();

  // A small document, held in memory. Throws NetworkError.
  HttpResponse get(const std::string& url);
  // A file body, given to `sink`; with `offset` > 0 asks for "Range: bytes=offset-"
  // (the server may answer 206 from there, 200 from the start, or 416).
  // Throws NetworkError.
  HttpResponse download(const std::string& url, std::uint64_t offset, const BodySink& sink);

 private:
  HttpResponse perform(const std::string& url, std::uint64_t offset, const BodySink* sink);

  HttpSettings settings_;
  void* curl_ = nullptr;
};

}  // namespace sieve::hub
