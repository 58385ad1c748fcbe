#include "tokenizer/decoders/fuse.hpp"

namespace sieve::tokenizer {

std::unique_ptr<Decoder> Fuse::from_json(const JsonView& /*node*/) {
  return std::make_unique<Fuse>();
}

void Fuse::decode_chain(std::vector<std::string>& tokens) const {
  std::size_t total = 0;
  for (const auto& token : tokens) total += token.size();
  std::string joined;
  joined.reserve(total);
  for (const auto& token : tokens) joined += token;
  tokens.clear();
  tokens.push_back(std::move(joined));
}

}  // namespace sieve::tokenizer
