#include "tokenizer/core/component_registry.hpp"
#include "tokenizer/processors/bert_processing.hpp"
#include "tokenizer/processors/byte_level_processing.hpp"
#include "tokenizer/processors/roberta_processing.hpp"
#include "tokenizer/processors/sequence_processing.hpp"
#include "tokenizer/processors/template_processing.hpp"

namespace sieve::tokenizer {

void register_processors(FactoryTable<PostProcessor>& table) {
  table.add("TemplateProcessing", &TemplateProcessing::from_json);
  table.add("BertProcessing", &BertProcessing::from_json);
  table.add("RobertaProcessing", &RobertaProcessing::from_json);
  table.add("ByteLevel", &ByteLevelProcessing::from_json);
  table.add("Sequence", &SequenceProcessing::from_json);
}

}  // namespace sieve::tokenizer
