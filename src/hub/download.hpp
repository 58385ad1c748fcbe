#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "hub/http_client.hpp"
#include "hub/hub_api.hpp"
#include "hub/hub_errors.hpp"
#include "sieve/hub.hpp"

namespace sieve::hub {

struct FetchedFile {
  std::uint64_t size = 0;
  std::uint64_t fetched = 0;  // bytes that came over the network in this run
  std::string sha256;
};

struct FetchRequest {
  std::string url;
  Sibling source;                // size and checksums to verify against
  std::filesystem::path target;  // the verified file's name; the download goes to target + ".part"
  std::string display;           // how progress and errors name the file
  std::filesystem::path dest;    // the models root, for disk-full errors
  RequestContext context;
  int retries = 3;
};

// Fetches one file into request.target: a verified target from an earlier
// run is kept; a ".part" left by one is resumed with a Range request; a cut
// or stalled transfer is resumed up to `retries` times. The complete file is
// checked against the hub's size and SHA-256 (LFS) or git blob SHA-1; a bad
// one is deleted so that the next run fetches it again. Throws sieve::Error.
FetchedFile fetch_file(HttpClient& client, const FetchRequest& request, ProgressSink& progress);

// Sleeps before retry `attempt` (1, 2, ...): 0.5 s, 1 s, 2 s, at most 8 s.
void retry_pause(int attempt);

}  // namespace sieve::hub
