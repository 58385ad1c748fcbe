#include "model/token_ids.hpp"

#include <string>

#include "sieve/error.hpp"

namespace sieve::model {

void check_token_ids(const ModelFolder& folder, const OnnxSummary& onnx, const Tokenizer& tokenizer) {
  std::uint64_t embedded = 0;
  std::string source;
  if (onnx.id_vocabulary) {
    embedded = *onnx.id_vocabulary;
    source = folder.onnx_file.string() + " embeds " + std::to_string(embedded) + " token ids (" + onnx.id_table + ")";
  } else if (folder.vocab_size) {
    embedded = *folder.vocab_size;
    source = (folder.root / "config.json").string() + " gives the model " + std::to_string(embedded) +
             " token ids (vocab_size)";
  } else {
    return;
  }
  const std::size_t bound = tokenizer.id_bound();
  if (bound <= embedded) return;
  throw Error(ErrorCode::kUnsupported,
              folder.tokenizer_file.string() + " gives token ids up to " + std::to_string(bound - 1) +
                  " (its vocabulary, added and special tokens: " + std::to_string(bound) + " ids), but " + source +
                  "; an input holding a token past them would fail at inference. Use the tokenizer the model was "
                  "trained with, or export the model again after resizing its embeddings");
}

}  // namespace sieve::model
