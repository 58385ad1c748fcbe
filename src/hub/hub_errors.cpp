#include "hub/hub_errors.hpp"

#include <nlohmann/json.hpp>

#include "sieve/text.hpp"

namespace sieve::hub {
namespace {

std::string header(const HttpResponse& r, const std::string& name) {
  const auto it = r.headers.find(name);
  return it == r.headers.end() ? std::string() : it->second;
}

// The hub answers errors with {"error": "..."} and repeats it in X-Error-Message.
std::string hub_message(const HttpResponse& r) {
  std::string message = header(r, "x-error-message");
  if (message.empty()) {
    const auto doc = nlohmann::json::parse(r.body, nullptr, false);
    if (doc.is_object() && doc.contains("error") && doc["error"].is_string()) message = doc["error"].get<std::string>();
  }
  if (message.size() > 300) message = message.substr(0, 300) + "...";
  // The hub's words are shown on a terminal: no escape sequence of theirs reaches it.
  return message.empty() ? std::string() : " (the hub says: " + escape_control(message) + ")";
}

}  // namespace

bool transient_status(long status) {
  return status == 408 || status == 429 || status == 500 || status == 502 || status == 503 || status == 504;
}

Error status_error(const HttpResponse& r, const RequestContext& c) {
  const std::string code = header(r, "x-error-code");
  const std::string said = hub_message(r);
  const std::string repo = c.repo_id + " on " + c.endpoint;
  const std::string status = "HTTP " + std::to_string(r.status);
  const std::string subject = c.file.empty() ? repo : c.file + " of " + repo;
  if (r.status == 401 && c.has_token) {
    return Error(ErrorCode::kInvalidArgument,
                 "the hub refused the token (HF_TOKEN) for " + subject + " (" + status +
                     "): the token is invalid, or cannot read this repository, or the repository does not exist" +
                     said);
  }
  if (code == "GatedRepo") {
    const std::string where = " at " + c.endpoint + "/" + c.repo_id;
    return Error(ErrorCode::kInvalidArgument,
                 c.repo_id + " is a gated repository (" + status + "): " +
                     (c.has_token ? "accept its conditions" + where + " with the account of HF_TOKEN"
                                  : "set HF_TOKEN to a token of an account that accepted its conditions" + where) +
                     said);
  }
  if (code == "RevisionNotFound") {
    return Error(ErrorCode::kNotFound,
                 "revision \"" + c.revision + "\" not found in " + repo + " (" + status + ")" + said);
  }
  if (code == "EntryNotFound") {
    return Error(ErrorCode::kNotFound, c.file + " not found in " + repo + " (" + status + ")" + said);
  }
  if (r.status == 401 || code == "RepoNotFound") {
    // The hub answers 401 for private repositories and for ones that do not exist alike.
    if (code == "RepoNotFound" && r.status == 404) {
      return Error(ErrorCode::kNotFound, "repository " + repo + " not found (" + status + ")" + said);
    }
    return Error(ErrorCode::kInvalidArgument,
                 subject + " needs authentication (" + status +
                     "): the repository is gated or private (or does not exist); set HF_TOKEN to a token "
                     "that can read it" +
                     said);
  }
  if (r.status == 403) {
    return Error(ErrorCode::kInvalidArgument, "access to " + subject + " is forbidden (" + status + ")" + said);
  }
  if (r.status == 404) {
    if (c.file.empty()) {
      return Error(ErrorCode::kNotFound,
                   "repository " + repo + " or its revision \"" + c.revision + "\" not found (" + status + ")" + said);
    }
    return Error(ErrorCode::kNotFound, subject + " not found (" + status + ")" + said);
  }
  return Error(ErrorCode::kRuntime, "unexpected " + status + " for " + subject + " from " + r.url + said);
}

}  // namespace sieve::hub
