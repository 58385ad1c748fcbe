// Plain text: .txt files, and any file without a known ending whose content is text (README, copyright,
// changelog). Its bytes are decoded to UTF-8 first (formats.cpp).
#include "search/formats/format.hpp"
#include "search/formats/formats.hpp"

namespace sieve::search {
namespace {

void extract_plain_text(const ExtractInput& input, ExtractContext& /*context*/, std::vector<ExtractedDocument>& out) {
  ExtractedDocument doc;
  doc.key = input.key;
  doc.text = std::string(input.bytes);
  out.push_back(std::move(doc));
}

}  // namespace

const FileFormat kTextFormat{
    .name = "text",
    .label = "plain text",
    .extensions = {".txt", ".text"},
    .sniff = nullptr,
    .text_input = true,
    .binary = false,
    .extract = extract_plain_text,
};

}  // namespace sieve::search
