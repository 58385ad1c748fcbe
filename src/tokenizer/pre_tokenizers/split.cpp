#include "tokenizer/pre_tokenizers/split.hpp"

#include "tokenizer/core/pattern_json.hpp"

namespace sieve::tokenizer {

std::unique_ptr<PreTokenizer> SplitPreTokenizer::from_json(const JsonView& node) {
  node.expect_object();
  Regex regex = pattern_from_json(node.at("pattern"));
  return std::make_unique<SplitPreTokenizer>(std::move(regex), split_behavior_from_json(node.at("behavior")),
                                             node.get_bool("invert", false));
}

void SplitPreTokenizer::pre_tokenize(std::vector<Split>& splits) const {
  split_each(splits, [this](const NormalizedString& text, std::vector<Split>& out) {
    SplitScratch& scratch = split_scratch();
    scratch.matches.clear();
    pattern_.find_all(text.get(), scratch.matches);
    ranges_from_matches(text.size(), scratch.matches, scratch.ranges);
    split_on_ranges(text, scratch.ranges, behavior_, invert_, out);
  });
}

}  // namespace sieve::tokenizer
