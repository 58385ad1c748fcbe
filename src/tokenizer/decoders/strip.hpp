#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "tokenizer/core/components.hpp"
#include "tokenizer/core/json_view.hpp"

namespace sieve::tokenizer {

// Removes up to `start` leading and `stop` trailing occurrences of one
// character from every token.
class Strip final : public Decoder {
 public:
  Strip(char32_t content, std::size_t start, std::size_t stop) : content_(content), start_(start), stop_(stop) {}
  static std::unique_ptr<Decoder> from_json(const JsonView& node);

  void decode_chain(std::vector<std::string>& tokens) const override;

 private:
  char32_t content_;
  std::size_t start_;
  std::size_t stop_;
};

}  // namespace sieve::tokenizer
