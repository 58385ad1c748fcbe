#include "tokenizer/core/component_registry.hpp"
#include "tokenizer/normalizers/bert_normalizer.hpp"
#include "tokenizer/normalizers/byte_level_normalizer.hpp"
#include "tokenizer/normalizers/lowercase.hpp"
#include "tokenizer/normalizers/nmt.hpp"
#include "tokenizer/normalizers/normalizer_sequence.hpp"
#include "tokenizer/normalizers/precompiled.hpp"
#include "tokenizer/normalizers/prepend.hpp"
#include "tokenizer/normalizers/replace_normalizer.hpp"
#include "tokenizer/normalizers/strip_accents.hpp"
#include "tokenizer/normalizers/strip_normalizer.hpp"
#include "tokenizer/normalizers/unicode_normalizer.hpp"

namespace sieve::tokenizer {

void register_normalizers(FactoryTable<Normalizer>& table) {
  table.add("BertNormalizer", &BertNormalizer::from_json);
  table.add("NFD", &UnicodeNormalizer::nfd_from_json);
  table.add("NFKD", &UnicodeNormalizer::nfkd_from_json);
  table.add("NFC", &UnicodeNormalizer::nfc_from_json);
  table.add("NFKC", &UnicodeNormalizer::nfkc_from_json);
  table.add("Lowercase", &Lowercase::from_json);
  table.add("StripAccents", &StripAccents::from_json);
  table.add("Strip", &StripNormalizer::from_json);
  table.add("Replace", &ReplaceNormalizer::from_json);
  table.add("Prepend", &Prepend::from_json);
  table.add("Nmt", &Nmt::from_json);
  table.add("ByteLevel", &ByteLevelNormalizer::from_json);
  table.add("Precompiled", &Precompiled::from_json);
  table.add("Sequence", &NormalizerSequence::from_json);
}

}  // namespace sieve::tokenizer
