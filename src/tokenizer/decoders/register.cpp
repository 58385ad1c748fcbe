#include "tokenizer/core/component_registry.hpp"
#include "tokenizer/decoders/bpe_decoder.hpp"
#include "tokenizer/decoders/byte_fallback.hpp"
#include "tokenizer/decoders/byte_level_decoder.hpp"
#include "tokenizer/decoders/ctc.hpp"
#include "tokenizer/decoders/fuse.hpp"
#include "tokenizer/decoders/metaspace_decoder.hpp"
#include "tokenizer/decoders/replace_decoder.hpp"
#include "tokenizer/decoders/sequence_decoder.hpp"
#include "tokenizer/decoders/strip.hpp"
#include "tokenizer/decoders/wordpiece_decoder.hpp"

namespace sieve::tokenizer {

void register_decoders(FactoryTable<Decoder>& table) {
  table.add("WordPiece", &WordPieceDecoder::from_json);
  table.add("ByteLevel", &ByteLevelDecoder::from_json);
  table.add("Metaspace", &MetaspaceDecoder::from_json);
  table.add("BPEDecoder", &BpeDecoder::from_json);
  table.add("ByteFallback", &ByteFallback::from_json);
  table.add("Fuse", &Fuse::from_json);
  table.add("Strip", &Strip::from_json);
  table.add("Replace", &ReplaceDecoder::from_json);
  table.add("CTC", &Ctc::from_json);
  table.add("Sequence", &SequenceDecoder::from_json);
}

}  // namespace sieve::tokenizer
