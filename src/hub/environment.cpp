#include "hub/environment.hpp"

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "hub/hub_api.hpp"
#include "sieve/error.hpp"
#include "sieve/text.hpp"

namespace sieve {

namespace fs = std::filesystem;

namespace {

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

fs::path home() {
  if (const std::string h = env("HOME"); !h.empty()) return h;
  if (const passwd* pw = getpwuid(getuid()); pw != nullptr && pw->pw_dir != nullptr) return pw->pw_dir;
  throw Error(ErrorCode::kInvalidArgument, "HOME is not set: give --dest or set SIEVE_MODELS");
}

std::string trim(std::string s) {
  const auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  s.erase(s.begin(), std::find_if_not(s.begin(), s.end(), space));
  s.erase(std::find_if_not(s.rbegin(), s.rend(), space).base(), s.end());
  return s;
}

bool truthy(std::string value) {
  std::transform(value.begin(), value.end(), value.begin(),
                 [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); });
  return value == "1" || value == "on" || value == "yes" || value == "true";
}

// huggingface_hub's order: HF_TOKEN, then the file `hf auth login` writes
// (HF_TOKEN_PATH, else $HF_HOME/token, else ~/.cache/huggingface/token).
std::string token_from_environment() {
  if (std::string t = trim(env("HF_TOKEN")); !t.empty()) return t;
  fs::path file;
  if (const std::string p = env("HF_TOKEN_PATH"); !p.empty()) {
    file = p;
  } else if (const std::string h = env("HF_HOME"); !h.empty()) {
    file = fs::path(h) / "token";
  } else {
    std::error_code ec;
    const char* home_env = std::getenv("HOME");
    if (home_env == nullptr) return {};
    file = fs::path(home_env) / ".cache/huggingface/token";
    if (!fs::exists(file, ec)) return {};
  }
  std::ifstream in(file);
  if (!in) return {};
  std::stringstream text;
  text << in.rdbuf();
  return trim(text.str());
}

}  // namespace

fs::path default_models_root() {
  if (const std::string m = env("SIEVE_MODELS"); !m.empty()) return m;
  return home() / ".cache/sieve/models";
}

std::string default_folder_name(std::string_view repo_id, std::string_view variant) {
  // The repository's own name, without its owner: the name the docs and the server use.
  std::string name(repo_id.substr(repo_id.rfind('/') == std::string_view::npos ? 0 : repo_id.rfind('/') + 1));
  if (!variant.empty() && variant != "fp32") {
    name += '-';
    name += variant;
  }
  return name;
}

namespace hub {

PullSettings resolve_settings(const PullOptions& options) {
  PullSettings s;
  s.repo_id = options.repo_id;
  validate_repo_id(s.repo_id);
  s.revision_given = !options.revision.empty();
  s.revision = s.revision_given ? options.revision : "main";
  s.variant = options.variant.empty() ? "fp32" : options.variant;
  s.dest = fs::absolute(options.dest.empty() ? default_models_root() : options.dest).lexically_normal();
  if (!s.dest.has_filename() && s.dest != s.dest.root_path()) s.dest = s.dest.parent_path();  // no trailing '/'
  s.name = options.name.empty() ? default_folder_name(s.repo_id, s.variant) : options.name;
  // The registry names a model by its folder under the root and skips dot-folders.
  try {
    validate_repo_path(s.name);
  } catch (const Error&) {
    throw Error(ErrorCode::kInvalidArgument,
                "--name \"" + escape_control(s.name) +
                    "\": expected a relative path without \".\" or \"..\" parts or control characters");
  }
  if (s.name.front() == '.' || s.name.find("/.") != std::string::npos) {
    throw Error(ErrorCode::kInvalidArgument,
                "--name \"" + s.name + "\": a part starting with '.' would be hidden from the registry");
  }
  s.folder = s.dest / s.name;
  s.offline = options.offline || truthy(env("HF_HUB_OFFLINE"));
  s.endpoint = options.endpoint.empty() ? env("HF_ENDPOINT") : options.endpoint;
  if (s.endpoint.empty()) s.endpoint = std::string(hub::kDefaultEndpoint);
  while (s.endpoint.ends_with('/')) s.endpoint.pop_back();
  s.token = options.token ? *options.token : token_from_environment();
  s.stall_timeout_s = options.stall_timeout_s;
  if (s.stall_timeout_s <= 0) {
    s.stall_timeout_s = 30;
    if (const std::string t = env("SIEVE_PULL_TIMEOUT"); !t.empty()) {
      char* end = nullptr;
      s.stall_timeout_s = std::strtod(t.c_str(), &end);
      if (end == t.c_str() || *end != '\0' || !(s.stall_timeout_s > 0)) {
        throw Error(ErrorCode::kInvalidArgument,
                    "SIEVE_PULL_TIMEOUT=\"" + t + "\": expected a positive number of seconds");
      }
    }
  }
  s.connect_timeout_s = options.connect_timeout_s > 0 ? options.connect_timeout_s : 30;
  s.retries = std::max(0, options.retries);
  s.allow_unverified = options.allow_unverified;
  return s;
}

}  // namespace hub
}  // namespace sieve
