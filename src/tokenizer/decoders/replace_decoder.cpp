#include "tokenizer/decoders/replace_decoder.hpp"

#include <utility>

#include "tokenizer/core/pattern_json.hpp"

namespace sieve::tokenizer {

std::unique_ptr<Decoder> ReplaceDecoder::from_json(const JsonView& node) {
  Regex pattern = pattern_from_json(node.at("pattern"));
  return std::make_unique<ReplaceDecoder>(std::move(pattern), node.at("content").as_string());
}

void ReplaceDecoder::decode_chain(std::vector<std::string>& tokens) const {
  std::vector<std::pair<std::size_t, std::size_t>> matches;
  for (std::string& token : tokens) {
    matches.clear();
    pattern_.find_all(token, matches);
    if (matches.empty()) continue;
    std::string out;
    out.reserve(token.size());
    std::size_t pos = 0;
    for (const auto& [begin, end] : matches) {
      out.append(token, pos, begin - pos);
      out.append(content_);
      pos = end;
    }
    out.append(token, pos, std::string::npos);
    token = std::move(out);
  }
}

}  // namespace sieve::tokenizer
