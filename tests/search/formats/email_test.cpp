// The e-mail and mbox readers (src/search/formats/email.cpp): headers and bodies in UTF-8 whatever their
// encoding, which body a multipart message gives, attachments read as files of their own, attached messages,
// mailboxes, and input that is not mail.
#include <glib.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "search/formats/format.hpp"
#include "search/formats/formats.hpp"
#include "search/formats/text_util.hpp"
#include "sieve/error.hpp"

namespace sieve::search {

namespace {
namespace email_test {

struct Read {
  std::vector<ExtractedDocument> documents;
  std::vector<std::string> warnings;
  std::vector<std::string> errors;
  std::map<std::string, std::size_t> skipped;
};

// Reads bytes as formats.cpp would once it lists these formats: the reader, then each document's last checks.
// Attachments go through the context's detection, which (in this test's snapshot of formats.cpp) knows text,
// Markdown, HTML and JSONL.
Read read(const FileFormat& format, std::string_view bytes, const std::string& key, const ExtractLimits& limits = {}) {
  ExtractContext context(limits, bytes.size());
  Read result;
  format.extract({bytes, key.substr(key.find_last_of('/') + 1), key}, context, result.documents);
  for (auto& doc : result.documents) text::finish_document(doc, doc.key);
  result.warnings = context.warnings();
  result.errors = context.errors();
  result.skipped = context.skipped();
  return result;
}

Read read_eml(std::string_view bytes, const ExtractLimits& limits = {}) {
  return read(kEmailFormat, bytes, "/m/x.eml", limits);
}

ExtractedDocument read_one(std::string_view bytes) {
  Read result = read_eml(bytes);
  EXPECT_EQ(result.documents.size(), 1U);
  EXPECT_TRUE(result.errors.empty()) << result.errors.front();
  return result.documents.empty() ? ExtractedDocument{} : std::move(result.documents.front());
}

std::string error_of(const FileFormat& format, std::string_view bytes, ErrorCode code) {
  try {
    read(format, bytes, "/m/bad");
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return {};
}

std::string metadata(const ExtractedDocument& doc, std::string_view name) {
  for (const auto& [key, value] : doc.metadata) {
    if (key == name) return value;
  }
  return "(none)";
}

std::vector<std::string> keys(const Read& result) {
  std::vector<std::string> out;
  for (const auto& doc : result.documents) out.push_back(doc.key);
  return out;
}

std::string base64(std::string_view data) {
  gchar* encoded = g_base64_encode(reinterpret_cast<const guchar*>(data.data()), data.size());
  const std::string_view all(encoded);
  // Lines of 76 characters, as mail programs write them.
  std::string out;
  for (std::size_t at = 0; at < all.size(); at += 76) {
    if (at > 0) out += '\n';
    out.append(all.substr(at, 76));
  }
  g_free(encoded);
  return out;
}

// A MIME part: headers, a blank line, the body.
std::string part(std::string_view headers, std::string_view body) {
  return std::string(headers) + "\n\n" + std::string(body) + "\n";
}

std::string multipart(std::string_view subtype, std::string_view boundary, const std::vector<std::string>& parts) {
  std::string out = "Content-Type: multipart/" + std::string(subtype) + "; boundary=\"" + std::string(boundary) +
                    "\"\n\nThis is a multi-part message in MIME format.\n";
  for (const std::string& p : parts) out += "--" + std::string(boundary) + "\n" + p;
  return out + "--" + std::string(boundary) + "--\n";
}

constexpr std::string_view kHeaders =
    "Return-Path: <andre@example.org>\n"
    "Received: from mail.example.org by mx.example.net; Wed, 01 May 2024 12:00:05 +0200\n"
    "From: =?ISO-8859-1?Q?Andr=E9_Dupr=E9?= <andre@example.org>\n"
    "To: bob@example.net, \"Carol C.\" <carol@example.net>\n"
    "Cc: =?UTF-8?Q?J=C3=BCrgen?= <juergen@example.de>\n"
    "Subject: =?UTF-8?B?R3LDvMOfZSBhdXMgS8O2bG4=?= =?UTF-8?Q?_und_Z=C3=BCrich?=\n"
    "Date: Wed, 01 May 2024 12:00:00 +0200\n"
    "Message-ID: <20240501100000.1234@example.org>\n"
    "MIME-Version: 1.0\n";

// --- detection -----------------------------------------------------------------------------------------------

TEST(EmailFormat, SniffsMessages) {
  EXPECT_TRUE(kEmailFormat.sniff(std::string(kHeaders) + "Content-Type: text/plain\n\nbody\n"));
  EXPECT_TRUE(kEmailFormat.sniff("From: a@example.org\r\nTo: b@example.org\r\nSubject: hi\r\n\r\nbody\r\n"));
  EXPECT_TRUE(kEmailFormat.sniff("X-Mozilla-Status: 0001\nX-Mozilla-Status2: 00000000\nFrom: a@b.c\n\nbody\n"));
  EXPECT_TRUE(kEmailFormat.sniff("Subject: folded\n over two lines\nFrom: a@b.c\n\nbody\n"));
  // Delivered mail whose From lies past the first bytes: a Received chain says it is mail all the same.
  std::string received = "Received: from a by b;\n";
  while (received.size() < kSniffBytes) received += "Received: from relay.example.org by mx.example.net; Wed, 1 May\n";
  EXPECT_TRUE(kEmailFormat.sniff(received.substr(0, kSniffBytes)));
  // Notes and other text that only start like mail.
  EXPECT_FALSE(kEmailFormat.sniff("Subject: groceries\n\nmilk, eggs\n"));
  EXPECT_FALSE(kEmailFormat.sniff("Date: 2024-05-01\nAuthor: me\n\nnotes\n"));
  EXPECT_FALSE(kEmailFormat.sniff("From: the start of a story\nit was a dark night\n\n"));
  EXPECT_FALSE(kEmailFormat.sniff("From: a@b.c\nTo: d@e.f\n"));  // all of it headers, no body: not mail
  EXPECT_FALSE(kEmailFormat.sniff("Title: x\nFrom: a@b.c\n\nbody\n"));
  EXPECT_FALSE(kEmailFormat.sniff("From a@b.c Thu May  2 10:00:00 2024\nFrom: a@b.c\n\nbody\n"));  // an mbox
}

TEST(EmailFormat, SniffsMailboxes) {
  EXPECT_TRUE(kMboxFormat.sniff("From MAILER-DAEMON Fri Jul  8 12:08:34 2011\nReturn-Path: <a@b.c>\n"));
  EXPECT_TRUE(kMboxFormat.sniff("From a@b.c Thu May  2 10:00:00 2024\r\nFrom: a@b.c\r\n"));
  EXPECT_TRUE(kMboxFormat.sniff("From - Sat Jan 03 18:42:54 2015\nX-Mozilla-Status: 0001\n"));
  EXPECT_FALSE(kMboxFormat.sniff("From here to there we walked 12:00 in 2024\nand then\n"));
  EXPECT_FALSE(kMboxFormat.sniff("From a@b.c\nFrom: a@b.c\n"));  // no date
  EXPECT_FALSE(kMboxFormat.sniff("From: a@b.c\nSubject: x\n\nbody\n"));
  EXPECT_EQ(kMboxFormat.extensions, (std::vector<std::string_view>{".mbox", ".mbx"}));
  EXPECT_EQ(kEmailFormat.extensions, (std::vector<std::string_view>{".eml"}));
  EXPECT_FALSE(kEmailFormat.binary || kEmailFormat.text_input || kMboxFormat.binary || kMboxFormat.text_input);
}

// --- messages ------------------------------------------------------------------------------------------------

TEST(EmailFormat, HeadersAreDecodedAndTheBodyConverted) {
  // RFC 2047 encoded words in the headers; a quoted-printable ISO-8859-1 body with a soft line break.
  const std::string eml = std::string(kHeaders) +
                          "Content-Type: text/plain; charset=ISO-8859-1\n"
                          "Content-Transfer-Encoding: quoted-printable\n\n"
                          "Caf=E9 au lait, tr=E8s =\nbien.\n\n=A9 2024\n";
  const ExtractedDocument doc = read_one(eml);
  EXPECT_EQ(doc.key, "/m/x.eml");
  EXPECT_EQ(doc.title, "Grüße aus Köln und Zürich");
  EXPECT_EQ(doc.text,
            "From: André Dupré <andre@example.org>\n"
            "To: bob@example.net, \"Carol C.\" <carol@example.net>\n"
            "Cc: Jürgen <juergen@example.de>\n"
            "Subject: Grüße aus Köln und Zürich\n"
            "Date: Wed, 01 May 2024 12:00:00 +0200\n"
            "\n"
            "Café au lait, très bien.\n\n© 2024");
  EXPECT_EQ(doc.metadata, (std::vector<std::pair<std::string, std::string>>{
                              {"attachments", "0"},
                              {"cc", "Jürgen <juergen@example.de>"},
                              {"date", "2024-05-01T10:00:00Z"},  // 12:00 at UTC+2
                              {"from", "André Dupré <andre@example.org>"},
                              {"message_id", "20240501100000.1234@example.org"},
                              {"to", "bob@example.net, \"Carol C.\" <carol@example.net>"},
                          }));
  EXPECT_TRUE(doc.sections.empty());
}

TEST(EmailFormat, CrlfLineEndingsBecomeLf) {
  // As mail travels (RFC 5322), and as Outlook saves .eml files.
  const ExtractedDocument doc = read_one(
      "From: a@example.org\r\nSubject: lines\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n"
      "one\r\ntwo\r\n\r\nthree, with a lone \r inside\r\n");
  EXPECT_EQ(doc.text, "From: a@example.org\nSubject: lines\n\none\ntwo\n\nthree, with a lone \r inside");
}

TEST(EmailFormat, PlainTextIsPreferredToItsHtmlAlternative) {
  const std::string eml =
      "From: a@example.org\nSubject: both\nMIME-Version: 1.0\n" +
      multipart(
          "alternative", "alt",
          {part("Content-Type: text/plain; charset=utf-8", "The plain words."),
           part("Content-Type: text/html; charset=utf-8", "<html><body><p>The <b>rich</b> words.</p></body></html>")});
  const ExtractedDocument doc = read_one(eml);
  EXPECT_EQ(doc.text, "From: a@example.org\nSubject: both\n\nThe plain words.");
  EXPECT_EQ(metadata(doc, "attachments"), "0");
}

TEST(EmailFormat, HtmlOnlyIsReadAsItsVisibleText) {
  const std::string eml =
      "From: a@example.org\nSubject: news\nMIME-Version: 1.0\n"
      "Content-Type: text/html; charset=windows-1252\n"
      "Content-Transfer-Encoding: quoted-printable\n\n"
      "<html><head><title>ignored</title><style>p{}</style></head><body>"
      "<h1>Caf=E9 =80 news</h1><p>First paragraph.</p><script>x()</script>"
      "<p>Second.</p></body></html>\n";
  const ExtractedDocument doc = read_one(eml);
  EXPECT_EQ(doc.text, "From: a@example.org\nSubject: news\n\nCafé € news\n\nFirst paragraph.\n\nSecond.");
  EXPECT_EQ(doc.title, "news");  // the Subject, not the page's <title>
}

TEST(EmailFormat, HtmlWithoutACharsetFollowsItsMetaTag) {
  const std::string eml =
      "From: a@example.org\nSubject: meta\nContent-Type: text/html\n\n"
      "<html><head><meta charset=\"iso-8859-1\"></head><body><p>d\xE9j\xE0 vu</p></body></html>\n";
  EXPECT_EQ(read_one(eml).text, "From: a@example.org\nSubject: meta\n\ndéjà vu");
}

TEST(EmailFormat, TextNotInItsCharsetIsReadAsWindows1252WithAWarning) {
  // No charset at all, and "us-ascii" over Latin-1 bytes (GMime's conversion would drop them).
  for (const std::string type : {"text/plain", "text/plain; charset=us-ascii"}) {
    const Read result = read_eml("From: a@example.org\nContent-Type: " + type + "\n\ncaf\xE9 cr\xE8me\n");
    ASSERT_EQ(result.documents.size(), 1U);
    EXPECT_EQ(result.documents[0].text, "From: a@example.org\n\ncafé crème");
    ASSERT_EQ(result.warnings.size(), 1U);
    EXPECT_NE(result.warnings[0].find("/m/x.eml: a text part is not valid UTF-8 (byte 3)"), std::string::npos)
        << result.warnings[0];
  }
  // UTF-8 labelled us-ascii is simply UTF-8.
  const Read utf8 = read_eml("From: a@example.org\nContent-Type: text/plain; charset=us-ascii\n\ncaf\xC3\xA9\n");
  EXPECT_EQ(utf8.documents.at(0).text, "From: a@example.org\n\ncafé");
  EXPECT_TRUE(utf8.warnings.empty());
  // A raw 8-bit Latin-1 Subject (against the rules, common all the same).
  EXPECT_EQ(read_one("From: a@example.org\nSubject: r\xE9sum\xE9\n\nx\n").title, "résumé");
}

TEST(EmailFormat, AttachmentsAreDocumentsOfTheirOwn) {
  const std::string eml =
      std::string(kHeaders) +
      multipart("mixed", "mix",
                {part("Content-Type: text/plain; charset=utf-8", "See the attached notes."),
                 part("Content-Type: text/plain; name=\"notes.txt\"\n"
                      "Content-Disposition: attachment; filename=\"notes.txt\"\n"
                      "Content-Transfer-Encoding: base64",
                      base64("Meeting notes: bring the budget.\n")),
                 part("Content-Type: text/html; charset=utf-8\n"
                      "Content-Disposition: attachment; filename=\"page.html\"\n"
                      "Content-Transfer-Encoding: base64",
                      base64("<html><head><title>Attached page</title></head><body><p>Page body.</p></body></html>")),
                 // The same name again, in a folder: the folder goes, the name gets a number.
                 part("Content-Type: application/octet-stream\n"
                      "Content-Disposition: attachment; filename=\"old/notes.txt\"\n"
                      "Content-Transfer-Encoding: base64",
                      base64("Older notes.\n")),
                 // An unnamed image: passed over as binary.
                 part("Content-Type: image/png\nContent-Transfer-Encoding: base64",
                      base64(std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\1", 20)))});
  const Read result = read_eml(eml);
  EXPECT_EQ(keys(result), (std::vector<std::string>{"/m/x.eml", "/m/x.eml!notes.txt", "/m/x.eml!page.html",
                                                    "/m/x.eml!notes (2).txt"}));
  ASSERT_EQ(result.documents.size(), 4U);
  EXPECT_TRUE(result.documents[0].text.ends_with("\n\nSee the attached notes.")) << result.documents[0].text;
  EXPECT_EQ(metadata(result.documents[0], "attachments"), "4");
  EXPECT_EQ(result.documents[1].text, "Meeting notes: bring the budget.\n");
  EXPECT_EQ(result.documents[2].title, "Attached page");
  EXPECT_EQ(result.documents[2].text, "Page body.");
  EXPECT_EQ(result.documents[3].text, "Older notes.\n");
  EXPECT_EQ(result.skipped, (std::map<std::string, std::size_t>{{"binary file", 1}}));
  EXPECT_TRUE(result.errors.empty());
  EXPECT_TRUE(result.warnings.empty());
}

TEST(EmailFormat, TextAttachmentsAreConvertedFromTheirCharset) {
  // The charset is in the part's header, which the text reader does not see: it gets UTF-8, and says nothing.
  const std::string eml =
      "From: a@example.org\nMIME-Version: 1.0\n" + multipart("mixed", "b",
                                                             {part("Content-Type: text/plain", "body"),
                                                              part("Content-Type: text/plain; charset=koi8-r\n"
                                                                   "Content-Disposition: attachment; filename=ru.txt",
                                                                   "\xF0\xD2\xC9\xD7\xC5\xD4"),
                                                              part("Content-Type: text/plain; charset=iso-8859-1\n"
                                                                   "Content-Disposition: attachment; filename=fr.txt",
                                                                   "\xE9t\xE9")});
  const Read result = read_eml(eml);
  ASSERT_EQ(result.documents.size(), 3U);
  EXPECT_EQ(result.documents[1].text, "Привет");
  EXPECT_EQ(result.documents[2].text, "été");
  EXPECT_TRUE(result.warnings.empty());
}

TEST(EmailFormat, AttachmentsCountAgainstTheFileLimits) {
  const std::string eml = "From: a@example.org\nMIME-Version: 1.0\n" +
                          multipart("mixed", "b",
                                    {part("Content-Type: text/plain", "body"),
                                     part("Content-Type: text/plain\nContent-Disposition: attachment; filename=a.txt\n"
                                          "Content-Transfer-Encoding: base64",
                                          base64(std::string(2000, 'a')))});
  ExtractLimits limits;
  limits.max_expanded_bytes = 1000;
  try {
    read_eml(eml, limits);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidInput);
  }
}

TEST(EmailFormat, AttachedMessagesAreMessagesToo) {
  const std::string inner = "From: inner@example.org\nSubject: the original\nMIME-Version: 1.0\n" +
                            multipart("mixed", "in",
                                      {part("Content-Type: text/plain", "Original text."),
                                       part("Content-Type: text/plain\nContent-Disposition: attachment; "
                                            "filename=inner.txt",
                                            "Inner attachment.")});
  const std::string eml =
      "From: outer@example.org\nSubject: Fwd: the original\nMIME-Version: 1.0\n" +
      multipart("mixed", "out",
                {part("Content-Type: text/plain", "Forwarding this."), part("Content-Type: message/rfc822", inner)});
  const Read result = read_eml(eml);
  EXPECT_EQ(keys(result), (std::vector<std::string>{"/m/x.eml", "/m/x.eml!1", "/m/x.eml!1!inner.txt"}));
  ASSERT_EQ(result.documents.size(), 3U);
  EXPECT_EQ(result.documents[0].text, "From: outer@example.org\nSubject: Fwd: the original\n\nForwarding this.");
  EXPECT_EQ(metadata(result.documents[0], "attachments"), "1");
  EXPECT_EQ(result.documents[1].title, "the original");
  EXPECT_EQ(result.documents[1].text, "From: inner@example.org\nSubject: the original\n\nOriginal text.");
  // The line break before a boundary belongs to the boundary (RFC 2046), not to the part.
  EXPECT_EQ(result.documents[2].text, "Inner attachment.");
}

TEST(EmailFormat, AttachedMessagesStopAtTheNestingLimit) {
  std::string eml = "From: level0@example.org\nSubject: level 0\n\nbottom\n";
  for (int level = 1; level <= 6; ++level) {
    eml = "From: level" + std::to_string(level) + "@example.org\nSubject: level " + std::to_string(level) +
          "\nMIME-Version: 1.0\nContent-Type: message/rfc822\n\n" + eml;
  }
  const Read result = read_eml(eml);
  // The file and 4 levels within it (ExtractLimits::max_depth).
  EXPECT_EQ(keys(result),
            (std::vector<std::string>{"/m/x.eml", "/m/x.eml!1", "/m/x.eml!1!1", "/m/x.eml!1!1!1", "/m/x.eml!1!1!1!1"}));
  EXPECT_EQ(result.warnings, std::vector<std::string>{"/m/x.eml!1!1!1!1!1: nested more than 4 levels deep: not read"});
}

TEST(EmailFormat, SignedMessagesGiveTheirContentWithoutTheSignature) {
  const std::string eml = "From: a@example.org\nMIME-Version: 1.0\n" +
                          multipart("signed; protocol=\"application/pgp-signature\"; micalg=pgp-sha256", "sig",
                                    {part("Content-Type: text/plain", "Signed words."),
                                     part("Content-Type: application/pgp-signature; name=signature.asc",
                                          "-----BEGIN PGP SIGNATURE-----\nabc\n-----END PGP SIGNATURE-----")});
  const Read result = read_eml(eml);
  EXPECT_EQ(keys(result), std::vector<std::string>{"/m/x.eml"});
  EXPECT_EQ(result.documents.at(0).text, "From: a@example.org\n\nSigned words.");
}

// --- mailboxes -----------------------------------------------------------------------------------------------

TEST(EmailFormat, MailboxMessagesAreNumbered) {
  const std::string mbox =
      "From alice@example.org Wed May  1 10:00:00 2024\n"
      "From: Alice <alice@example.org>\nSubject: first\nDate: Wed, 01 May 2024 10:00:00 +0000\n\n"
      "Message one.\n\n"
      "From bob@example.org Thu May  2 11:00:00 2024\n"
      "From: Bob <bob@example.org>\nSubject: second\nDate: Thu, 02 May 2024 11:00:00 +0000\n\n"
      "Message two starts.\n"
      ">From here on the line was escaped by the mailbox.\n"
      ">>From this one twice.\n"
      "> quoted, and left alone\n\n"
      "From carol@example.org Fri May  3 12:00:00 2024\n"
      "From: Carol <carol@example.org>\nSubject: third\nMIME-Version: 1.0\n" +
      multipart("mixed", "c",
                {part("Content-Type: text/plain", "Message three."),
                 part("Content-Type: text/plain\nContent-Disposition: attachment; filename=list.txt", "a list")});
  const Read result = read(kMboxFormat, mbox, "/m/box.mbox");
  EXPECT_EQ(keys(result),
            (std::vector<std::string>{"/m/box.mbox!1", "/m/box.mbox!2", "/m/box.mbox!3", "/m/box.mbox!3!list.txt"}));
  ASSERT_EQ(result.documents.size(), 4U);
  EXPECT_EQ(result.documents[0].text,
            "From: Alice <alice@example.org>\nSubject: first\nDate: Wed, 01 May 2024 10:00:00 +0000\n\nMessage one.");
  EXPECT_EQ(result.documents[1].title, "second");
  EXPECT_EQ(result.documents[1].text,
            "From: Bob <bob@example.org>\nSubject: second\nDate: Thu, 02 May 2024 11:00:00 +0000\n\n"
            "Message two starts.\nFrom here on the line was escaped by the mailbox.\n>From this one twice.\n"
            "> quoted, and left alone");
  EXPECT_EQ(metadata(result.documents[1], "date"), "2024-05-02T11:00:00Z");
  EXPECT_EQ(result.documents[2].text, "From: Carol <carol@example.org>\nSubject: third\n\nMessage three.");
  EXPECT_EQ(result.documents[3].text, "a list");
}

// --- not mail ------------------------------------------------------------------------------------------------

TEST(EmailFormat, EmptyInput) {
  const Read eml = read_eml("");
  ASSERT_EQ(eml.documents.size(), 1U);
  EXPECT_EQ(eml.documents[0].text, "");
  EXPECT_TRUE(read(kMboxFormat, "\n\n", "/m/empty.mbox").documents.empty());
}

TEST(EmailFormat, GarbageIsAClearErrorOrPlainText) {
  EXPECT_EQ(error_of(kEmailFormat, "just a line of text\nand another\n", ErrorCode::kParse),
            "not an e-mail message (no headers found)");
  EXPECT_EQ(error_of(kMboxFormat, "just a line of text\nand another\n", ErrorCode::kParse),
            "not an mbox mailbox (it does not start with a \"From \" line)");
  // Bytes of every value, at random: an error or documents that pass the last checks, never a crash.
  std::string noise;
  unsigned state = 12345;
  for (int i = 0; i < 20000; ++i) {
    state = state * 1103515245U + 12345U;
    noise += static_cast<char>(state >> 16);
  }
  for (const std::string& bytes : {noise, "From: a@b.c\n" + noise, "From x Thu May  2 10:00:00 2024\n" + noise,
                                   "From: a@b.c\nContent-Type: multipart/mixed; boundary=x\n\n--x\n" + noise}) {
    for (const FileFormat* format : {&kEmailFormat, &kMboxFormat}) {
      try {
        read(*format, bytes, "/m/noise");
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::kParse) << e.what();
      }
    }
  }
}

TEST(EmailFormat, DeeplyNestedPartsAreRefusedBeforeParsing) {
  // 10,001 multiparts, each inside the last: GMime would take time growing with the square of the depth.
  std::string nested = "From: a@b.c\nSubject: deep\n";
  for (int i = 0; i <= 10000; ++i) {
    nested += "Content-Type: multipart/mixed; boundary=b" + std::to_string(i) + "\n\n--b" + std::to_string(i) + "\n";
  }
  nested += "Content-Type: text/plain\n\ninnermost\n";
  EXPECT_EQ(error_of(kEmailFormat, nested, ErrorCode::kInvalidInput),
            "a message declares more than 10000 MIME boundaries (nested parts): not read");
  EXPECT_EQ(error_of(kMboxFormat, "From x Thu May  2 10:00:00 2024\n" + nested, ErrorCode::kInvalidInput),
            "a message declares more than 10000 MIME boundaries (nested parts): not read");
  // A mailbox of many messages with a boundary each is not one deep message.
  std::string mailbox;
  for (int i = 0; i < 10001; ++i) {
    mailbox +=
        "From x Thu May  2 10:00:00 2024\nFrom: a@b.c\nContent-Type: multipart/mixed; boundary=m\n\n--m\n"
        "Content-Type: text/plain\n\nhello\n--m--\n\n";
  }
  EXPECT_EQ(read(kMboxFormat, mailbox, "/m/box.mbox").documents.size(), 10001U);
}

}  // namespace email_test
}  // namespace
}  // namespace sieve::search
