#include "hub/manifest.hpp"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

#include "sieve/error.hpp"

namespace sieve::hub {

namespace fs = std::filesystem;

namespace {

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

}  // namespace

void write_manifest(const fs::path& folder, const Manifest& manifest) {
  nlohmann::json doc = {
      {"repo", manifest.repo_id},      {"revision", manifest.revision},
      {"commit", manifest.commit},     {"variant", manifest.variant},
      {"endpoint", manifest.endpoint}, {"pulled_at", manifest.pulled_at.empty() ? utc_now() : manifest.pulled_at}};
  doc["files"] = nlohmann::json::array();
  for (const auto& f : manifest.files) {
    doc["files"].push_back({{"path", f.path}, {"source", f.source}, {"size", f.size}, {"sha256", f.sha256}});
  }
  const fs::path file = folder / kManifestName;
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << doc.dump(2) << '\n';
  out.close();
  if (!out) throw Error(ErrorCode::kRuntime, file.string() + ": cannot write: " + std::strerror(errno));
}

std::optional<Manifest> read_manifest(const fs::path& folder) {
  const fs::path file = folder / kManifestName;
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return std::nullopt;
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  const auto bad = [&] { return Error(ErrorCode::kParse, file.string() + ": not a sieve pull manifest"); };
  try {
    const auto doc = nlohmann::json::parse(text.str());
    Manifest m;
    m.repo_id = doc.at("repo").get<std::string>();
    m.revision = doc.at("revision").get<std::string>();
    m.commit = doc.at("commit").get<std::string>();
    m.variant = doc.at("variant").get<std::string>();
    m.endpoint = doc.value("endpoint", std::string());
    m.pulled_at = doc.value("pulled_at", std::string());
    for (const auto& f : doc.at("files")) {
      m.files.push_back({f.at("path").get<std::string>(), f.value("source", std::string()),
                         f.at("size").get<std::uint64_t>(), f.value("sha256", std::string())});
    }
    return m;
  } catch (const nlohmann::json::exception&) {
    throw bad();
  }
}

std::optional<std::string> check_sizes(const fs::path& folder, const Manifest& manifest) {
  for (const auto& f : manifest.files) {
    std::error_code ec;
    const auto size = fs::file_size(folder / f.path, ec);
    if (ec) return (folder / f.path).string() + " is missing";
    if (size != f.size) {
      return (folder / f.path).string() + " has " + std::to_string(size) + " bytes, not " + std::to_string(f.size);
    }
  }
  return std::nullopt;
}

}  // namespace sieve::hub
