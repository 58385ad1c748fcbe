#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sieve {

// Offsets [begin, end) into the original input text: bytes by default,
// or characters (Unicode code points, as Python counts) when the tokenizer
// is set to OffsetUnit::kChar. For a pair, each token's offsets are into
// its own sequence; special tokens have (0, 0).
using Offsets = std::pair<std::uint32_t, std::uint32_t>;
enum class OffsetUnit { kByte, kChar };

// What one input (or pair of inputs) becomes; the vectors are parallel.
struct Encoding {
  std::vector<std::uint32_t> ids;
  std::vector<std::uint32_t> type_ids;
  std::vector<Offsets> offsets;
  std::vector<std::uint8_t> special_tokens_mask;
  std::vector<std::uint8_t> attention_mask;
  // After truncation: the windows that did not fit (overlapping by the
  // stride), in Hugging Face's order, each processed and padded like the
  // main encoding.
  std::vector<Encoding> overflowing;

  [[nodiscard]] std::size_t size() const noexcept { return ids.size(); }
};

struct TextPair {
  std::string_view first;
  std::string_view second;
};

enum class TruncationStrategy { kLongestFirst, kOnlyFirst, kOnlySecond };
enum class Direction { kLeft, kRight };

struct TruncationParams {
  std::size_t max_length = 512;
  TruncationStrategy strategy = TruncationStrategy::kLongestFirst;
  std::size_t stride = 0;
  Direction direction = Direction::kRight;
};

struct PaddingParams {
  std::optional<std::size_t> fixed_length;  // empty: pad to the longest of a batch
  Direction direction = Direction::kRight;
  std::size_t pad_to_multiple_of = 0;
  std::uint32_t pad_id = 0;
  std::uint32_t pad_type_id = 0;
  std::string pad_token = "[PAD]";
};

// How text that is not valid UTF-8 is treated. Hugging Face cannot receive
// such text at all (Python strings are Unicode), so there is no reference
// behaviour to copy: by default it is an error naming the byte offset.
enum class InvalidUtf8 { kError, kReplace };

class TokenizerImpl;

// A tokenizer built from a Hugging Face `tokenizer.json`. Encoding is
// const and thread-safe; configuration changes are not.
class Tokenizer {
 public:
  static Tokenizer from_file(const std::filesystem::path& path);
  static Tokenizer from_json(std::string_view json, std::string_view origin = "tokenizer.json");

  Tokenizer(Tokenizer&&) noexcept;
  Tokenizer& operator=(Tokenizer&&) noexcept;
  ~Tokenizer();

  [[nodiscard]] Encoding encode(std::string_view text, bool add_special_tokens = true) const;
  [[nodiscard]] Encoding encode_pair(std::string_view first, std::string_view second,
                                     bool add_special_tokens = true) const;
  // Encodes many texts on up to `threads` threads (0: one per core), in
  // input order; padding with a batch-longest strategy pads to the longest
  // of this batch. An error names the index of the input that caused it.
  [[nodiscard]] std::vector<Encoding> encode_batch(std::span<const std::string_view> texts,
                                                   bool add_special_tokens = true, std::size_t threads = 1) const;
  // As encode_batch, but each text is padded alone, as encode() pads it.
  [[nodiscard]] std::vector<Encoding> encode_each(std::span<const std::string_view> texts,
                                                  bool add_special_tokens = true, std::size_t threads = 1) const;
  [[nodiscard]] std::vector<Encoding> encode_pair_batch(std::span<const TextPair> pairs, bool add_special_tokens = true,
                                                        std::size_t threads = 1) const;
  [[nodiscard]] std::vector<Encoding> encode_pair_each(std::span<const TextPair> pairs, bool add_special_tokens = true,
                                                       std::size_t threads = 1) const;

  // Text of token ids, through the file's decoder (for display: Hugging
  // Face's Tokenizer.decode).
  [[nodiscard]] std::string decode(std::span<const std::uint32_t> ids, bool skip_special_tokens = true) const;

  [[nodiscard]] std::optional<std::uint32_t> token_to_id(std::string_view token) const;
  [[nodiscard]] std::string_view id_to_token(std::uint32_t id) const;
  [[nodiscard]] std::size_t vocab_size() const;
  // One past the largest id an encoding can hold: of the model's vocabulary,
  // the added tokens and the special tokens the post-processor adds. A model
  // must embed at least this many ids (its vocab_size may be smaller where
  // ids are sparse or added tokens lie beyond the vocabulary).
  [[nodiscard]] std::size_t id_bound() const;
  // The token string Hugging Face reports for position `i` of an encoding of
  // `text` (or of the pair `text`, `pair_text`): the vocabulary entry, except
  // for added tokens matched in the text, which are reported as matched
  // (with any whitespace lstrip/rstrip took).
  [[nodiscard]] std::string token_string(const Encoding& encoding, std::size_t i, std::string_view text,
                                         std::string_view pair_text = {}) const;

  [[nodiscard]] const std::optional<TruncationParams>& truncation() const;
  [[nodiscard]] const std::optional<PaddingParams>& padding() const;
  void set_truncation(std::optional<TruncationParams> params);
  void set_padding(std::optional<PaddingParams> params);
  void set_invalid_utf8(InvalidUtf8 policy);
  void set_offset_unit(OffsetUnit unit);
  // Tokens the post-processor adds around one input (or a pair).
  [[nodiscard]] std::size_t num_special_tokens_to_add(bool is_pair) const;

 private:
  explicit Tokenizer(std::unique_ptr<TokenizerImpl> impl);
  std::unique_ptr<TokenizerImpl> impl_;
};

}  // namespace sieve
