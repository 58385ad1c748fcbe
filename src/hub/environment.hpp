#pragma once

#include <filesystem>
#include <string>

#include "sieve/hub.hpp"

namespace sieve::hub {

// PullOptions with every default filled in from the environment.
struct PullSettings {
  std::string repo_id;
  std::string revision;         // as asked ("main" by default)
  bool revision_given = false;  // the caller named one
  std::string variant;
  std::filesystem::path dest;    // absolute
  std::string name;              // folder under dest
  std::filesystem::path folder;  // dest / name
  bool offline = false;
  std::string endpoint;  // without a trailing '/'
  std::string token;     // empty: none
  double stall_timeout_s = 30;
  double connect_timeout_s = 30;
  int retries = 3;
  bool allow_unverified = false;
};

// Validates the options too (repository id, folder name, timeouts); throws
// sieve::Error (kInvalidArgument) naming what is wrong.
PullSettings resolve_settings(const PullOptions& options);

}  // namespace sieve::hub
