#include "hub/hub_api.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>

#include "sieve/error.hpp"
#include "sieve/text.hpp"

namespace sieve::hub {
namespace {

std::string field_error(std::string_view source, const std::string& pointer, const char* expected) {
  return std::string(source) + ": " + pointer + ": expected " + expected;
}

std::optional<std::uint64_t> optional_size(const nlohmann::json& doc, const char* key, std::string_view source,
                                           const std::string& pointer) {
  const auto it = doc.find(key);
  if (it == doc.end() || it->is_null()) return std::nullopt;
  if (!it->is_number_unsigned()) {
    throw Error(ErrorCode::kParse, field_error(source, pointer + "/" + key, "a non-negative integer"));
  }
  return it->get<std::uint64_t>();
}

std::optional<std::string> optional_hex(const nlohmann::json& doc, const char* key, std::size_t length,
                                        std::string_view source, const std::string& pointer) {
  const auto it = doc.find(key);
  if (it == doc.end() || it->is_null()) return std::nullopt;
  const auto is_hex = [](const std::string& s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
  };
  if (!it->is_string() || it->get<std::string>().size() != length || !is_hex(it->get<std::string>())) {
    const std::string what = std::to_string(length) + " hexadecimal digits";
    throw Error(ErrorCode::kParse, field_error(source, pointer + "/" + key, what.c_str()));
  }
  std::string value = it->get<std::string>();
  std::transform(value.begin(), value.end(), value.begin(),
                 [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); });
  return value;
}

bool name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_' || c == '.';
}

}  // namespace

RepoInfo parse_repo_info(std::string_view json, std::string_view source) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(json);
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(ErrorCode::kParse, std::string(source) + ": invalid JSON at byte " + std::to_string(e.byte));
  }
  if (!doc.is_object()) throw Error(ErrorCode::kParse, std::string(source) + ": expected a JSON object");
  RepoInfo info;
  if (const auto it = doc.find("id"); it != doc.end() && it->is_string()) info.id = it->get<std::string>();
  const auto sha = doc.find("sha");
  if (sha == doc.end() || !sha->is_string() || sha->get<std::string>().empty()) {
    throw Error(ErrorCode::kParse, field_error(source, "/sha", "the commit id (a string)"));
  }
  info.commit = sha->get<std::string>();
  // The commit goes into URLs and folder names: a hexadecimal id, nothing else.
  if (!std::all_of(info.commit.begin(), info.commit.end(),
                   [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; })) {
    throw Error(ErrorCode::kParse, field_error(source, "/sha", "a hexadecimal commit id"));
  }
  const auto siblings = doc.find("siblings");
  if (siblings == doc.end() || !siblings->is_array()) {
    throw Error(ErrorCode::kParse, field_error(source, "/siblings", "an array"));
  }
  for (std::size_t i = 0; i < siblings->size(); ++i) {
    const auto& s = (*siblings)[i];
    const std::string pointer = "/siblings/" + std::to_string(i);
    if (!s.is_object()) throw Error(ErrorCode::kParse, field_error(source, pointer, "an object"));
    const auto name = s.find("rfilename");
    if (name == s.end() || !name->is_string()) {
      throw Error(ErrorCode::kParse, field_error(source, pointer + "/rfilename", "a string"));
    }
    Sibling sibling;
    sibling.path = name->get<std::string>();
    sibling.size = optional_size(s, "size", source, pointer);
    sibling.blob_id = optional_hex(s, "blobId", 40, source, pointer);
    if (const auto lfs = s.find("lfs"); lfs != s.end() && !lfs->is_null()) {
      if (!lfs->is_object()) throw Error(ErrorCode::kParse, field_error(source, pointer + "/lfs", "an object"));
      sibling.lfs_sha256 = optional_hex(*lfs, "sha256", 64, source, pointer + "/lfs");
      sibling.lfs_size = optional_size(*lfs, "size", source, pointer + "/lfs");
      if (!sibling.lfs_sha256) {
        throw Error(ErrorCode::kParse, field_error(source, pointer + "/lfs/sha256", "64 hexadecimal digits"));
      }
    }
    info.siblings.push_back(std::move(sibling));
  }
  return info;
}

void validate_repo_id(std::string_view repo_id) {
  const auto bad = [&](const std::string& why) {
    return Error(ErrorCode::kInvalidArgument,
                 "\"" + std::string(repo_id) + "\" is not a hub repository id (org/name): " + why);
  };
  if (repo_id.empty()) throw bad("it is empty");
  if (repo_id.size() > 96) throw bad("longer than 96 characters");
  const auto slash = repo_id.find('/');
  if (slash != std::string_view::npos && repo_id.find('/', slash + 1) != std::string_view::npos) {
    throw bad("more than one '/'");
  }
  for (const auto part : {repo_id.substr(0, slash),
                          slash == std::string_view::npos ? std::string_view("x") : repo_id.substr(slash + 1)}) {
    if (part.empty()) throw bad("an empty part");
    if (!std::all_of(part.begin(), part.end(), name_char))
      throw bad("only letters, digits, '-', '_' and '.' are allowed");
    if (part.front() == '-' || part.front() == '.' || part.back() == '-' || part.back() == '.') {
      throw bad("a part starts or ends with '-' or '.'");
    }
  }
  if (repo_id.find("--") != std::string_view::npos || repo_id.find("..") != std::string_view::npos) {
    throw bad("\"--\" and \"..\" are not allowed");
  }
}

void validate_repo_path(std::string_view path) {
  const auto bad = [&] {
    return Error(ErrorCode::kParse, "the hub listed an unsafe file name \"" + escape_control(path) + "\"");
  };
  // Control characters (escape sequences, carriage returns) and bytes that
  // are not UTF-8 have no place in a file name of a model folder.
  if (path.empty() || path.front() == '/' || path.find('\\') != std::string_view::npos ||
      escape_control(path) != path) {
    throw bad();
  }
  std::size_t begin = 0;
  while (begin <= path.size()) {
    const auto end = std::min(path.find('/', begin), path.size());
    const auto part = path.substr(begin, end - begin);
    if (part.empty() || part == "." || part == "..") throw bad();
    begin = end + 1;
  }
}

std::string url_quote(std::string_view text, bool keep_slash) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) != 0 || c == '-' || c == '_' || c == '.' || c == '~' || (keep_slash && c == '/')) {
      out += ch;
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    }
  }
  return out;
}

std::string metadata_url(std::string_view endpoint, std::string_view repo_id, std::string_view revision) {
  return std::string(endpoint) + "/api/models/" + std::string(repo_id) + "/revision/" + url_quote(revision, false) +
         "?blobs=true";
}

std::string resolve_url(std::string_view endpoint, std::string_view repo_id, std::string_view commit,
                        std::string_view path) {
  return std::string(endpoint) + "/" + std::string(repo_id) + "/resolve/" + url_quote(commit, false) + "/" +
         url_quote(path, true);
}

}  // namespace sieve::hub
