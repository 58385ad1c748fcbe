#include "search/storage.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace sieve::search {

void keep_best(std::vector<ScoredChunk>& scored, std::size_t n) {
  const auto better = [](const ScoredChunk& a, const ScoredChunk& b) {
    return a.score != b.score ? a.score > b.score : a.id < b.id;
  };
  if (scored.size() > n) {
    std::partial_sort(scored.begin(), scored.begin() + static_cast<std::ptrdiff_t>(n), scored.end(), better);
    scored.resize(n);
  } else {
    std::sort(scored.begin(), scored.end(), better);
  }
}

Metadata parse_metadata(std::string_view json_text) {
  Metadata metadata;
  const auto parsed = nlohmann::json::parse(json_text, nullptr, false);
  if (!parsed.is_object()) return metadata;
  for (const auto& [key, value] : parsed.items()) {
    metadata.emplace_back(key, value.is_string() ? value.get<std::string>() : value.dump());
  }
  return metadata;
}

}  // namespace sieve::search
