#include "tokenizer/core/component_registry.hpp"
#include "tokenizer/normalizers/bert_normalizer.hpp"

namespace sieve::tokenizer {

void register_normalizers(FactoryTable<Normalizer>& table) {
  table.add("BertNormalizer", &BertNormalizer::from_json);
}

}  // namespace sieve::tokenizer
