#pragma once

#include "model/model_folder.hpp"
#include "model/onnx_summary.hpp"
#include "sieve/tokenizer.hpp"

namespace sieve::model {

// Refuses a tokenizer that can give a token id the model does not embed: the
// first input holding it would fail inside ONNX Runtime (an index out of
// range), long after loading seemed to succeed. The model's ids are the rows
// of its embedding matrix (OnnxSummary::id_vocabulary), else config.json's
// vocab_size; where neither tells, nothing is checked. A tokenizer with fewer
// ids than the matrix is fine. Throws Error (kUnsupported) naming both
// numbers and both files.
void check_token_ids(const ModelFolder& folder, const OnnxSummary& onnx, const Tokenizer& tokenizer);

}  // namespace sieve::model
