#include "tokenizer/core/component_registry.hpp"

#include "tokenizer/models/wordpiece/wordpiece.hpp"
#include "tokenizer/normalizers/bert_normalizer.hpp"
#include "tokenizer/pre_tokenizers/bert_pre_tokenizer.hpp"
#include "tokenizer/processors/bert_processing.hpp"
#include "tokenizer/processors/roberta_processing.hpp"
#include "tokenizer/processors/template_processing.hpp"

namespace sieve::tokenizer {

const ComponentRegistry& ComponentRegistry::builtin() {
  static const ComponentRegistry registry = [] {
    ComponentRegistry r;
    r.normalizers.add("BertNormalizer", &BertNormalizer::from_json);
    r.pre_tokenizers.add("BertPreTokenizer", &BertPreTokenizer::from_json);
    r.models.add("WordPiece", &WordPiece::from_json);
    r.processors.add("TemplateProcessing", &TemplateProcessing::from_json);
    r.processors.add("BertProcessing", &BertProcessing::from_json);
    r.processors.add("RobertaProcessing", &RobertaProcessing::from_json);
    return r;
  }();
  return registry;
}

}  // namespace sieve::tokenizer
