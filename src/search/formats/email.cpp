// E-mail: single messages (.eml, RFC 5322) and mailboxes (.mbox, .mbx: messages one after the other, each after
// a "From " line), through GMime. Each message is a document: its main headers, then its body (the plain text
// when the message also has HTML, the HTML's text when it has only that). Attachments are read as files of their
// own, by whatever format they are, and attached messages as messages.
#include <gmime/gmime.h>

#include <cctype>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "search/formats/format.hpp"
#include "search/formats/formats.hpp"
#include "search/formats/html.hpp"
#include "search/formats/text_encoding.hpp"
#include "search/formats/text_util.hpp"
#include "sieve/error.hpp"
#include "tokenizer/core/unicode.hpp"

namespace sieve::search {
namespace {
namespace email_reader {

// --- owning GMime and GLib objects ---------------------------------------------------------------------------

struct GObjectUnref {
  void operator()(gpointer object) const { g_object_unref(object); }
};
template <typename T>
using GObjectPtr = std::unique_ptr<T, GObjectUnref>;

struct GFree {
  void operator()(gpointer p) const { g_free(p); }
};
using GCharPtr = std::unique_ptr<char, GFree>;

struct DateTimeUnref {
  void operator()(GDateTime* date) const { g_date_time_unref(date); }
};
using DateTimePtr = std::unique_ptr<GDateTime, DateTimeUnref>;

void init_gmime() {
  // Registers GMime's types and charset tables, once for the process (thread-safe as a static's initializer);
  // never shut down, as other readers may be using it.
  [[maybe_unused]] static const bool initialized = [] {
    g_mime_init();
    return true;
  }();
}

// --- sniffing ------------------------------------------------------------------------------------------------

// A header line's name: letters, digits, '-' and '_' before a colon ("Content-Type:", "X-Spam_score:").
std::string_view header_name(std::string_view line) {
  const std::size_t colon = line.find(':');
  if (colon == 0 || colon == std::string_view::npos || colon > 76) return {};
  for (const char c : line.substr(0, colon)) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_')) return {};
  }
  return line.substr(0, colon);
}

bool is_name(std::string_view name, std::string_view expected) {
  return name.size() == expected.size() && text::starts_with_ci(name, expected);
}

// The headers a message file starts with; Return-Path and Received come first in delivered mail, X-... in files
// saved by mail programs.
bool is_first_header(std::string_view name) {
  for (const std::string_view known :
       {"Return-Path", "Received", "From", "To", "Subject", "Date", "Message-ID", "MIME-Version", "Delivered-To"}) {
    if (is_name(name, known)) return true;
  }
  return text::starts_with_ci(name, "X-");
}

// Notes that start "Subject: ..." or "Date: ..." are not mail: a message has a From header (RFC 5322 requires
// it), unless its first header is one only mail has (a long Received chain can push From past the first bytes).
bool sniff_email(std::string_view head) {
  const text::Line first = text::line_at(head, 0);
  const std::string_view first_name = header_name(first.text);
  if (first_name.empty() || !is_first_header(first_name)) return false;
  bool from = is_name(first_name, "From");
  std::size_t headers = 1;
  bool ended = false;
  for (std::size_t pos = first.next; pos < head.size();) {
    const text::Line line = text::line_at(head, pos);
    // The last line of the first bytes may be cut anywhere: it proves nothing either way.
    if (line.next >= head.size() && head.back() != '\n') break;
    pos = line.next;
    if (line.text.empty()) {
      ended = true;
      break;
    }
    if (line.text.front() == ' ' || line.text.front() == '\t') continue;  // a folded header goes on
    const std::string_view name = header_name(line.text);
    if (name.empty()) return false;
    from = from || is_name(name, "From");
    ++headers;
  }
  // Headers without the blank line that ends them fill all the first bytes, or are not mail.
  if (!ended && head.size() < kSniffBytes) return false;
  const bool mail_only = !is_name(first_name, "To") && !is_name(first_name, "Subject") && !is_name(first_name, "Date");
  return headers >= 2 && (from || mail_only);
}

// "From sender Thu May  2 10:00:00 2024": the separator line of an mbox, followed by a message's first header.
bool sniff_mbox(std::string_view head) {
  if (!head.starts_with("From ")) return false;
  const text::Line first = text::line_at(head, 0);
  // A date: a time (hh:mm) and a four-digit year somewhere after the sender.
  const std::string_view line = first.text;
  bool time = false;
  bool year = false;
  for (std::size_t i = 5; i + 4 <= line.size(); ++i) {
    const auto digit = [&line](std::size_t at) { return std::isdigit(static_cast<unsigned char>(line[at])) != 0; };
    if (digit(i) && digit(i + 1) && line[i + 2] == ':' && i + 4 < line.size() && digit(i + 3) && digit(i + 4)) {
      time = true;
    }
    if ((line[i] == '1' || line[i] == '2') && digit(i + 1) && digit(i + 2) && digit(i + 3) && !digit(i - 1) &&
        (i + 4 == line.size() || !digit(i + 4))) {
      year = true;
    }
  }
  if (!time || !year || first.next >= head.size()) return false;
  return !header_name(text::line_at(head, first.next).text).empty();
}

// --- reading -------------------------------------------------------------------------------------------------

// Past this many nested multiparts a message is taken for hostile; deeper parts are left out with a warning.
constexpr int kMaxPartDepth = 64;

// Text GMime hands back is UTF-8 when it could convert it; a header in an undeclared 8-bit charset can still
// arrive as it was sent, which in practice is Windows-1252 (Latin-1).
std::string utf8_of(const char* s) {
  if (s == nullptr) return {};
  const std::string_view view(s);
  if (tokenizer::unicode::find_invalid_utf8(view) == std::string_view::npos) return std::string(view);
  return text::windows1252_to_utf8(view);
}

std::string addresses(InternetAddressList* list) {
  if (list == nullptr || internet_address_list_length(list) == 0) return {};
  const GCharPtr text(internet_address_list_to_string(list, nullptr, FALSE));
  return utf8_of(text.get());
}

// The date GMime read from the Date header, in UTC: "2024-05-01T10:00:00Z"; "" when there is none or it cannot
// be read.
std::string iso_date(GMimeMessage* message) {
  GDateTime* date = g_mime_message_get_date(message);  // owned by the message
  if (date == nullptr) return {};
  const DateTimePtr utc(g_date_time_to_utc(date));
  if (!utc) return {};
  const GCharPtr text(g_date_time_format(utc.get(), "%Y-%m-%dT%H:%M:%SZ"));
  return text ? std::string(text.get()) : std::string();
}

// The content of a part with its transfer encoding (base64, quoted-printable) undone, in its own charset.
std::string decoded_content(GMimePart* part) {
  GMimeDataWrapper* content = g_mime_part_get_content(part);  // owned by the part
  if (content == nullptr) return {};
  const GObjectPtr<GMimeStream> stream(g_mime_stream_mem_new());
  if (g_mime_data_wrapper_write_to_stream(content, stream.get()) < 0) {
    throw Error(ErrorCode::kParse, "its content could not be decoded");
  }
  const GByteArray* bytes = g_mime_stream_mem_get_byte_array(GMIME_STREAM_MEM(stream.get()));
  return std::string(reinterpret_cast<const char*>(bytes->data), bytes->len);
}

bool is_type(GMimeObject* object, const char* type, const char* subtype) {
  return g_mime_content_type_is_type(g_mime_object_get_content_type(object), type, subtype) != FALSE;
}

// A part that is a file rather than the message's own text: marked as an attachment, or named, or not text.
bool is_attachment(GMimePart* part) {
  GMimeObject* object = GMIME_OBJECT(part);
  if (!GMIME_IS_TEXT_PART(part)) return true;
  if (g_mime_part_is_attachment(part) != FALSE || g_mime_part_get_filename(part) != nullptr) return true;
  return !is_type(object, "text", "plain") && !is_type(object, "text", "html");
}

// CRLF line endings as LF; a lone CR stays.
std::string lf_line_endings(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\r' && i + 1 < s.size() && s[i + 1] == '\n') continue;
    out += s[i];
  }
  return out;
}

// mbox stores a body line "From ..." as ">From ..." so that it does not start a new message (and ">From ..." as
// ">>From ...": the mboxrd convention); the text gets its lines back.
void unescape_from_lines(std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t pos = 0; pos < s.size();) {
    std::size_t end = s.find('\n', pos);
    end = end == std::string::npos ? s.size() : end + 1;
    const std::string_view line(s.data() + pos, end - pos);
    const std::size_t quotes = line.find_first_not_of('>');
    const bool escaped = quotes != 0 && quotes != std::string_view::npos && line.substr(quotes).starts_with("From ");
    out.append(escaped ? line.substr(1) : line);
    pos = end;
  }
  s = std::move(out);
}

// One message being read: where its documents go, and its name for keys and messages.
class MessageReader {
 public:
  MessageReader(ExtractContext& context, std::vector<ExtractedDocument>& out, bool from_mbox)
      : context_(context), out_(out), from_mbox_(from_mbox) {}

  // Appends the message's document, then those of its attachments and attached messages. `depth`: messages
  // this one is nested in (attached messages count against the same limit as archives and attachments).
  void read(GMimeMessage* message, const std::string& key, int depth) {
    Parts parts;
    if (GMimeObject* body = g_mime_message_get_mime_part(message); body != nullptr) collect(body, key, 0, parts);

    ExtractedDocument doc;
    doc.key = key;
    doc.title = text::collapse_whitespace(utf8_of(g_mime_message_get_subject(message)));
    const std::string from = addresses(g_mime_message_get_from(message));
    const std::string to = addresses(g_mime_message_get_to(message));
    const std::string cc = addresses(g_mime_message_get_cc(message));
    const std::string date = iso_date(message);
    const std::string date_header =
        text::collapse_whitespace(utf8_of(g_mime_object_get_header(GMIME_OBJECT(message), "Date")));
    // The headers people search by, as a mail program shows them, then the body.
    const auto header_line = [&doc](std::string_view name, const std::string& value) {
      if (!value.empty()) doc.text.append(name).append(": ").append(value).append("\n");
    };
    header_line("From", from);
    header_line("To", to);
    header_line("Cc", cc);
    header_line("Subject", doc.title);
    header_line("Date", date_header);
    std::string body;
    for (GMimeObject* part : parts.text) {
      std::string part_text;
      try {
        part_text = text_of(GMIME_TEXT_PART(part), key);
      } catch (const Error& e) {
        context_.fail(key, std::string("a part of the body: ") + e.what());
      }
      if (part_text.empty()) continue;
      if (!body.empty()) body += "\n\n";
      body += part_text;
    }
    if (!body.empty()) {
      if (!doc.text.empty()) doc.text += "\n";
      doc.text += body;
    }
    while (!doc.text.empty() && text::is_space(doc.text.back())) doc.text.pop_back();

    const auto add = [&doc](const char* name, const std::string& value) {
      if (!value.empty()) doc.metadata.emplace_back(name, value);
    };
    add("from", from);
    add("to", to);
    add("cc", cc);
    add("date", date);
    add("message_id", utf8_of(g_mime_message_get_message_id(message)));
    add("attachments", std::to_string(parts.attachments.size()));
    out_.push_back(std::move(doc));

    // Attachments after the message, in the order they appear, each under a name unique within the message.
    std::set<std::string> names;
    int messages = 0;
    int files = 0;
    for (GMimeObject* part : parts.attachments) {
      if (GMIME_IS_MESSAGE_PART(part)) {
        GMimeMessage* inner = g_mime_message_part_get_message(GMIME_MESSAGE_PART(part));  // owned by the part
        const std::string inner_key = key + "!" + unique_name(names, std::to_string(++messages));
        if (inner == nullptr) continue;
        if (context_.depth() + depth + 1 > context_.limits().max_depth) {
          context_.warn(inner_key,
                        "nested more than " + std::to_string(context_.limits().max_depth) + " levels deep: not read");
          continue;
        }
        read(inner, inner_key, depth + 1);
        continue;
      }
      read_attachment(GMIME_PART(part), key, unique_name(names, file_name(GMIME_PART(part), ++files)));
    }
  }

 private:
  struct Parts {
    std::vector<GMimeObject*> text;         // text/plain and text/html parts that are the message's body
    std::vector<GMimeObject*> attachments;  // files and attached messages (GMimeMessagePart)
  };

  // Sorts the parts under `object` into body text and attachments, in order.
  void collect(GMimeObject* object, const std::string& key, int depth, Parts& parts) {
    if (GMIME_IS_MESSAGE_PART(object)) {
      parts.attachments.push_back(object);
      return;
    }
    if (GMIME_IS_PART(object)) {
      (is_attachment(GMIME_PART(object)) ? parts.attachments : parts.text).push_back(object);
      return;
    }
    if (!GMIME_IS_MULTIPART(object)) return;
    if (depth >= kMaxPartDepth) {
      context_.warn(key, "MIME parts nested more than " + std::to_string(kMaxPartDepth) + " levels deep: not read");
      return;
    }
    GMimeMultipart* multipart = GMIME_MULTIPART(object);
    const int count = g_mime_multipart_get_count(multipart);
    if (GMIME_IS_MULTIPART_ENCRYPTED(object)) {
      context_.warn(key, "an encrypted part (PGP or S/MIME) is not read");
      return;
    }
    if (GMIME_IS_MULTIPART_SIGNED(object)) {
      // The signed content, without the signature.
      if (count > 0) collect(g_mime_multipart_get_part(multipart, 0), key, depth + 1, parts);
      return;
    }
    if (is_type(object, "multipart", "alternative")) {
      // The same content in several forms, plainest first (RFC 2046): the plain text when there is one (HTML
      // rendered to text is no better and often worse), otherwise the last, richest form.
      GMimeObject* chosen = nullptr;
      for (int i = 0; i < count && chosen == nullptr; ++i) {
        GMimeObject* child = g_mime_multipart_get_part(multipart, i);
        if (GMIME_IS_PART(child) && is_type(child, "text", "plain") && !is_attachment(GMIME_PART(child)))
          chosen = child;
      }
      if (chosen == nullptr && count > 0) chosen = g_mime_multipart_get_part(multipart, count - 1);
      if (chosen != nullptr) collect(chosen, key, depth + 1, parts);
      return;
    }
    // mixed, related, report, digest...: every part, in order.
    for (int i = 0; i < count; ++i) collect(g_mime_multipart_get_part(multipart, i), key, depth + 1, parts);
  }

  // The text of a body part in UTF-8; HTML rendered to its visible text.
  std::string text_of(GMimeTextPart* part, const std::string& key) {
    GMimeObject* object = GMIME_OBJECT(part);
    const char* charset = g_mime_object_get_content_type_parameter(object, "charset");
    const bool html = is_type(object, "text", "html");
    if (html && charset == nullptr) {
      // Without a MIME charset the page's own <meta charset> (or the HTML reader's guess) decides.
      std::string warning;
      std::string rendered = html_text(decoded_content(GMIME_PART(part)), nullptr, key, false, &warning);
      if (!warning.empty()) context_.warn(key, "the HTML body " + warning);
      return std::string(text::trim(rendered));
    }
    std::string body;
    if (charset == nullptr || is_ascii_or_utf8(charset)) {
      // Taken as they are: "us-ascii" text often holds UTF-8 or Latin-1 all the same (GMime's conversion would
      // drop every byte above 127), and UTF-8 needs no conversion.
      body = decoded_content(GMIME_PART(part));
    } else {
      // GMime converts from the declared charset to UTF-8; from one iconv does not know, the bytes come as they are.
      const GCharPtr converted(g_mime_text_part_get_text(part));
      if (converted) body = converted.get();
    }
    body = std::string(text::strip_bom(body));
    if (const std::size_t bad = tokenizer::unicode::find_invalid_utf8(body); bad != std::string::npos) {
      context_.warn(key, "a text part is not valid UTF-8 (byte " + std::to_string(bad) + ") and " +
                             (charset != nullptr ? "its charset \"" + utf8_of(charset) + "\" does not fit"
                                                 : "declares no charset") +
                             ": read as Windows-1252 (Latin-1)");
      body = text::windows1252_to_utf8(body);
    }
    if (html) return std::string(text::trim(html_text(body, nullptr, key, true)));
    // Mail travels with CRLF line endings (RFC 5322); the header lines above end in LF, and so does the body.
    body = lf_line_endings(body);
    if (from_mbox_) unescape_from_lines(body);
    return std::string(text::trim(body));
  }

  static bool is_ascii_or_utf8(std::string_view charset) {
    const std::string name = text::lowercase(text::trim(charset));
    return name == "us-ascii" || name == "ascii" || name == "ansi_x3.4-1968" || name == "utf-8" || name == "utf8";
  }

  // The attachment's file name without folders ("..\\x.txt" names nothing outside), or "attachment-N" for the
  // Nth file attached.
  static std::string file_name(GMimePart* part, int number) {
    std::string name = utf8_of(g_mime_part_get_filename(part));
    const std::size_t slash = name.find_last_of("/\\");
    if (slash != std::string::npos) name.erase(0, slash + 1);
    name = std::string(text::trim(name));
    if (name.empty() || name == "." || name == "..") name = "attachment-" + std::to_string(number);
    return name;
  }

  // "notes.txt", then "notes (2).txt", "notes (3).txt": the number goes before the extension, which decides
  // how the attachment is read.
  static std::string unique_name(std::set<std::string>& names, const std::string& name) {
    if (names.insert(name).second) return name;
    const std::size_t dot = name.rfind('.');
    const bool has_extension = dot != std::string::npos && dot > 0;
    const std::string stem = has_extension ? name.substr(0, dot) : name;
    const std::string extension = has_extension ? name.substr(dot) : "";
    for (int n = 2;; ++n) {
      std::string candidate = stem + " (" + std::to_string(n) + ")" + extension;
      if (names.insert(candidate).second) return candidate;
    }
  }

  void read_attachment(GMimePart* part, const std::string& message_key, const std::string& name) {
    const std::string key = message_key + "!" + name;
    std::string data;
    try {
      data = decoded_content(part);
    } catch (const Error& e) {
      context_.fail(key, e.what());
      return;
    }
    // Decoding never makes a part larger than the message, but what attachments expand to counts against the
    // file's limits as an archive's members do.
    context_.account_expanded(data.size());
    // A text file's charset is in the part's header, where the text readers would not see it: they get UTF-8.
    // (Not HTML or XML, which name their charset inside, and would decode converted bytes a second time.)
    GMimeObject* object = GMIME_OBJECT(part);
    const char* charset = g_mime_object_get_content_type_parameter(object, "charset");
    if (GMIME_IS_TEXT_PART(part) && charset != nullptr && !is_ascii_or_utf8(charset) &&
        !is_type(object, "text", "html") && !is_type(object, "text", "xml")) {
      const GCharPtr converted(g_mime_text_part_get_text(GMIME_TEXT_PART(part)));
      if (converted && tokenizer::unicode::find_invalid_utf8(converted.get()) == std::string_view::npos) {
        data = converted.get();
      }
    }
    context_.read_nested({data, name, key}, out_);
  }

  ExtractContext& context_;
  std::vector<ExtractedDocument>& out_;
  bool from_mbox_;
};

// A stream over a copy of the bytes (GMime's memory streams own their buffer; this copy is the only one made).
GObjectPtr<GMimeParser> parser_for(std::string_view bytes, GMimeFormat format) {
  if (bytes.size() > G_MAXUINT) {
    throw Error(ErrorCode::kUnsupported, "larger than 4 GiB (" + std::to_string(bytes.size()) + " bytes): not read");
  }
  init_gmime();
  const GObjectPtr<GMimeStream> stream(g_mime_stream_mem_new_with_buffer(bytes.data(), bytes.size()));
  GObjectPtr<GMimeParser> parser(g_mime_parser_new_with_stream(stream.get()));  // holds its own reference
  g_mime_parser_set_format(parser.get(), format);
  return parser;
}

// GMime's parser takes time that grows with the square of a message's nesting (60,000 nested multiparts, 4 MB,
// took 3.8 s), so a message declaring more MIME boundaries than any real one is refused before it is parsed.
constexpr std::size_t kMaxBoundaries = 10000;

std::size_t count_boundaries(std::string_view message) {
  std::size_t count = 0;
  for (std::size_t at = 0; (at = message.find("oundary=", at)) != std::string_view::npos; at += 8) {
    if (at > 0 && (message[at - 1] == 'b' || message[at - 1] == 'B')) ++count;
  }
  return count;
}

// Each message of the file (a mailbox's, separated by "From " lines) within kMaxBoundaries.
void check_boundaries(std::string_view bytes, bool mailbox) {
  std::size_t start = 0;
  while (start < bytes.size()) {
    std::size_t end = mailbox ? bytes.find("\nFrom ", start) : std::string_view::npos;
    end = end == std::string_view::npos ? bytes.size() : end + 1;
    if (count_boundaries(bytes.substr(start, end - start)) > kMaxBoundaries) {
      throw Error(ErrorCode::kInvalidInput, "a message declares more than " + std::to_string(kMaxBoundaries) +
                                                " MIME boundaries (nested parts): not read");
    }
    start = end;
  }
}

void extract_email(const ExtractInput& input, ExtractContext& context, std::vector<ExtractedDocument>& out) {
  if (text::trim(input.bytes).empty()) {
    ExtractedDocument empty;
    empty.key = input.key;
    out.push_back(std::move(empty));
    return;
  }
  check_boundaries(input.bytes, false);
  const GObjectPtr<GMimeParser> parser = parser_for(input.bytes, GMIME_FORMAT_MESSAGE);
  const GObjectPtr<GMimeMessage> message(g_mime_parser_construct_message(parser.get(), nullptr));
  if (!message) throw Error(ErrorCode::kParse, "not an e-mail message (no headers found)");
  MessageReader(context, out, false).read(message.get(), input.key, 0);
}

void extract_mbox(const ExtractInput& input, ExtractContext& context, std::vector<ExtractedDocument>& out) {
  if (text::trim(input.bytes).empty()) return;  // an empty mailbox
  check_boundaries(input.bytes, true);
  const GObjectPtr<GMimeParser> parser = parser_for(input.bytes, GMIME_FORMAT_MBOX);
  MessageReader reader(context, out, true);
  std::size_t number = 0;
  while (g_mime_parser_eos(parser.get()) == FALSE) {
    const GObjectPtr<GMimeMessage> message(g_mime_parser_construct_message(parser.get(), nullptr));
    if (!message) break;
    reader.read(message.get(), input.key + "!" + std::to_string(++number), 0);
  }
  if (number == 0) throw Error(ErrorCode::kParse, "not an mbox mailbox (it does not start with a \"From \" line)");
}

}  // namespace email_reader
}  // namespace

// Text-like, but GMime takes the bytes as they are: each part declares its own charset.
const FileFormat kEmailFormat{
    .name = "email",
    .label = "e-mail",
    .extensions = {".eml"},
    .sniff = email_reader::sniff_email,
    .text_input = false,
    .binary = false,
    .extract = email_reader::extract_email,
};

const FileFormat kMboxFormat{
    .name = "mbox",
    .label = "mailbox (mbox)",
    .extensions = {".mbox", ".mbx"},
    .sniff = email_reader::sniff_mbox,
    .text_input = false,
    .binary = false,
    .extract = email_reader::extract_mbox,
};

}  // namespace sieve::search
