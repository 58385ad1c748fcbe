#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "sieve/error.hpp"
#include "tokenizer/core/component_registry.hpp"

// Expected strings come from Hugging Face tokenizers 0.23.3:
// `decoders.X(...).decode(tokens)` (decode_chain, then joined).
namespace sieve::tokenizer {
namespace {

std::unique_ptr<Decoder> make(const std::string& json) {
  const auto parsed = nlohmann::json::parse(json);
  return ComponentRegistry::builtin().decoders.create(JsonView(parsed, "test"), "decoder");
}

std::string decode(const Decoder& decoder, std::vector<std::string> tokens) {
  decoder.decode_chain(tokens);
  std::string out;
  for (const auto& t : tokens) out += t;
  return out;
}

std::string decode(const std::string& json, std::vector<std::string> tokens) {
  return decode(*make(json), std::move(tokens));
}

TEST(WordPieceDecoder, JoinsContinuationsAndCleansUpPerToken) {
  const std::string wp = R"({"type":"WordPiece","prefix":"##","cleanup":true})";
  EXPECT_EQ(decode(wp, {"##uelo", "Ara", "##új", "##o", "No", "##guera"}), "##uelo Araújo Noguera");
  // Cleanup works token by token: " do not" never spans two tokens.
  EXPECT_EQ(decode(wp, {"hello", ",", "i", "'",   "m", "do", "not", "x",  ".",   "don",
                        "'",     "t", "a", "##b", "!", "?",  "n't", "'s", "'ve", "'re"}),
            "hello, i ' m do not x. don ' t ab!?n't's've're");
  EXPECT_EQ(decode(wp, {" .x", "do", "not"}), ".x do not");
  EXPECT_EQ(decode(R"({"type":"WordPiece","prefix":"##","cleanup":false})", {"hello", ",", "a", "##b"}), "hello , ab");
  EXPECT_EQ(decode(R"({"type":"WordPiece","prefix":"@@","cleanup":true})", {"a", "@@b@@c", "##d", " ."}),
            "ab@@c ##d .");
  EXPECT_EQ(decode(R"({"type":"WordPiece","prefix":"","cleanup":false})", {"ab", "c"}), "abc");
}

TEST(BpeDecoder, SuffixBecomesSpaceExceptAtTheEnd) {
  EXPECT_EQ(decode(R"({"type":"BPEDecoder","suffix":"</w>"})", {"hel", "lo</w>", "wor", "ld</w>"}), "hello world");
  EXPECT_EQ(decode(R"({"type":"BPEDecoder","suffix":"</w>"})", {"a</w>", "b"}), "a b");
  EXPECT_EQ(decode(R"({"type":"BPEDecoder","suffix":"_"})", {"_a_", "b_", "_"}), " a b ");
  // An empty suffix matches between all characters, as Rust's str::replace does.
  EXPECT_EQ(decode(R"({"type":"BPEDecoder","suffix":""})", {"ab", "c"}), " a b c");
}

TEST(ByteLevelDecoder, MapsCharactersBackToBytes) {
  const std::string bl = R"({"type":"ByteLevel","add_prefix_space":true,"trim_offsets":true,"use_regex":true})";
  EXPECT_EQ(decode(bl, {"Hello", "Ġmy", "Ġfriend", ",", "Ġhow"}), "Hello my friend, how");
  // A character split across tokens.
  EXPECT_EQ(decode(bl, {"âĤ", "¬"}), "€");
  EXPECT_EQ(decode(bl, {"ðŁĺ", "Ģ"}), "😀");
}

TEST(ByteLevelDecoder, InvalidUtf8BecomesReplacementCharactersAsFromUtf8Lossy) {
  const std::string bl = R"({"type":"ByteLevel","add_prefix_space":true,"trim_offsets":true,"use_regex":true})";
  EXPECT_EQ(decode(bl, {"Ã", "a", "é", "Ġ"}), "\uFFFDa\uFFFD ");
  EXPECT_EQ(decode(bl, {"ĠhelloĠ", "wörld", "x"}), " hello w\uFFFDrldx");
  // One U+FFFD per maximal invalid subsequence: E2 alone, then 82 and AC.
  EXPECT_EQ(decode(bl, {"â", "x", "Ĥ¬"}), "\uFFFDx\uFFFD\uFFFD");
  // A truncated 4-byte sequence at the end is one error.
  EXPECT_EQ(decode(bl, {"ðŁĺ", "Ģ", "ðŁ"}), "😀\uFFFD");
}

TEST(ByteLevelDecoder, TokenOutsideTheAlphabetIsKeptAsText) {
  const std::string bl = R"({"type":"ByteLevel","add_prefix_space":true,"trim_offsets":true,"use_regex":true})";
  // U+00A0 is not a byte-level character, so the whole token stays as is.
  EXPECT_EQ(decode(bl, {"í\u00a0\u0080"}), "í\u00a0\u0080");
  EXPECT_EQ(decode(bl, {"Ġa", "<|endoftext|>", "Ġ€"}), " a<|endoftext|>Ġ€");
}

TEST(MetaspaceDecoder, PrependSchemes) {
  const std::string always = R"({"type":"Metaspace","replacement":"▁","prepend_scheme":"always","split":true})";
  EXPECT_EQ(decode(always, {"▁Hey", "▁friend!", "▁▁a", "b▁"}), "Hey friend!  ab ");
  // Every replacement of the first token goes, not only the leading one.
  EXPECT_EQ(decode(always, {"▁▁Hey▁", "▁friend!"}), "Hey friend!");
  EXPECT_EQ(decode(always, {"Hey", "▁friend!"}), "Hey friend!");
  EXPECT_EQ(
      decode(R"({"type":"Metaspace","replacement":"▁","prepend_scheme":"never","split":true})", {"▁Hey", "▁friend!"}),
      " Hey friend!");
  EXPECT_EQ(
      decode(R"({"type":"Metaspace","replacement":"▁","prepend_scheme":"first","split":true})", {"▁Hey", "▁friend!"}),
      "Hey friend!");
  EXPECT_EQ(
      decode(R"({"type":"Metaspace","replacement":"_","prepend_scheme":"always","split":false})", {"_Hey", "_friend!"}),
      "Hey friend!");
  EXPECT_EQ(decode(R"({"type":"Metaspace","replacement":"a","prepend_scheme":"never","split":true})", {"abc", "cab"}),
            " bcc b");
  // Files from before prepend_scheme.
  EXPECT_EQ(
      decode(R"({"type":"Metaspace","replacement":"▁","str_rep":"▁","add_prefix_space":true})", {"▁Hey", "▁friend!"}),
      "Hey friend!");
  EXPECT_THROW(make(R"({"type":"Metaspace","replacement":"ab"})"), Error);
  EXPECT_THROW(make(R"({"type":"Metaspace","replacement":"▁","prepend_scheme":"sometimes"})"), Error);
}

TEST(ByteFallback, ByteRunsBecomeTextOrOneReplacementPerByte) {
  const std::string bf = R"({"type":"ByteFallback"})";
  EXPECT_EQ(decode(bf, {"Hey", "friend!"}), "Heyfriend!");
  EXPECT_EQ(decode(bf, {"<0x61>"}), "a");
  EXPECT_EQ(decode(bf, {"<0xE5>", "<0x8f>", "<0xab>", "a"}), "叫a");
  EXPECT_EQ(decode(bf, {"<0xE5>", "<0x8f>", "a"}), "\uFFFD\uFFFDa");
  EXPECT_EQ(decode(bf, {"<0xE5>", "<0x8f>", "<0xab>", "a", "<0xE5>", "<0x8f>", "b", "<0x61>", "<0xzz>", "<0x6>",
                        "<0X61>", "<0x61>"}),
            "叫a\uFFFD\uFFFDba<0xzz><0x6><0X61>a");
  // A valid byte in an invalid run is lost too; "+a" parses as Rust's from_str_radix reads it.
  EXPECT_EQ(decode(bf, {"<0x+a>", "<0x-1>", "<0xé>", "<0x0A>", "<0xFF>", "<0xC3>", "<0xA9>", "x", "<0xC3>"}),
            "\n<0x-1><0xé>\uFFFD\uFFFD\uFFFD\uFFFDx\uFFFD");
}

TEST(ByteFallback, KeepsTokensSeparateForLaterDecoders) {
  auto bf = make(R"({"type":"ByteFallback"})");
  std::vector<std::string> tokens{"<0xE5>", "<0x8f>", "<0xab>", "a", "<0xE5>"};
  bf->decode_chain(tokens);
  EXPECT_EQ(tokens, (std::vector<std::string>{"叫", "a", "\uFFFD"}));
}

TEST(Fuse, JoinsIntoOneToken) {
  auto fuse = make(R"({"type":"Fuse"})");
  std::vector<std::string> tokens{"Hey", " friend!"};
  fuse->decode_chain(tokens);
  EXPECT_EQ(tokens, (std::vector<std::string>{"Hey friend!"}));
}

TEST(Strip, CutsCharactersFromBothEnds) {
  EXPECT_EQ(decode(R"({"type":"Strip","content":"H","start":1,"stop":0})", {"Hey", " friend!", "HHH"}), "ey friend!HH");
  EXPECT_EQ(decode(R"({"type":"Strip","content":"y","start":0,"stop":1})", {"Hey", " friend!"}), "He friend!");
  EXPECT_EQ(decode(R"({"type":"Strip","content":"H","start":5,"stop":5})", {"HaH"}), "a");
  EXPECT_EQ(decode(R"({"type":"Strip","content":"H","start":2,"stop":2})", {"HHHH"}), "");
  EXPECT_EQ(decode(R"({"type":"Strip","content":"H","start":0,"stop":2})", {"HHH"}), "H");
  EXPECT_EQ(decode(R"({"type":"Strip","content":" ","start":1,"stop":1})", {"  a  "}), " a ");
  EXPECT_EQ(decode(R"({"type":"Strip","content":"é","start":1,"stop":1})", {"éaé"}), "a");
  // Hugging Face panics when the cuts overlap; nothing is left here.
  EXPECT_EQ(decode(R"({"type":"Strip","content":"H","start":5,"stop":5})", {"HHH", "x"}), "x");
  EXPECT_THROW(make(R"({"type":"Strip","content":"ab","start":1,"stop":0})"), Error);
}

TEST(ReplaceDecoder, StringAndRegexPatterns) {
  EXPECT_EQ(decode(R"({"type":"Replace","pattern":{"String":"▁"},"content":" "})", {"hello", "▁hello"}), "hello hello");
  EXPECT_EQ(decode(R"({"type":"Replace","pattern":{"String":"ab"},"content":"X"})", {"aab", "abab", "b"}), "aXXXb");
  EXPECT_EQ(decode(R"({"type":"Replace","pattern":{"String":"aa"},"content":"X"})", {"aaa"}), "Xa");
  EXPECT_EQ(decode(R"({"type":"Replace","pattern":{"Regex":"a+"},"content":"X"})", {"caab", "abab", "b"}), "cXbXbXbb");
  EXPECT_EQ(decode(R"({"type":"Replace","pattern":{"Regex":"\\s+"},"content":"X"})", {"a  b\tc"}), "aXbXc");
  // The content is literal: no group expansion in 0.23.
  EXPECT_EQ(decode(R"json({"type":"Replace","pattern":{"Regex":"(l)(e)"},"content":"$1 $2"})json", {"le", "test"}),
            "$1 $2test");
}

TEST(ReplaceDecoder, EmptyMatchesAsOniguruma) {
  EXPECT_EQ(decode(R"({"type":"Replace","pattern":{"Regex":""},"content":"X"})", {"ab", "c"}), "XaXbXXcX");
  EXPECT_EQ(decode(R"({"type":"Replace","pattern":{"String":""},"content":"X"})", {"ab"}), "XaXbX");
  EXPECT_EQ(decode(R"({"type":"Replace","pattern":{"Regex":"e*"},"content":"X"})", {"le", "test"}), "XlXXtXsXtX");
}

TEST(ReplaceDecoder, RejectsBadPatterns) {
  EXPECT_THROW(make(R"({"type":"Replace","pattern":{"Regex":"("},"content":"b"})"), Error);
  EXPECT_THROW(make(R"({"type":"Replace","pattern":"a","content":"b"})"), Error);
  EXPECT_THROW(make(R"({"type":"Replace","pattern":{"Other":"a"},"content":"b"})"), Error);
}

TEST(Ctc, CollapsesRepeatsAndDropsPadding) {
  const std::string ctc = R"({"type":"CTC","pad_token":"<pad>","word_delimiter_token":"|","cleanup":true})";
  auto decoder = make(ctc);
  std::vector<std::string> tokens{"<pad>", "<pad>", "h",     "e", "e",     "l", "l", "<pad>", "l", "o",    "o",
                                  "o",     "<pad>", "<pad>", "|", "<pad>", "w", "o", "o",     "r", "<pad>"};
  decoder->decode_chain(tokens);
  EXPECT_EQ(tokens, (std::vector<std::string>{"h", "e", "l", "l", "o", " ", "w", "o", "r"}));
  EXPECT_EQ(decode(ctc, {"h", "e", "e", "|", "|", "l", ",", "<pad>"}), "he l,");
  EXPECT_EQ(decode(ctc, {"a<pad>", "a<pad>", "<pad>", "b", "do", " do not", " .", "|x|"}), "abdo don't. x ");
  EXPECT_EQ(decode(R"({"type":"CTC","pad_token":"<pad>","word_delimiter_token":"|","cleanup":false})",
                   {"h", "e", "e", "|", "|", "l", ",", "<pad>"}),
            "he|l,");
  EXPECT_EQ(decode(R"({"type":"CTC","pad_token":"","word_delimiter_token":"","cleanup":true})", {"ab", "c"}),
            " a b  c ");
}

TEST(SequenceDecoder, ChainsDecoders) {
  const std::string seq = R"({"type":"Sequence","decoders":[
      {"type":"Replace","pattern":{"String":"▁"},"content":" "},
      {"type":"ByteFallback"},{"type":"Fuse"},
      {"type":"Strip","content":" ","start":1,"stop":0}]})";
  EXPECT_EQ(decode(seq, {"▁Hey", "▁<0xE5>", "<0x8f>", "<0xab>", "▁x"}), "Hey <0xE5>\uFFFD\uFFFD x");
  EXPECT_EQ(decode(seq, {"▁Hey", "<0xE5>", "<0x8f>", "<0xab>", "▁x"}), "Hey叫 x");
  EXPECT_EQ(decode(R"({"type":"Sequence","decoders":[]})", {"a", "b"}), "ab");
  EXPECT_THROW(make(R"({"type":"Sequence","decoders":[{"type":"Nope"}]})"), Error);
}

}  // namespace
}  // namespace sieve::tokenizer
