#include "tokenizer/decoders/sequence_decoder.hpp"

#include "tokenizer/core/component_registry.hpp"

namespace sieve::tokenizer {

std::unique_ptr<Decoder> SequenceDecoder::from_json(const JsonView& node) {
  const JsonView list = node.at("decoders");
  list.expect_array();
  std::vector<std::unique_ptr<Decoder>> decoders;
  decoders.reserve(list.array_size());
  for (std::size_t i = 0; i < list.array_size(); ++i) {
    decoders.push_back(ComponentRegistry::builtin().decoders.create(list.at(i), "decoder"));
  }
  return std::make_unique<SequenceDecoder>(std::move(decoders));
}

void SequenceDecoder::decode_chain(std::vector<std::string>& tokens) const {
  for (const auto& decoder : decoders_) decoder->decode_chain(tokens);
}

}  // namespace sieve::tokenizer
