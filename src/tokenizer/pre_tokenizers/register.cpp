#include "tokenizer/core/component_registry.hpp"
#include "tokenizer/pre_tokenizers/bert_pre_tokenizer.hpp"

namespace sieve::tokenizer {

void register_pre_tokenizers(FactoryTable<PreTokenizer>& table) {
  table.add("BertPreTokenizer", &BertPreTokenizer::from_json);
}

}  // namespace sieve::tokenizer
