#include "tokenizer/core/component_registry.hpp"
#include "tokenizer/models/bpe/bpe.hpp"
#include "tokenizer/models/unigram/unigram.hpp"
#include "tokenizer/models/wordlevel/wordlevel.hpp"
#include "tokenizer/models/wordpiece/wordpiece.hpp"

namespace sieve::tokenizer {

void register_models(FactoryTable<Model>& table) {
  table.add("BPE", &Bpe::from_json);
  table.add("Unigram", &Unigram::from_json);
  table.add("WordLevel", &WordLevel::from_json);
  table.add("WordPiece", &WordPiece::from_json);
}

}  // namespace sieve::tokenizer
