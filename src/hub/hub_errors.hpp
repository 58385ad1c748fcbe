#pragma once

#include <string>

#include "hub/http_client.hpp"
#include "sieve/error.hpp"

namespace sieve::hub {

// What a request was for, to name it in an error.
struct RequestContext {
  std::string repo_id;
  std::string revision;
  std::string endpoint;
  std::string file;  // empty: the metadata request
  bool has_token = false;
};

// Statuses worth retrying: the server is busy or briefly broken.
bool transient_status(long status);

// The error for a non-2xx answer, from the status and the hub's X-Error-Code
// header (RepoNotFound, RevisionNotFound, EntryNotFound, GatedRepo), with the
// hub's own message when it sent one.
Error status_error(const HttpResponse& response, const RequestContext& context);

}  // namespace sieve::hub
