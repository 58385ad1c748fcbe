#include "tokenizer/core/component_registry.hpp"
#include "tokenizer/pre_tokenizers/bert_pre_tokenizer.hpp"
#include "tokenizer/pre_tokenizers/byte_level.hpp"
#include "tokenizer/pre_tokenizers/char_delimiter_split.hpp"
#include "tokenizer/pre_tokenizers/digits.hpp"
#include "tokenizer/pre_tokenizers/fixed_length.hpp"
#include "tokenizer/pre_tokenizers/metaspace.hpp"
#include "tokenizer/pre_tokenizers/punctuation.hpp"
#include "tokenizer/pre_tokenizers/sequence.hpp"
#include "tokenizer/pre_tokenizers/split.hpp"
#include "tokenizer/pre_tokenizers/unicode_scripts.hpp"
#include "tokenizer/pre_tokenizers/whitespace.hpp"
#include "tokenizer/pre_tokenizers/whitespace_split.hpp"

namespace sieve::tokenizer {

void register_pre_tokenizers(FactoryTable<PreTokenizer>& table) {
  table.add("BertPreTokenizer", &BertPreTokenizer::from_json);
  table.add("ByteLevel", &ByteLevel::from_json);
  table.add("CharDelimiterSplit", &CharDelimiterSplit::from_json);
  table.add("Digits", &Digits::from_json);
  table.add("FixedLength", &FixedLength::from_json);
  table.add("Metaspace", &Metaspace::from_json);
  table.add("Punctuation", &Punctuation::from_json);
  table.add("Sequence", &PreTokenizerSequence::from_json);
  table.add("Split", &SplitPreTokenizer::from_json);
  table.add("UnicodeScripts", &UnicodeScripts::from_json);
  table.add("Whitespace", &Whitespace::from_json);
  table.add("WhitespaceSplit", &WhitespaceSplit::from_json);
}

}  // namespace sieve::tokenizer
