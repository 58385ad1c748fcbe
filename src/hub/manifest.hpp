#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "model/model_folder.hpp"

namespace sieve::hub {

// .sieve-pull.json in a pulled model folder: where it came from and what it
// holds, so that a later pull can tell the folder is current, offline mode
// can check it, and a folder the user made is never replaced.
inline constexpr const char* kManifestName = model::kPullManifestName;

struct ManifestFile {
  std::string path;    // in the model folder
  std::string source;  // in the repository
  std::uint64_t size = 0;
  std::string sha256;
};

struct Manifest {
  std::string repo_id;
  std::string revision;
  std::string commit;
  std::string variant;
  std::string endpoint;   // never with credentials: the token is not part of it
  std::string pulled_at;  // UTC, ISO 8601
  std::vector<ManifestFile> files;
};

void write_manifest(const std::filesystem::path& folder, const Manifest& manifest);
// nullopt when the folder has no manifest. Throws sieve::Error (kParse) when
// it has one that cannot be read.
std::optional<Manifest> read_manifest(const std::filesystem::path& folder);

// The first file of the manifest that is missing or of another size, as a
// sentence; nullopt when all are there.
std::optional<std::string> check_sizes(const std::filesystem::path& folder, const Manifest& manifest);

}  // namespace sieve::hub
