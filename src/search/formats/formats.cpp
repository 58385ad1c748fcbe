#include "search/formats/formats.hpp"

#include <algorithm>

#include "search/extract.hpp"
#include "search/formats/text_encoding.hpp"
#include "search/formats/text_util.hpp"
#include "sieve/error.hpp"

namespace sieve::search {
namespace {

// Runs one format's reader on an input, decoding text formats' bytes first.
void read_with(const FileFormat& format, const ExtractInput& input, ExtractContext& context,
               std::vector<ExtractedDocument>& out) {
  if (!format.text_input) {
    format.extract(input, context, out);
    return;
  }
  text::Decoded decoded = text::decode_text(input.bytes);
  if (!decoded.warning.empty()) context.warn(input.key, decoded.warning);
  ExtractInput text_input = input;
  text_input.bytes = decoded.text;
  format.extract(text_input, context, out);
}

// The same, naming the format on each document read (those read from what it holds, as members or
// attachments, keep the format of the reader that read them).
void run_format(const FileFormat& format, const ExtractInput& input, ExtractContext& context,
                std::vector<ExtractedDocument>& out) {
  const std::size_t before = out.size();
  read_with(format, input, context, out);
  for (std::size_t i = before; i < out.size(); ++i) {
    if (out[i].format.empty()) out[i].format = format.name;
  }
}

std::string file_name_of(std::string_view path) {
  const std::size_t slash = path.find_last_of('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

}  // namespace

const std::vector<const FileFormat*>& file_formats() {
  // Signatures are tried in this order; names are matched longest first.
  static const std::vector<const FileFormat*> formats = {
      // Binary signatures: the specific ZIP-based formats before ZIP itself.
      &kPdfFormat,
      &kEpubFormat,
      &kOdtFormat,
      &kOdsFormat,
      &kOdpFormat,
      &kDocxFormat,
      &kXlsxFormat,
      &kPptxFormat,
      &kZipFormat,
      &kTarFormat,
      &kGzipFormat,
      &kBzip2Format,
      &kXzFormat,
      // Text, by name or by its first line.
      &kMboxFormat,
      &kEmailFormat,
      &kHtmlFormat,
      &kManFormat,
      &kMarkdownFormat,
      &kRstFormat,
      &kAsciiDocFormat,
      &kJsonlFormat,
      &kSourceCodeFormat,
      &kTextFormat,
  };
  return formats;
}

const FileFormat* format_named(std::string_view name) {
  for (const FileFormat* format : file_formats()) {
    if (format->name == name) return format;
  }
  return nullptr;
}

const FileFormat* format_for_name(std::string_view file_name) {
  const std::string name = text::lowercase(file_name_of(file_name));
  const FileFormat* best = nullptr;
  std::size_t best_length = 0;
  for (const FileFormat* format : file_formats()) {
    for (const std::string_view ending : format->extensions) {
      // ".md" names a file with that ending, not a dot file called "md"; an entry without a dot is a whole
      // name ("makefile").
      const bool matches =
          ending.front() == '.' ? name.size() > ending.size() && name.ends_with(ending) : name == ending;
      if (matches && ending.size() > best_length) {
        best = format;
        best_length = ending.size();
      }
    }
  }
  return best;
}

Detection detect_format(std::string_view file_name, std::string_view head) {
  head = head.substr(0, kSniffBytes);
  const FileFormat* by_name = format_for_name(file_name);
  if (head.empty()) {
    if (by_name != nullptr && !by_name->binary) return {by_name, {}};
    return {nullptr, "empty file"};
  }
  // A container named for what it is (a .docx is a ZIP file too).
  if (by_name != nullptr && by_name->binary && by_name->sniff != nullptr && by_name->sniff(head)) return {by_name, {}};
  for (const FileFormat* format : file_formats()) {
    if (format->binary && format->sniff != nullptr && format->sniff(head)) {
      // A ZIP file named as a ZIP-based format whose first 8 KiB do not show it (a large first member) goes to
      // the reader its name says, which tells what is wrong if it is not that format after all.
      if (format == &kZipFormat && by_name != nullptr && by_name->binary) return {by_name, {}};
      return {format, {}};
    }
  }
  if (by_name != nullptr) {
    // A .pdf without a PDF's signature goes to the PDF reader, which says what is wrong with it.
    if (by_name->binary) return {by_name, {}};
    if (text::looks_binary(head, true)) return {nullptr, "binary file"};
    return {by_name, {}};
  }
  if (text::looks_binary(head)) return {nullptr, "binary file"};
  for (const FileFormat* format : file_formats()) {
    if (!format->binary && format->sniff != nullptr && format->sniff(head)) return {format, {}};
  }
  return {&kTextFormat, {}};
}

// --- ExtractContext ----------------------------------------------------------

void ExtractContext::account_expanded(std::uint64_t bytes) {
  expanded_ += bytes;
  constexpr std::uint64_t kRatioFloor = std::uint64_t{16} << 20;
  const std::uint64_t stored = std::max<std::uint64_t>(source_bytes_, 1);
  std::string why;
  if (expanded_ > limits_.max_expanded_bytes) {
    why = "expands to more than " + std::to_string(limits_.max_expanded_bytes) +
          " bytes (--max-file-bytes): not read (a compression bomb, or too large)";
  } else if (expanded_ > kRatioFloor && expanded_ / stored > limits_.max_ratio) {
    why = "expands more than " + std::to_string(limits_.max_ratio) + " times (" + std::to_string(expanded_) +
          " bytes from " + std::to_string(source_bytes_) + "): not read (a compression bomb)";
  }
  if (why.empty()) return;
  exhausted_ = true;
  throw Error(ErrorCode::kInvalidInput, why);
}

void ExtractContext::read_nested(const ExtractInput& input, std::vector<ExtractedDocument>& out) {
  if (depth_ >= limits_.max_depth) {
    warn(input.key, "nested more than " + std::to_string(limits_.max_depth) + " levels deep: not read");
    return;
  }
  const Detection detection = detect_format(input.name, input.bytes);
  if (detection.format == nullptr) {
    skip(detection.skip_reason);
    return;
  }
  ++depth_;
  const std::size_t before = out.size();
  try {
    run_format(*detection.format, input, *this, out);
  } catch (const Error& e) {
    --depth_;
    if (exhausted_ || e.code() == ErrorCode::kRuntime) throw;
    out.resize(before);
    const std::string what = e.what();
    errors_.push_back(what.starts_with(input.key) ? what : input.key + ": " + what);
    return;
  }
  --depth_;
}

// --- entry points ------------------------------------------------------------

Extraction extract_file(std::string_view bytes, const std::string& file_name, const std::string& key,
                        const ExtractLimits& limits) {
  Extraction result;
  const Detection detection = detect_format(file_name, bytes);
  result.format = detection.format;
  result.skip_reason = detection.skip_reason;
  if (detection.format == nullptr) return result;
  ExtractContext context(limits, bytes.size());
  run_format(*detection.format, {bytes, file_name_of(file_name), key}, context, result.documents);
  for (auto& doc : result.documents) text::finish_document(doc, doc.key);
  result.warnings = context.warnings();
  result.errors = context.errors();
  result.skipped = context.skipped();
  return result;
}

std::vector<ExtractedDocument> extract_documents(std::string_view content, std::string_view format_name,
                                                 const std::string& key) {
  const FileFormat* format = format_named(format_name);
  if (format == nullptr) throw Error(ErrorCode::kInvalidArgument, "no file format named " + std::string(format_name));
  ExtractContext context({}, content.size());
  std::vector<ExtractedDocument> documents;
  run_format(*format, {content, file_name_of(key), key}, context, documents);
  for (auto& doc : documents) text::finish_document(doc, doc.key);
  return documents;
}

}  // namespace sieve::search
