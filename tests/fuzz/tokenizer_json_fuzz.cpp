// Fuzzes Tokenizer::from_json with arbitrary tokenizer.json documents.
//
// Input: a tokenizer.json document, optionally followed by a NUL byte and
// then bytes that choose the encode settings (from the end) and the text or
// pair of texts (from the front). Without the NUL the whole input is the
// document and fixed sample texts are encoded with the file's own settings.
//
// Accepted outcomes: the document loads, or from_json throws sieve::Error
// whose message names the file (and with it the JSON path of the problem).
// A loaded tokenizer must then encode, encode pairs and decode with only
// sieve::Error as a possible failure, and keep fuzz_common.hpp's invariants.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "fuzz_common.hpp"

namespace {

constexpr std::string_view kOrigin = "fuzz.json";

// Words that real vocabularies and added tokens contain, in several scripts,
// with the whitespace and punctuation pre-tokenizers split on.
constexpr std::string_view kSampleFirst =
    "Hello, world! It's [CLS] <s> d\xC3\xA9j\xC3\xA0 vu\t\xE4\xBD\xA0\xE5\xA5\xBD  unaffable";
constexpr std::string_view kSampleSecond = " the QUICK brown-fox\xE2\x80\x94jumps\n\xF0\x9F\x98\x80 <mask> ##ing";

std::optional<sieve::Tokenizer> load(std::string_view json) {
  std::optional<sieve::Tokenizer> tokenizer;
  try {
    tokenizer.emplace(sieve::Tokenizer::from_json(json, kOrigin));
  } catch (const sieve::Error& e) {
    const std::string_view message = e.what();
    // For checking what a seed reaches: SIEVE_FUZZ_VERBOSE=1 tokenizer_json_fuzz seed.json
    if (sieve::fuzz::verbose()) std::fprintf(stderr, "from_json: %s\n", e.what());
    sieve::fuzz::check(message.size() > kOrigin.size() + 2 && message.starts_with(kOrigin) &&
                           message.substr(kOrigin.size(), 2) == ": ",
                       "from_json error does not name the file and JSON path:", std::string(message));
  }
  return tokenizer;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t separator = input.find('\0');
  auto tokenizer = load(input.substr(0, separator));
  if (!tokenizer) return 0;

  using sieve::fuzz::Settings;
  if (separator == std::string_view::npos) {
    Settings file_settings;
    file_settings.truncation = tokenizer->truncation();
    file_settings.padding = tokenizer->padding();
    file_settings.special_ids_in_vocab = false;
    sieve::fuzz::exercise(*tokenizer, file_settings, kSampleFirst, kSampleSecond);
    file_settings.pair = true;
    sieve::fuzz::exercise(*tokenizer, file_settings, kSampleFirst, kSampleSecond);
    return 0;
  }

  const std::string_view rest = input.substr(separator + 1);
  FuzzedDataProvider in(reinterpret_cast<const std::uint8_t*>(rest.data()), rest.size());
  Settings settings = sieve::fuzz::pick_settings(in, tokenizer->truncation(), tokenizer->padding());
  settings.special_ids_in_vocab = false;
  // Ids picked by the fuzzer, inside the vocabulary or not, must decode or
  // be refused with sieve::Error.
  std::uint32_t raw_ids[4];
  const std::size_t n_raw = in.ConsumeIntegralInRange<std::size_t>(0, 4);
  for (std::size_t i = 0; i < n_raw; ++i) raw_ids[i] = in.ConsumeIntegral<std::uint32_t>();
  sieve::fuzz::decode_all(*tokenizer, std::span(raw_ids, n_raw), settings.skip_special_tokens);

  const std::string first = in.ConsumeRandomLengthString();
  const std::string second = in.ConsumeRemainingBytesAsString();
  sieve::fuzz::exercise(*tokenizer, settings, first, second);
  return 0;
}
