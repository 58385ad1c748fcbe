#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sieve::hub {

// The one place the public hub is named: HF_ENDPOINT replaces it.
inline constexpr std::string_view kDefaultEndpoint = "https://huggingface.co";

// A file of the repository, as GET /api/models/{repo}/revision/{rev}?blobs=true lists it.
struct Sibling {
  std::string path;  // "rfilename", '/'-separated
  std::optional<std::uint64_t> size;
  std::optional<std::string> blob_id;     // git blob SHA-1
  std::optional<std::string> lfs_sha256;  // present for files stored in LFS
  std::optional<std::uint64_t> lfs_size;
};

struct RepoInfo {
  std::string id;
  std::string commit;  // "sha": what the revision resolved to
  std::vector<Sibling> siblings;
};

// Parses the metadata document; `source` names it in errors. Throws
// sieve::Error (kParse) on malformed JSON or a missing or mistyped field.
RepoInfo parse_repo_info(std::string_view json, std::string_view source);

// Throws sieve::Error (kInvalidArgument) unless `repo_id` is "name" or
// "org/name" with the characters the hub allows: it becomes a folder path.
void validate_repo_id(std::string_view repo_id);
// Throws unless `path` is a relative '/'-separated path without "." or ".."
// parts, control characters or bytes that are not UTF-8: a metadata
// document must not place files outside the folder, nor name one that would
// rewrite the terminal that shows it.
void validate_repo_path(std::string_view path);

// Percent-encoding as Python's urllib.parse.quote, with '/' kept or not.
std::string url_quote(std::string_view text, bool keep_slash);

std::string metadata_url(std::string_view endpoint, std::string_view repo_id, std::string_view revision);
std::string resolve_url(std::string_view endpoint, std::string_view repo_id, std::string_view commit,
                        std::string_view path);

}  // namespace sieve::hub
