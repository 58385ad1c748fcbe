#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sieve/reranker.hpp"

namespace sieve::model {

// What config.json says about a sequence-classification head (a cross-encoder's or a classifier's).
struct HeadConfig {
  std::vector<std::string> architectures;      // empty: not said
  std::optional<std::size_t> num_labels;       // num_labels, else the size of id2label
  std::optional<ScoreActivation> activation;   // sentence-transformers' activation_fn
  std::optional<std::size_t> type_vocab_size;  // token types the model embeds
  std::map<std::size_t, std::string> id2label;
  std::string problem_type;  // transformers' config.problem_type; empty: not said
};

// config.json's head; an empty HeadConfig where the file is missing. A field of the wrong type, or an activation
// Sieve cannot mirror, is an Error naming it.
HeadConfig read_head_config(const std::filesystem::path& config_file);

}  // namespace sieve::model
