#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

#include "sieve/error.hpp"
#include "tokenizer/core/component_registry.hpp"

// Expected encodings come from Hugging Face tokenizers 0.23.3: the same JSON
// loaded with Tokenizer.from_str, then `post_processor.process(A, B, add)`
// on encodings of a WordLevel tokenizer with a ByteLevel pre-tokenizer
// (tools: /tmp/gen_proc.py in the session that wrote this).
namespace sieve::tokenizer {
namespace {

// The token strings of that tokenizer. Id 11 is the added token "<mask>"
// (lstrip) as Hugging Face reports it when matched in " hello <mask>": with
// the space it swallowed, which the trimming then removes.
class FakeLookup final : public TokenLookup {
 public:
  [[nodiscard]] std::string_view id_to_token(std::uint32_t id) const override {
    static const std::vector<std::string> words{"<s>", "</s>",  "[CLS]", "[SEP]",   "hello", "Ġhello", "Ġworld", "ĠĠ",
                                                "Ġ",   "world", "!",     " <mask>", "ĠĠĠ",   "Ċ",      "<unk>"};
    return id < words.size() ? std::string_view(words[id]) : std::string_view();
  }
};

// "hello   world!  " -> hello ĠĠ Ġworld ! ĠĠ
Encoding first_sequence() {
  Encoding e;
  e.ids = {4, 7, 6, 10, 7};
  e.offsets = {{0, 5}, {5, 7}, {7, 13}, {13, 14}, {14, 16}};
  e.type_ids.assign(5, 0);
  e.special_tokens_mask.assign(5, 0);
  e.attention_mask.assign(5, 1);
  return e;
}

// " hello <mask>\n world" -> Ġhello " <mask>" Ċ Ġworld
Encoding second_sequence() {
  Encoding e;
  e.ids = {5, 11, 13, 6};
  e.offsets = {{0, 6}, {6, 13}, {13, 14}, {14, 20}};
  e.type_ids.assign(4, 0);
  e.special_tokens_mask.assign(4, 0);
  e.attention_mask.assign(4, 1);
  return e;
}

struct Expected {
  bool pair;
  bool add_special_tokens;
  std::vector<std::uint32_t> ids;
  std::vector<std::uint32_t> type_ids;
  std::vector<Offsets> offsets;
  std::vector<std::uint8_t> special_tokens_mask;
};

struct Case {
  const char* name;
  const char* json;
  std::size_t added_single;
  std::size_t added_pair;
  std::vector<Expected> expected;
};

// clang-format off
const std::vector<Case> kCases{
  {"ByteLevelTrim", R"({"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true})", 0, 0, {
      {false, true, {4, 7, 6, 10, 7}, {0, 0, 0, 0, 0}, {{0, 5}, {7, 7}, {8, 13}, {13, 14}, {16, 16}}, {0, 0, 0, 0, 0}},
      {false, false, {4, 7, 6, 10, 7}, {0, 0, 0, 0, 0}, {{0, 5}, {7, 7}, {8, 13}, {13, 14}, {16, 16}}, {0, 0, 0, 0, 0}},
      {true, true, {4, 7, 6, 10, 7, 5, 11, 13, 6}, {0, 0, 0, 0, 0, 1, 1, 1, 1}, {{0, 5}, {7, 7}, {8, 13}, {13, 14}, {16, 16}, {0, 6}, {7, 13}, {13, 14}, {15, 20}}, {0, 0, 0, 0, 0, 0, 0, 0, 0}},
      {true, false, {4, 7, 6, 10, 7, 5, 11, 13, 6}, {0, 0, 0, 0, 0, 1, 1, 1, 1}, {{0, 5}, {7, 7}, {8, 13}, {13, 14}, {16, 16}, {0, 6}, {7, 13}, {13, 14}, {15, 20}}, {0, 0, 0, 0, 0, 0, 0, 0, 0}}}},
  {"ByteLevelTrimNoPrefix", R"({"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true})", 0, 0, {
      {false, true, {4, 7, 6, 10, 7}, {0, 0, 0, 0, 0}, {{0, 5}, {7, 7}, {8, 13}, {13, 14}, {16, 16}}, {0, 0, 0, 0, 0}},
      {false, false, {4, 7, 6, 10, 7}, {0, 0, 0, 0, 0}, {{0, 5}, {7, 7}, {8, 13}, {13, 14}, {16, 16}}, {0, 0, 0, 0, 0}},
      {true, true, {4, 7, 6, 10, 7, 5, 11, 13, 6}, {0, 0, 0, 0, 0, 1, 1, 1, 1}, {{0, 5}, {7, 7}, {8, 13}, {13, 14}, {16, 16}, {1, 6}, {7, 13}, {13, 14}, {15, 20}}, {0, 0, 0, 0, 0, 0, 0, 0, 0}},
      {true, false, {4, 7, 6, 10, 7, 5, 11, 13, 6}, {0, 0, 0, 0, 0, 1, 1, 1, 1}, {{0, 5}, {7, 7}, {8, 13}, {13, 14}, {16, 16}, {1, 6}, {7, 13}, {13, 14}, {15, 20}}, {0, 0, 0, 0, 0, 0, 0, 0, 0}}}},
  {"ByteLevelNoTrim", R"({"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": false, "use_regex": true})", 0, 0, {
      {false, true, {4, 7, 6, 10, 7}, {0, 0, 0, 0, 0}, {{0, 5}, {5, 7}, {7, 13}, {13, 14}, {14, 16}}, {0, 0, 0, 0, 0}},
      {false, false, {4, 7, 6, 10, 7}, {0, 0, 0, 0, 0}, {{0, 5}, {5, 7}, {7, 13}, {13, 14}, {14, 16}}, {0, 0, 0, 0, 0}},
      {true, true, {4, 7, 6, 10, 7, 5, 11, 13, 6}, {0, 0, 0, 0, 0, 1, 1, 1, 1}, {{0, 5}, {5, 7}, {7, 13}, {13, 14}, {14, 16}, {0, 6}, {6, 13}, {13, 14}, {14, 20}}, {0, 0, 0, 0, 0, 0, 0, 0, 0}},
      {true, false, {4, 7, 6, 10, 7, 5, 11, 13, 6}, {0, 0, 0, 0, 0, 1, 1, 1, 1}, {{0, 5}, {5, 7}, {7, 13}, {13, 14}, {14, 16}, {0, 6}, {6, 13}, {13, 14}, {14, 20}}, {0, 0, 0, 0, 0, 0, 0, 0, 0}}}},
  {"Roberta", R"({"type": "RobertaProcessing", "sep": ["</s>", 1], "cls": ["<s>", 0], "trim_offsets": true, "add_prefix_space": true})", 2, 4, {
      {false, true, {0, 4, 7, 6, 10, 7, 1}, {0, 0, 0, 0, 0, 0, 0}, {{0, 0}, {0, 5}, {7, 7}, {8, 13}, {13, 14}, {16, 16}, {0, 0}}, {1, 0, 0, 0, 0, 0, 1}},
      {false, false, {4, 7, 6, 10, 7}, {0, 0, 0, 0, 0}, {{0, 5}, {7, 7}, {8, 13}, {13, 14}, {16, 16}}, {0, 0, 0, 0, 0}},
      {true, true, {0, 4, 7, 6, 10, 7, 1, 1, 5, 11, 13, 6, 1}, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, {{0, 0}, {0, 5}, {7, 7}, {8, 13}, {13, 14}, {16, 16}, {0, 0}, {0, 0}, {0, 6}, {7, 13}, {13, 14}, {15, 20}, {0, 0}}, {1, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1}},
      {true, false, {4, 7, 6, 10, 7, 5, 11, 13, 6}, {0, 0, 0, 0, 0, 0, 0, 0, 0}, {{0, 5}, {7, 7}, {8, 13}, {13, 14}, {16, 16}, {0, 6}, {7, 13}, {13, 14}, {15, 20}}, {0, 0, 0, 0, 0, 0, 0, 0, 0}}}},
  {"RobertaNoTrim", R"({"type": "RobertaProcessing", "sep": ["</s>", 1], "cls": ["<s>", 0], "trim_offsets": false, "add_prefix_space": true})", 2, 4, {
      {false, true, {0, 4, 7, 6, 10, 7, 1}, {0, 0, 0, 0, 0, 0, 0}, {{0, 0}, {0, 5}, {5, 7}, {7, 13}, {13, 14}, {14, 16}, {0, 0}}, {1, 0, 0, 0, 0, 0, 1}},
      {false, false, {4, 7, 6, 10, 7}, {0, 0, 0, 0, 0}, {{0, 5}, {5, 7}, {7, 13}, {13, 14}, {14, 16}}, {0, 0, 0, 0, 0}},
      {true, true, {0, 4, 7, 6, 10, 7, 1, 1, 5, 11, 13, 6, 1}, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, {{0, 0}, {0, 5}, {5, 7}, {7, 13}, {13, 14}, {14, 16}, {0, 0}, {0, 0}, {0, 6}, {6, 13}, {13, 14}, {14, 20}, {0, 0}}, {1, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1}},
      {true, false, {4, 7, 6, 10, 7, 5, 11, 13, 6}, {0, 0, 0, 0, 0, 0, 0, 0, 0}, {{0, 5}, {5, 7}, {7, 13}, {13, 14}, {14, 16}, {0, 6}, {6, 13}, {13, 14}, {14, 20}}, {0, 0, 0, 0, 0, 0, 0, 0, 0}}}},
  {"Bert", R"({"type": "BertProcessing", "sep": ["[SEP]", 3], "cls": ["[CLS]", 2]})", 2, 3, {
      {false, true, {2, 4, 7, 6, 10, 7, 3}, {0, 0, 0, 0, 0, 0, 0}, {{0, 0}, {0, 5}, {5, 7}, {7, 13}, {13, 14}, {14, 16}, {0, 0}}, {1, 0, 0, 0, 0, 0, 1}},
      {false, false, {4, 7, 6, 10, 7}, {0, 0, 0, 0, 0}, {{0, 5}, {5, 7}, {7, 13}, {13, 14}, {14, 16}}, {0, 0, 0, 0, 0}},
      {true, true, {2, 4, 7, 6, 10, 7, 3, 5, 11, 13, 6, 3}, {0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1}, {{0, 0}, {0, 5}, {5, 7}, {7, 13}, {13, 14}, {14, 16}, {0, 0}, {0, 6}, {6, 13}, {13, 14}, {14, 20}, {0, 0}}, {1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}},
      {true, false, {4, 7, 6, 10, 7, 5, 11, 13, 6}, {0, 0, 0, 0, 0, 1, 1, 1, 1}, {{0, 5}, {5, 7}, {7, 13}, {13, 14}, {14, 16}, {0, 6}, {6, 13}, {13, 14}, {14, 20}}, {0, 0, 0, 0, 0, 0, 0, 0, 0}}}},
  {"Template", R"({"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}], "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}, {"SpecialToken": {"id": "[SEP]", "type_id": 1}}], "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [2], "tokens": ["[CLS]"]}, "[SEP]": {"id": "[SEP]", "ids": [3], "tokens": ["[SEP]"]}}})", 2, 3, {
      {false, true, {2, 4, 7, 6, 10, 7, 3}, {0, 0, 0, 0, 0, 0, 0}, {{0, 0}, {0, 5}, {5, 7}, {7, 13}, {13, 14}, {14, 16}, {0, 0}}, {1, 0, 0, 0, 0, 0, 1}},
      {false, false, {4, 7, 6, 10, 7}, {0, 0, 0, 0, 0}, {{0, 5}, {5, 7}, {7, 13}, {13, 14}, {14, 16}}, {0, 0, 0, 0, 0}},
      {true, true, {2, 4, 7, 6, 10, 7, 3, 5, 11, 13, 6, 3}, {0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1}, {{0, 0}, {0, 5}, {5, 7}, {7, 13}, {13, 14}, {14, 16}, {0, 0}, {0, 6}, {6, 13}, {13, 14}, {14, 20}, {0, 0}}, {1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}},
      {true, false, {4, 7, 6, 10, 7, 5, 11, 13, 6}, {0, 0, 0, 0, 0, 1, 1, 1, 1}, {{0, 5}, {5, 7}, {7, 13}, {13, 14}, {14, 16}, {0, 6}, {6, 13}, {13, 14}, {14, 20}}, {0, 0, 0, 0, 0, 0, 0, 0, 0}}}},
  {"TemplateOddOrder", R"({"type": "TemplateProcessing", "single": [{"Sequence": {"id": "A", "type_id": 3}}, {"SpecialToken": {"id": "[CLS]", "type_id": 2}}, {"Sequence": {"id": "A", "type_id": 4}}], "pair": [{"Sequence": {"id": "B", "type_id": 5}}, {"SpecialToken": {"id": "[SEP]", "type_id": 1}}, {"Sequence": {"id": "A", "type_id": 7}}], "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [2], "tokens": ["[CLS]"]}, "[SEP]": {"id": "[SEP]", "ids": [3], "tokens": ["[SEP]"]}}})", 1, 1, {
      {false, true, {4, 7, 6, 10, 7, 2, 4, 7, 6, 10, 7}, {3, 3, 3, 3, 3, 2, 4, 4, 4, 4, 4}, {{0, 5}, {5, 7}, {7, 13}, {13, 14}, {14, 16}, {0, 0}, {0, 5}, {5, 7}, {7, 13}, {13, 14}, {14, 16}}, {0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0}},
      {false, false, {4, 7, 6, 10, 7, 4, 7, 6, 10, 7}, {3, 3, 3, 3, 3, 4, 4, 4, 4, 4}, {{0, 5}, {5, 7}, {7, 13}, {13, 14}, {14, 16}, {0, 5}, {5, 7}, {7, 13}, {13, 14}, {14, 16}}, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
      {true, true, {5, 11, 13, 6, 3, 4, 7, 6, 10, 7}, {5, 5, 5, 5, 1, 7, 7, 7, 7, 7}, {{0, 6}, {6, 13}, {13, 14}, {14, 20}, {0, 0}, {0, 5}, {5, 7}, {7, 13}, {13, 14}, {14, 16}}, {0, 0, 0, 0, 1, 0, 0, 0, 0, 0}},
      {true, false, {5, 11, 13, 6, 4, 7, 6, 10, 7}, {5, 5, 5, 5, 7, 7, 7, 7, 7}, {{0, 6}, {6, 13}, {13, 14}, {14, 20}, {0, 5}, {5, 7}, {7, 13}, {13, 14}, {14, 16}}, {0, 0, 0, 0, 0, 0, 0, 0, 0}}}},
  {"SequenceByteLevelTemplate", R"({"type": "Sequence", "processors": [{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true}, {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}], "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}, {"SpecialToken": {"id": "[SEP]", "type_id": 1}}], "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [2], "tokens": ["[CLS]"]}, "[SEP]": {"id": "[SEP]", "ids": [3], "tokens": ["[SEP]"]}}}]})", 2, 3, {
      {false, true, {2, 4, 7, 6, 10, 7, 3}, {0, 0, 0, 0, 0, 0, 0}, {{0, 0}, {0, 5}, {7, 7}, {8, 13}, {13, 14}, {16, 16}, {0, 0}}, {1, 0, 0, 0, 0, 0, 1}},
      {false, false, {4, 7, 6, 10, 7}, {0, 0, 0, 0, 0}, {{0, 5}, {7, 7}, {8, 13}, {13, 14}, {16, 16}}, {0, 0, 0, 0, 0}},
      {true, true, {2, 4, 7, 6, 10, 7, 3, 5, 11, 13, 6, 3}, {0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1}, {{0, 0}, {0, 5}, {7, 7}, {8, 13}, {13, 14}, {16, 16}, {0, 0}, {0, 6}, {7, 13}, {13, 14}, {15, 20}, {0, 0}}, {1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}},
      {true, false, {4, 7, 6, 10, 7, 5, 11, 13, 6}, {0, 0, 0, 0, 0, 1, 1, 1, 1}, {{0, 5}, {7, 7}, {8, 13}, {13, 14}, {16, 16}, {0, 6}, {7, 13}, {13, 14}, {15, 20}}, {0, 0, 0, 0, 0, 0, 0, 0, 0}}}},
  {"SequenceTemplateByteLevel", R"({"type": "Sequence", "processors": [{"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}], "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}, {"SpecialToken": {"id": "[SEP]", "type_id": 1}}], "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [2], "tokens": ["[CLS]"]}, "[SEP]": {"id": "[SEP]", "ids": [3], "tokens": ["[SEP]"]}}}, {"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true}]})", 2, 3, {
      {false, true, {2, 4, 7, 6, 10, 7, 3}, {0, 0, 0, 0, 0, 0, 0}, {{0, 0}, {0, 5}, {7, 7}, {8, 13}, {13, 14}, {16, 16}, {0, 0}}, {1, 0, 0, 0, 0, 0, 1}},
      {false, false, {4, 7, 6, 10, 7}, {0, 0, 0, 0, 0}, {{0, 5}, {7, 7}, {8, 13}, {13, 14}, {16, 16}}, {0, 0, 0, 0, 0}},
      {true, true, {2, 4, 7, 6, 10, 7, 3, 5, 11, 13, 6, 3}, {0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1}, {{0, 0}, {0, 5}, {7, 7}, {8, 13}, {13, 14}, {16, 16}, {0, 0}, {0, 6}, {7, 13}, {13, 14}, {15, 20}, {0, 0}}, {1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}},
      {true, false, {4, 7, 6, 10, 7, 5, 11, 13, 6}, {0, 0, 0, 0, 0, 1, 1, 1, 1}, {{0, 5}, {7, 7}, {8, 13}, {13, 14}, {16, 16}, {0, 6}, {7, 13}, {13, 14}, {15, 20}}, {0, 0, 0, 0, 0, 0, 0, 0, 0}}}},
  {"SequenceRobertaBert", R"({"type": "Sequence", "processors": [{"type": "RobertaProcessing", "sep": ["</s>", 1], "cls": ["<s>", 0], "trim_offsets": true, "add_prefix_space": true}, {"type": "BertProcessing", "sep": ["[SEP]", 3], "cls": ["[CLS]", 2]}]})", 4, 7, {
      {false, true, {2, 0, 4, 7, 6, 10, 7, 1, 3}, {0, 0, 0, 0, 0, 0, 0, 0, 0}, {{0, 0}, {0, 0}, {0, 5}, {7, 7}, {8, 13}, {13, 14}, {16, 16}, {0, 0}, {0, 0}}, {1, 0, 0, 0, 0, 0, 0, 0, 1}},
      {false, false, {4, 7, 6, 10, 7}, {0, 0, 0, 0, 0}, {{0, 5}, {7, 7}, {8, 13}, {13, 14}, {16, 16}}, {0, 0, 0, 0, 0}},
      {true, true, {2, 0, 4, 7, 6, 10, 7, 1, 3, 1, 5, 11, 13, 6, 1, 3}, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, {{0, 0}, {0, 0}, {0, 5}, {7, 7}, {8, 13}, {13, 14}, {16, 16}, {0, 0}, {0, 0}, {0, 0}, {0, 6}, {7, 13}, {13, 14}, {15, 20}, {0, 0}, {0, 0}}, {1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1}},
      {true, false, {4, 7, 6, 10, 7, 5, 11, 13, 6}, {0, 0, 0, 0, 0, 0, 0, 0, 0}, {{0, 5}, {7, 7}, {8, 13}, {13, 14}, {16, 16}, {0, 6}, {7, 13}, {13, 14}, {15, 20}}, {0, 0, 0, 0, 0, 0, 0, 0, 0}}}},
  {"SequenceBertByteLevel", R"({"type": "Sequence", "processors": [{"type": "BertProcessing", "sep": ["[SEP]", 3], "cls": ["[CLS]", 2]}, {"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true}]})", 2, 3, {
      {false, true, {2, 4, 7, 6, 10, 7, 3}, {0, 0, 0, 0, 0, 0, 0}, {{0, 0}, {0, 5}, {7, 7}, {8, 13}, {13, 14}, {16, 16}, {0, 0}}, {1, 0, 0, 0, 0, 0, 1}},
      {false, false, {4, 7, 6, 10, 7}, {0, 0, 0, 0, 0}, {{0, 5}, {7, 7}, {8, 13}, {13, 14}, {16, 16}}, {0, 0, 0, 0, 0}},
      {true, true, {2, 4, 7, 6, 10, 7, 3, 5, 11, 13, 6, 3}, {0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1}, {{0, 0}, {0, 5}, {7, 7}, {8, 13}, {13, 14}, {16, 16}, {0, 0}, {0, 6}, {7, 13}, {13, 14}, {15, 20}, {0, 0}}, {1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}},
      {true, false, {4, 7, 6, 10, 7, 5, 11, 13, 6}, {0, 0, 0, 0, 0, 1, 1, 1, 1}, {{0, 5}, {7, 7}, {8, 13}, {13, 14}, {16, 16}, {0, 6}, {7, 13}, {13, 14}, {15, 20}}, {0, 0, 0, 0, 0, 0, 0, 0, 0}}}},
  {"SequenceEmpty", R"({"type": "Sequence", "processors": []})", 0, 0, {
      {false, true, {4, 7, 6, 10, 7}, {0, 0, 0, 0, 0}, {{0, 5}, {5, 7}, {7, 13}, {13, 14}, {14, 16}}, {0, 0, 0, 0, 0}},
      {false, false, {4, 7, 6, 10, 7}, {0, 0, 0, 0, 0}, {{0, 5}, {5, 7}, {7, 13}, {13, 14}, {14, 16}}, {0, 0, 0, 0, 0}},
      {true, true, {4, 7, 6, 10, 7, 5, 11, 13, 6}, {0, 0, 0, 0, 0, 1, 1, 1, 1}, {{0, 5}, {5, 7}, {7, 13}, {13, 14}, {14, 16}, {0, 6}, {6, 13}, {13, 14}, {14, 20}}, {0, 0, 0, 0, 0, 0, 0, 0, 0}},
      {true, false, {4, 7, 6, 10, 7, 5, 11, 13, 6}, {0, 0, 0, 0, 0, 1, 1, 1, 1}, {{0, 5}, {5, 7}, {7, 13}, {13, 14}, {14, 16}, {0, 6}, {6, 13}, {13, 14}, {14, 20}}, {0, 0, 0, 0, 0, 0, 0, 0, 0}}}},
  {"RobertaMissingOptionsIsBert", R"({"type": "RobertaProcessing", "sep": ["[SEP]", 3], "cls": ["[CLS]", 2]})", 2, 3, {
      {false, true, {2, 4, 7, 6, 10, 7, 3}, {0, 0, 0, 0, 0, 0, 0}, {{0, 0}, {0, 5}, {5, 7}, {7, 13}, {13, 14}, {14, 16}, {0, 0}}, {1, 0, 0, 0, 0, 0, 1}},
      {false, false, {4, 7, 6, 10, 7}, {0, 0, 0, 0, 0}, {{0, 5}, {5, 7}, {7, 13}, {13, 14}, {14, 16}}, {0, 0, 0, 0, 0}},
      {true, true, {2, 4, 7, 6, 10, 7, 3, 5, 11, 13, 6, 3}, {0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1}, {{0, 0}, {0, 5}, {5, 7}, {7, 13}, {13, 14}, {14, 16}, {0, 0}, {0, 6}, {6, 13}, {13, 14}, {14, 20}, {0, 0}}, {1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}},
      {true, false, {4, 7, 6, 10, 7, 5, 11, 13, 6}, {0, 0, 0, 0, 0, 1, 1, 1, 1}, {{0, 5}, {5, 7}, {7, 13}, {13, 14}, {14, 16}, {0, 6}, {6, 13}, {13, 14}, {14, 20}}, {0, 0, 0, 0, 0, 0, 0, 0, 0}}}},
  {"BertWithOptionsIsRoberta", R"({"type": "BertProcessing", "sep": ["</s>", 1], "cls": ["<s>", 0], "trim_offsets": true, "add_prefix_space": true})", 2, 4, {
      {false, true, {0, 4, 7, 6, 10, 7, 1}, {0, 0, 0, 0, 0, 0, 0}, {{0, 0}, {0, 5}, {7, 7}, {8, 13}, {13, 14}, {16, 16}, {0, 0}}, {1, 0, 0, 0, 0, 0, 1}},
      {false, false, {4, 7, 6, 10, 7}, {0, 0, 0, 0, 0}, {{0, 5}, {7, 7}, {8, 13}, {13, 14}, {16, 16}}, {0, 0, 0, 0, 0}},
      {true, true, {0, 4, 7, 6, 10, 7, 1, 1, 5, 11, 13, 6, 1}, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, {{0, 0}, {0, 5}, {7, 7}, {8, 13}, {13, 14}, {16, 16}, {0, 0}, {0, 0}, {0, 6}, {7, 13}, {13, 14}, {15, 20}, {0, 0}}, {1, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1}},
      {true, false, {4, 7, 6, 10, 7, 5, 11, 13, 6}, {0, 0, 0, 0, 0, 0, 0, 0, 0}, {{0, 5}, {7, 7}, {8, 13}, {13, 14}, {16, 16}, {0, 6}, {7, 13}, {13, 14}, {15, 20}}, {0, 0, 0, 0, 0, 0, 0, 0, 0}}}},
};
// clang-format on

std::unique_ptr<PostProcessor> make(const std::string& json) {
  const auto parsed = nlohmann::json::parse(json);
  return ComponentRegistry::builtin().processors.create(JsonView(parsed, "test"), "post-processor");
}

TEST(PostProcessors, MatchHuggingFaceForSinglesPairsAndWithoutSpecialTokens) {
  const FakeLookup lookup;
  for (const auto& c : kCases) {
    SCOPED_TRACE(c.name);
    const auto processor = make(c.json);
    EXPECT_EQ(processor->added_tokens(false), c.added_single);
    EXPECT_EQ(processor->added_tokens(true), c.added_pair);
    for (const auto& want : c.expected) {
      SCOPED_TRACE(std::string(want.pair ? "pair" : "single") + (want.add_special_tokens ? " with" : " without") +
                   " special tokens");
      std::optional<Encoding> second;
      if (want.pair) second = second_sequence();
      const Encoding got = processor->process(first_sequence(), second, want.add_special_tokens, lookup);
      EXPECT_EQ(got.ids, want.ids);
      EXPECT_EQ(got.type_ids, want.type_ids);
      EXPECT_EQ(got.offsets, want.offsets);
      EXPECT_EQ(got.special_tokens_mask, want.special_tokens_mask);
      EXPECT_EQ(got.attention_mask, std::vector<std::uint8_t>(got.size(), 1));
    }
  }
}

TEST(PostProcessors, EmptySequences) {
  const FakeLookup lookup;
  const auto roberta = make(R"({"type":"RobertaProcessing","sep":["</s>",1],"cls":["<s>",0],
                                "trim_offsets":true,"add_prefix_space":true})");
  const Encoding e = roberta->process(Encoding{}, Encoding{}, true, lookup);
  EXPECT_EQ(e.ids, (std::vector<std::uint32_t>{0, 1, 1, 1}));
  EXPECT_EQ(e.special_tokens_mask, (std::vector<std::uint8_t>{1, 1, 1, 1}));
  const auto byte_level = make(R"({"type":"ByteLevel","add_prefix_space":true,"trim_offsets":true})");
  EXPECT_EQ(byte_level->process(Encoding{}, std::nullopt, true, lookup).size(), 0U);
}

TEST(PostProcessors, TemplateTwiceInASequenceIsAnError) {
  // Hugging Face panics: the second template gets one encoding per piece.
  const auto twice = make(R"({"type":"Sequence","processors":[
      {"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"[SEP]","type_id":0}},{"Sequence":{"id":"A","type_id":0}},{"SpecialToken":{"id":"[SEP]","type_id":0}}],
       "pair":[{"Sequence":{"id":"A","type_id":0}}],"special_tokens":{"[SEP]":{"id":"[SEP]","ids":[3],"tokens":["[SEP]"]}}},
      {"type":"TemplateProcessing","single":[{"Sequence":{"id":"A","type_id":0}}],
       "pair":[{"Sequence":{"id":"A","type_id":0}}],"special_tokens":{}}]})");
  EXPECT_EQ(twice->added_tokens(false), 2U);
  EXPECT_THROW((void)twice->process(first_sequence(), std::nullopt, true, FakeLookup{}), Error);
}

}  // namespace
}  // namespace sieve::tokenizer
