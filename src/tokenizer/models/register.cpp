#include "tokenizer/core/component_registry.hpp"
#include "tokenizer/models/wordpiece/wordpiece.hpp"

namespace sieve::tokenizer {

void register_models(FactoryTable<Model>& table) {
  table.add("WordPiece", &WordPiece::from_json);
}

}  // namespace sieve::tokenizer
