#include "tokenizer/processors/template_processing.hpp"

#include <algorithm>
#include <string>

namespace sieve::tokenizer {
namespace {

std::vector<TemplateProcessing::Piece> parse_template(
    const JsonView& node, const std::map<std::string, std::vector<std::uint32_t>, std::less<>>& specials) {
  std::vector<TemplateProcessing::Piece> pieces;
  const std::size_t n = node.array_size();
  for (std::size_t i = 0; i < n; ++i) {
    const JsonView item = node.at(i);
    item.expect_object();
    TemplateProcessing::Piece piece;
    if (auto seq = item.find("Sequence")) {
      const std::string id = seq->at("id").as_string();
      if (id != "A" && id != "B") seq->at("id").fail("expected \"A\" or \"B\", got \"" + id + "\"");
      piece.is_sequence = true;
      piece.second = id == "B";
      piece.type_id = static_cast<std::uint32_t>(seq->get_uint("type_id", 0));
    } else if (auto special = item.find("SpecialToken")) {
      const std::string id = special->at("id").as_string();
      const auto it = specials.find(id);
      if (it == specials.end()) special->at("id").fail("special token \"" + id + "\" is not in special_tokens");
      piece.ids = it->second;
      piece.type_id = static_cast<std::uint32_t>(special->get_uint("type_id", 0));
    } else {
      item.fail("expected a \"Sequence\" or \"SpecialToken\" piece");
    }
    pieces.push_back(std::move(piece));
  }
  return pieces;
}

}  // namespace

TemplateProcessing::TemplateProcessing(std::vector<Piece> single, std::vector<Piece> pair)
    : single_(std::move(single)), pair_(std::move(pair)) {}

std::unique_ptr<PostProcessor> TemplateProcessing::from_json(const JsonView& node) {
  std::map<std::string, std::vector<std::uint32_t>, std::less<>> specials;
  if (auto table = node.find("special_tokens")) {
    table->expect_object();
    for (const auto& [name, value] : table->raw().items()) {
      const JsonView entry = table->at(name);
      const JsonView ids = entry.at("ids");
      std::vector<std::uint32_t> values;
      for (std::size_t i = 0; i < ids.array_size(); ++i)
        values.push_back(static_cast<std::uint32_t>(ids.at(i).as_uint()));
      specials.emplace(name, std::move(values));
    }
  }
  auto single = parse_template(node.at("single"), specials);
  auto pair = parse_template(node.at("pair"), specials);
  return std::make_unique<TemplateProcessing>(std::move(single), std::move(pair));
}

std::size_t TemplateProcessing::added_tokens(bool is_pair) const {
  std::size_t n = 0;
  for (const auto& piece : is_pair ? pair_ : single_) n += piece.is_sequence ? 0 : piece.ids.size();
  return n;
}

Encoding TemplateProcessing::process(Encoding first, std::optional<Encoding> second, bool add_special_tokens,
                                     const TokenLookup& /*tokens*/) const {
  const auto& pieces = second ? pair_ : single_;
  Encoding out;
  const std::size_t total =
      first.size() + (second ? second->size() : 0) + (add_special_tokens ? added_tokens(second.has_value()) : 0);
  out.ids.reserve(total);
  out.type_ids.reserve(total);
  out.offsets.reserve(total);
  out.special_tokens_mask.reserve(total);
  out.attention_mask.reserve(total);
  for (const auto& piece : pieces) {
    if (piece.is_sequence) {
      if (piece.second) {
        if (second) append_sequence(out, *second, piece.type_id);
      } else {
        append_sequence(out, first, piece.type_id);
      }
    } else if (add_special_tokens) {
      for (const auto id : piece.ids) append_special(out, id, piece.type_id);
    }
  }
  return out;
}

void TemplateProcessing::process_encodings(std::vector<Encoding>& encodings, bool add_special_tokens,
                                           const TokenLookup& /*tokens*/) const {
  if (encodings.size() != 1 && encodings.size() != 2) {
    throw Error(ErrorCode::kUnsupported, "TemplateProcessing got " + std::to_string(encodings.size()) +
                                             " sequences; it applies to one or two (is it twice in a Sequence?)");
  }
  const auto& pieces = encodings.size() == 2 ? pair_ : single_;
  std::vector<Encoding> out;
  out.reserve(pieces.size());
  for (const auto& piece : pieces) {
    if (piece.is_sequence) {
      const std::size_t index = piece.second ? 1 : 0;
      if (index >= encodings.size()) continue;
      Encoding sequence = encodings[index];
      std::fill(sequence.type_ids.begin(), sequence.type_ids.end(), piece.type_id);
      out.push_back(std::move(sequence));
    } else if (add_special_tokens) {
      Encoding special;
      for (const auto id : piece.ids) append_special(special, id, piece.type_id);
      out.push_back(std::move(special));
    }
  }
  encodings = std::move(out);
}

}  // namespace sieve::tokenizer
