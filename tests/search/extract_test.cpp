#include "search/extract.hpp"
#include "search/formats/formats.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "sieve/error.hpp"

namespace sieve::search {
namespace {

using Metadata = std::vector<std::pair<std::string, std::string>>;

ExtractedDocument extract_one(std::string_view content, std::string_view format, const std::string& key = "doc") {
  auto documents = extract_documents(content, format, key);
  EXPECT_EQ(documents.size(), 1U);
  return documents.empty() ? ExtractedDocument{} : std::move(documents.front());
}

// The error extract_documents throws, checked for its code; the message for further checks.
std::string error_message(std::string_view content, std::string_view format, ErrorCode code,
                          const std::string& key = "in.jsonl") {
  try {
    extract_documents(content, format, key);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error for: " << content;
  return {};
}

std::string detected(std::string_view name, std::string_view head) {
  const Detection detection = detect_format(name, head);
  return detection.format != nullptr ? std::string(detection.format->name) : "skip: " + detection.skip_reason;
}

TEST(Extract, FormatByNameAndContent) {
  EXPECT_EQ(detected("a/notes.txt", "x"), "text");
  EXPECT_EQ(detected("notes.TEXT", "x"), "text");
  EXPECT_EQ(detected("README.md", "x"), "markdown");
  EXPECT_EQ(detected("doc.Markdown", "x"), "markdown");
  EXPECT_EQ(detected("page.html", "x"), "html");
  EXPECT_EQ(detected("PAGE.HTM", "x"), "html");
  EXPECT_EQ(detected("page.xhtml", "x"), "html");
  EXPECT_EQ(detected("data.jsonl", "x"), "jsonl");
  EXPECT_EQ(detected("data.NDJSON", "x"), "jsonl");
  // Without a known ending the content decides: text is read, binary is not.
  EXPECT_EQ(detected("copyright", "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"),
            "text");
  EXPECT_EQ(detected("README.Debian", "caf\xE9 latin-1\n"), "text");
  EXPECT_EQ(detected(".md", "x"), "text");  // a dot file named "md", not an ending
  EXPECT_EQ(detected("index", "  <!DOCTYPE html><p>x"), "html");
  EXPECT_EQ(detected("logo.png", std::string_view("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16)), "skip: binary file");
  // A stray NUL in a file named as text is kept (as U+FFFD); without such a name it marks a binary file.
  const std::string stray = std::string("some text") + '\0' + std::string(60, 'x');
  EXPECT_EQ(detected("notes.txt", stray), "text");
  EXPECT_EQ(detected("notes", stray), "skip: binary file");
  EXPECT_EQ(detected("notes.txt", std::string_view("a\0b\0c\0", 6)), "skip: binary file");
  EXPECT_EQ(detected("data.bin", ""), "skip: empty file");
  EXPECT_EQ(detected("empty.txt", ""), "text");
  // UTF-16 holds NUL bytes and is still text.
  EXPECT_EQ(detected("u16", std::string_view("\xFF\xFEh\0i\0", 6)), "text");
}

TEST(Extract, PlainTextIsKeptAsIs) {
  const auto doc = extract_one("  line one\r\nline  two\n\n", "text", "notes.txt");
  EXPECT_EQ(doc.key, "notes.txt");
  EXPECT_EQ(doc.title, "");
  EXPECT_EQ(doc.text, "  line one\r\nline  two\n\n");
  EXPECT_TRUE(doc.metadata.empty());
}

TEST(Extract, ByteOrderMarkIsDropped) {
  EXPECT_EQ(extract_one("\xEF\xBB\xBFhello", "text").text, "hello");
  EXPECT_EQ(extract_one("\xEF\xBB\xBF# Title\n\nbody", "markdown").title, "Title");
  EXPECT_EQ(extract_one("\xEF\xBB\xBF<p>page</p>", "html").text, "page");
  const auto docs = extract_documents("\xEF\xBB\xBF{\"id\":\"a\",\"text\":\"t\"}\n", "jsonl", "x");
  ASSERT_EQ(docs.size(), 1U);
  EXPECT_EQ(docs[0].key, "a");
}

TEST(Extract, EmptyInputs) {
  for (const auto format : {"text", "markdown", "html"}) {
    const auto doc = extract_one("", format, "empty");
    EXPECT_EQ(doc.key, "empty");
    EXPECT_EQ(doc.text, "");
    EXPECT_EQ(doc.title, "");
  }
  EXPECT_EQ(extract_one(" \n\t ", "html").text, "");
  EXPECT_EQ(extract_one("<!-- only a comment -->", "html").text, "");
  EXPECT_EQ(extract_one("\n\n", "markdown").text, "");
  EXPECT_TRUE(extract_documents("", "jsonl", "e.jsonl").empty());
  EXPECT_TRUE(extract_documents("\n  \r\n\n", "jsonl", "e.jsonl").empty());
  std::string title = "stale";
  EXPECT_EQ(html_to_text("", &title), "");
  EXPECT_EQ(title, "");
  title = "stale";
  EXPECT_EQ(markdown_to_text("", &title), "");
  EXPECT_EQ(title, "");
}

// --- HTML -------------------------------------------------------------------

TEST(Extract, HtmlTitleAndBlocks) {
  const auto doc = extract_one(
      "<!DOCTYPE html><html><head><title> The \n Page </title><meta charset=\"utf-8\"></head>"
      "<body><h1>Heading</h1><p>First   paragraph\nwraps.</p><div>A div</div><div>Another</div></body></html>",
      "html", "page.html");
  EXPECT_EQ(doc.key, "page.html");
  EXPECT_EQ(doc.title, "The Page");
  EXPECT_EQ(doc.text, "Heading\n\nFirst paragraph wraps.\n\nA div\nAnother");
  EXPECT_TRUE(doc.metadata.empty());
}

TEST(Extract, HtmlTitleFallsBackToFirstH1) {
  std::string title;
  EXPECT_EQ(html_to_text("<body><p>x</p><h1>Main <em>one</em></h1><h1>second</h1></body>", &title),
            "x\n\nMain one\n\nsecond");
  EXPECT_EQ(title, "Main one");
  // An empty <title> does not count.
  html_to_text("<head><title> </title></head><h1>H</h1>", &title);
  EXPECT_EQ(title, "H");
  html_to_text("<p>no heading</p>", &title);
  EXPECT_EQ(title, "");
  // SVG has <title> elements of its own.
  html_to_text("<body><svg><title>icon</title></svg><h1>Real</h1></body>", &title);
  EXPECT_EQ(title, "Real");
}

TEST(Extract, HtmlDropsScriptStyleAndOtherUnrenderedContent) {
  const std::string text = html_to_text(
      "<html><head><style>p { color: red }</style><script>var a = 1;</script></head><body>"
      "<p>Visible<script>document.write('<p>hidden</p>')</script> text</p>"
      "<noscript>Enable JS</noscript><template><p>tmpl</p></template>"
      "<svg><text>drawn</text></svg><style>.x{}</style><!-- a comment --><p>end</p></body></html>");
  EXPECT_EQ(text, "Visible text\n\nend");
}

TEST(Extract, HtmlDecodesEntities) {
  EXPECT_EQ(html_to_text("<p>Fish &amp; chips &lt;b&gt; &quot;q&quot; &#233;t&#xE9; caf&eacute; &#x1F600;</p>"),
            "Fish & chips <b> \"q\" été café \xF0\x9F\x98\x80");
  // A non-breaking space is a character of the text, not whitespace to collapse.
  EXPECT_EQ(html_to_text("<p>a&nbsp;b</p>"),
            "a\xC2\xA0"
            "b");
}

TEST(Extract, HtmlCollapsesWhitespaceButKeepsPre) {
  EXPECT_EQ(html_to_text("<p>  a \t\n b  <b>c</b> <i>d</i>e  </p>"), "a b c de");
  EXPECT_EQ(html_to_text("<p>before</p><pre>\n  indented\n\n    code  x\n</pre><p>after</p>"),
            "before\n\n  indented\n\n    code  x\n\nafter");
}

TEST(Extract, HtmlLineBreaksListsAndTables) {
  EXPECT_EQ(html_to_text("<p>one<br>two<br/><br>three</p>"), "one\ntwo\n\nthree");
  EXPECT_EQ(html_to_text("<ul><li>a<ul><li>b</li><li>c</li></ul></li><li>d</li></ul><p>after</p>"),
            "a\nb\nc\nd\n\nafter");
  EXPECT_EQ(html_to_text("<ol><li><p>loose</p></li><li>tight</li></ol>"), "loose\n\ntight");
  EXPECT_EQ(html_to_text("<table><tr><th>k</th><th>v</th></tr><tr><td>1</td><td>2</td></tr></table>"), "k v\n1 2");
  EXPECT_EQ(html_to_text("<p>A <img src=\"x.png\" alt=\"red door\">photo <img src=\"y.png\"></p>"), "A red door photo");
}

TEST(Extract, HtmlRecoversFromBrokenMarkup) {
  EXPECT_EQ(html_to_text("<p>unclosed <b>bold<p>next</div></span>"), "unclosed bold\n\nnext");
  EXPECT_EQ(html_to_text("text without any tags"), "text without any tags");
  EXPECT_EQ(html_to_text("a < b && c > d"), "a < b && c > d");
}

TEST(Extract, HtmlKeepsTextAtAnyNestingDepth) {
  // libxml2 stops at depth 256 without XML_PARSE_HUGE and silently drops what follows; generated pages nest
  // that deep. Both the parser and the renderer must be iterative for the deepest case.
  for (const int depth : {300, 5000, 200000}) {
    std::string html = "<html><body><p>before</p>";
    for (int i = 0; i < depth; ++i) html += "<div>";
    html += "deep text";
    for (int i = 0; i < depth; ++i) html += "</div>";
    html += "<p>after</p></body></html>";
    EXPECT_EQ(html_to_text(html), "before\n\ndeep text\n\nafter") << "depth " << depth;
  }
}

TEST(Extract, HtmlHonoursADeclaredCharset) {
  // "Café naïve “q”" in windows-1252, which a latin1 label means in practice.
  std::string title;
  EXPECT_EQ(html_to_text("<html><head><meta charset=\"ISO-8859-1\"><title>Caf\xE9</title></head>"
                         "<body><p>na\xEFve \x93q\x94</p></body></html>",
                         &title),
            "na\xC3\xAFve \xE2\x80\x9Cq\xE2\x80\x9D");
  EXPECT_EQ(title, "Caf\xC3\xA9");
  EXPECT_EQ(html_to_text("<meta http-equiv=\"Content-Type\" content=\"text/html; charset=windows-1251\">"
                         "<p>\xCF\xF0\xE8\xE2\xE5\xF2</p>"),
            "\xD0\x9F\xD1\x80\xD0\xB8\xD0\xB2\xD0\xB5\xD1\x82");  // "Привет"
  // UTF-16 with a byte order mark: "<p>hé</p>" little-endian.
  const std::string utf16("\xFF\xFE<\0p\0>\0h\0\xE9\0<\0/\0p\0>\0", 20);
  EXPECT_EQ(html_to_text(utf16), "h\xC3\xA9");
  // A UTF-8 byte order mark outranks the declaration.
  EXPECT_EQ(html_to_text("\xEF\xBB\xBF<meta charset=latin1><p>\xC3\xA9</p>"), "\xC3\xA9");
}

TEST(Extract, HtmlWithoutCharsetIsReadAsWindows1252) {
  const Extraction read = extract_file("<p>ok</p><p>bad \xFF byte \x93q\x94</p>", "page.html", "page.html");
  ASSERT_EQ(read.documents.size(), 1U);
  EXPECT_EQ(read.documents[0].text, "ok\n\nbad \xC3\xBF byte \xE2\x80\x9Cq\xE2\x80\x9D");
  ASSERT_EQ(read.warnings.size(), 1U);
  EXPECT_EQ(read.warnings[0],
            "page.html: not valid UTF-8 (byte 16) and no charset declared: read as Windows-1252 (Latin-1)");
  // A page declaring UTF-8 keeps its text, the bad bytes replaced, and says so.
  const Extraction claimed = extract_file("<meta charset=utf-8><p>\xE9t\xE9</p>", "p.html", "p.html");
  ASSERT_EQ(claimed.documents.size(), 1U);
  EXPECT_EQ(claimed.documents[0].text, "\xEF\xBF\xBDt\xEF\xBF\xBD");
  ASSERT_EQ(claimed.warnings.size(), 1U);
  EXPECT_NE(claimed.warnings[0].find("declares UTF-8 but is not valid UTF-8 (byte 23)"), std::string::npos)
      << claimed.warnings[0];
}

// --- Markdown ---------------------------------------------------------------

TEST(Extract, MarkdownInlineContent) {
  EXPECT_EQ(markdown_to_text("Some *emphasis*, **strong**, `code` and a [link](http://example.com/x).\n"
                             "A soft break and ![an image](img.png \"t\") and <https://auto.link>."),
            "Some emphasis, strong, code and a link. A soft break and an image and https://auto.link.");
  EXPECT_EQ(markdown_to_text("hard  \nbreak and\\\nbackslash"), "hard\nbreak and\nbackslash");
  EXPECT_EQ(markdown_to_text("Tom &amp; Jerry &copy; \\*not emphasis\\*"), "Tom & Jerry \xC2\xA9 *not emphasis*");
}

TEST(Extract, NulBecomesTheReplacementCharacterAndIsRefusedInAnId) {
  // PostgreSQL's text cannot hold U+0000: every store keeps U+FFFD in its place instead.
  const std::string text("before\0after", 12);
  EXPECT_EQ(extract_one(text, "text").text,
            "before\xEF\xBF\xBD"
            "after");
  const auto docs =
      extract_documents(R"({"id": "a", "text": "x\u0000y", "title": "t\u0000", "k": "v\u0000"})", "jsonl", "n.jsonl");
  ASSERT_EQ(docs.size(), 1U);
  EXPECT_EQ(docs[0].text, "x\xEF\xBF\xBDy");
  EXPECT_EQ(docs[0].title, "t\xEF\xBF\xBD");
  EXPECT_EQ(docs[0].metadata, (Metadata{{"k", "v\xEF\xBF\xBD"}}));
  // An id or a metadata name is a key: "a\u0000b" and "a\u0000c" must not both become one.
  EXPECT_EQ(error_message(R"({"id": "a\u0000b", "text": "x"})", "jsonl", ErrorCode::kParse, "n.jsonl"),
            "n.jsonl line 1: \"id\" holds a NUL (\\u0000)");
  EXPECT_EQ(error_message(R"({"id": "a", "text": "x", "k\u0000": "v"})", "jsonl", ErrorCode::kInvalidInput, "n.jsonl"),
            "n.jsonl line 1: a metadata name holds a NUL (\\u0000)");
}

TEST(Extract, MarkdownEntitiesAsCommonMarkDecodesThem) {
  // HTML5's names (not only HTML 4's), numbers in decimal and hex, U+FFFD for what is no character, and a
  // name HTML5 does not know left as written.
  EXPECT_EQ(markdown_to_text("&check; &NotEqualTilde; &nbsp;|&#65;&#x42;&#X43; &#0; &#x110000; &#xD800; &bogus; &amp"),
            "\u2713 \u2242\u0338 \u00A0|ABC \uFFFD \uFFFD \uFFFD &bogus; &amp");
  std::string title;
  EXPECT_EQ(markdown_to_text("# Caf&eacute; &lt;3\n\n`&amp;` in code", &title), "Caf\u00E9 <3\n\n&amp; in code");
  EXPECT_EQ(title, "Caf\u00E9 <3");
}

TEST(Extract, MarkdownBlocks) {
  const std::string markdown =
      "# Title\n"
      "\n"
      "First paragraph\n"
      "continues.\n"
      "\n"
      "## Section\n"
      "\n"
      "> quoted\n"
      "\n"
      "```python\n"
      "def f():\n"
      "    return 1\n"
      "```\n"
      "\n"
      "    indented code\n"
      "\n"
      "---\n"
      "\n"
      "Last.\n";
  std::string title;
  EXPECT_EQ(markdown_to_text(markdown, &title),
            "Title\n\nFirst paragraph continues.\n\nSection\n\nquoted\n\ndef f():\n    return 1\n\n"
            "indented code\n\nLast.");
  EXPECT_EQ(title, "Title");
}

TEST(Extract, MarkdownNestedLists) {
  EXPECT_EQ(markdown_to_text("Intro\n\n- a\n  - b\n    1. deep\n  - c\n- d\n\nOutro\n"),
            "Intro\n\na\nb\ndeep\nc\nd\n\nOutro");
  // Items of a loose list are paragraphs of their own.
  EXPECT_EQ(markdown_to_text("1. one\n\n2. two\n"), "one\n\ntwo");
}

TEST(Extract, MarkdownHtml) {
  EXPECT_EQ(markdown_to_text("<div>\n<p>block &amp; <b>html</b></p>\n<script>x()</script>\n</div>\n\ntext"),
            "block & html\n\ntext");
  EXPECT_EQ(markdown_to_text("Inline <span class=\"x\">tags</span> and<br>break"), "Inline tags and\nbreak");
  EXPECT_EQ(markdown_to_text("<!-- note -->\n\nafter"), "after");
  // The file is UTF-8, whatever a block of HTML in it declares.
  EXPECT_EQ(markdown_to_text("<meta charset=\"latin1\"><p>caf\xC3\xA9</p>\n"), "caf\xC3\xA9");
}

TEST(Extract, MarkdownTitles) {
  std::string title;
  markdown_to_text("Setext *Title*\n==============\n\n# ATX\n", &title);
  EXPECT_EQ(title, "Setext Title");
  markdown_to_text("## Not level one\n\n# Level `one`  #\n", &title);
  EXPECT_EQ(title, "Level one");
  markdown_to_text("Sub\n---\n\ntext", &title);
  EXPECT_EQ(title, "");
}

TEST(Extract, MarkdownFrontMatter) {
  const auto doc = extract_one(
      "---\n"
      "title: \"Front Title\"\n"
      "author: 'Ann Lee'\n"
      "date: 2024-01-02\n"
      "tags:\n"
      "  - x\n"
      "  - y\n"
      "# a YAML comment\n"
      "url: http://example.com/a:b\n"
      "author: Ann\n"
      "---\n"
      "# Heading\n"
      "\n"
      "Body.\n",
      "markdown", "post.md");
  EXPECT_EQ(doc.key, "post.md");
  EXPECT_EQ(doc.title, "Front Title");
  EXPECT_EQ(doc.text, "Heading\n\nBody.");
  EXPECT_EQ(doc.metadata, (Metadata{{"author", "Ann"}, {"date", "2024-01-02"}, {"url", "http://example.com/a:b"}}));

  // Without a title there, the heading is the title; CRLF line endings are fine.
  const auto crlf = extract_one("---\r\nlang: en\r\n---\r\n# Heading\r\n", "markdown");
  EXPECT_EQ(crlf.title, "Heading");
  EXPECT_EQ(crlf.text, "Heading");
  EXPECT_EQ(crlf.metadata, (Metadata{{"lang", "en"}}));

  std::string title;
  EXPECT_EQ(markdown_to_text("---\ntitle: T\n---\nbody", &title), "body");
  EXPECT_EQ(title, "T");
}

TEST(Extract, MarkdownLeadingRuleIsNotFrontMatter) {
  // No closing line: a thematic break.
  auto doc = extract_one("---\nkey: value\n", "markdown");
  EXPECT_EQ(doc.text, "key: value");
  EXPECT_TRUE(doc.metadata.empty());
  // Prose between two rules is kept, not read as metadata.
  doc = extract_one("---\nJust a sentence.\n\n---\nbody\n", "markdown");
  EXPECT_EQ(doc.text, "Just a sentence.\n\nbody");
  EXPECT_TRUE(doc.metadata.empty());
  // Only at the very start.
  doc = extract_one("text\n\n---\nk: v\n---\n", "markdown");
  EXPECT_TRUE(doc.metadata.empty());
}

TEST(Extract, MarkdownNotInUtf8IsReadAsWindows1252) {
  const Extraction read = extract_file("# caf\xE9\n\nna\xEFve", "a.md", "a.md");
  ASSERT_EQ(read.documents.size(), 1U);
  EXPECT_EQ(read.documents[0].title, "caf\xC3\xA9");
  EXPECT_EQ(read.documents[0].text, "caf\xC3\xA9\n\nna\xC3\xAFve");
  ASSERT_EQ(read.warnings.size(), 1U);
  EXPECT_EQ(read.warnings[0], "a.md: not valid UTF-8 (byte 5) and no charset declared: read as Windows-1252 (Latin-1)");
  // The offset does not count a byte order mark.
  EXPECT_NE(extract_file("\xEF\xBB\xBFx\xED\xA0\x80", "b.md", "b.md").warnings.at(0).find("(byte 1)"),
            std::string::npos);
}

// --- plain text UTF-8 -------------------------------------------------------

TEST(Extract, TextNotInUtf8IsReadAsWindows1252WithAWarning) {
  const auto decoded = [](std::string_view bytes) {
    Extraction read = extract_file(bytes, "t.txt", "t.txt");
    EXPECT_EQ(read.warnings.size(), 1U);
    return read.documents.at(0).text + "|" + (read.warnings.empty() ? "" : read.warnings[0]);
  };
  EXPECT_EQ(decoded("abc\x80"),
            "abc\xE2\x82\xAC|t.txt: not valid UTF-8 (byte 3) and no charset declared: read as Windows-1252 (Latin-1)");
  // Above U+10FFFF, and truncated: each byte its Windows-1252 character (0x90 is undefined there: U+0090).
  EXPECT_EQ(decoded("\xF4\x90\x80\x80").substr(0, 10), "\xC3\xB4\xC2\x90\xE2\x82\xAC\xE2\x82\xAC");
  EXPECT_EQ(decoded("ok \xE2\x82").substr(0, 8), "ok \xC3\xA2\xE2\x80\x9A");
  // UTF-16 with a byte order mark is converted, without a warning.
  const Extraction utf16 = extract_file(std::string_view("\xFF\xFEh\0i\0=\xD8\x00\xDE", 10), "u.txt", "u.txt");
  EXPECT_TRUE(utf16.warnings.empty());
  EXPECT_EQ(utf16.documents.at(0).text, "hi\xF0\x9F\x98\x80");
  // Every well-formed length passes: é, €, 😀, and the highest code point.
  EXPECT_EQ(extract_one("\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\xF4\x8F\xBF\xBF", "text").text,
            "\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\xF4\x8F\xBF\xBF");
}

// --- JSONL ------------------------------------------------------------------

TEST(Extract, JsonlRecords) {
  const std::string content =
      "{\"id\": \"a\", \"text\": \"Alpha text\", \"title\": \"Alpha\", \"lang\": \"en\", \"year\": 2024}\n"
      "\n"
      "{\"text\": \"Beta\", \"id\": 42, \"score\": 0.5, \"draft\": false, \"tags\": [\"x\", 1], "
      "\"meta\": {\"b\": 1, \"a\": null}, \"gone\": null, \"lang\": \"de\"}\r\n"
      "   \n"
      "{\"id\": -7, \"text\": \"\", \"title\": null}";
  const auto docs = extract_documents(content, "jsonl", "data.jsonl");
  ASSERT_EQ(docs.size(), 3U);
  EXPECT_EQ(docs[0].key, "a");
  EXPECT_EQ(docs[0].title, "Alpha");
  EXPECT_EQ(docs[0].text, "Alpha text");
  EXPECT_EQ(docs[0].metadata, (Metadata{{"lang", "en"}, {"year", "2024"}}));
  EXPECT_EQ(docs[1].key, "42");
  EXPECT_EQ(docs[1].title, "");
  EXPECT_EQ(docs[1].text, "Beta");
  EXPECT_EQ(docs[1].metadata, (Metadata{{"draft", "false"},
                                        {"lang", "de"},
                                        {"meta", "{\"a\":null,\"b\":1}"},
                                        {"score", "0.5"},
                                        {"tags", "[\"x\",1]"}}));
  EXPECT_EQ(docs[2].key, "-7");
  EXPECT_EQ(docs[2].text, "");
  EXPECT_TRUE(docs[2].metadata.empty());
}

TEST(Extract, JsonlTextIsNotReformatted) {
  const auto docs =
      extract_documents(R"({"id":"x","text":"  <p>kept</p>\n\ttabs \u00e9 \ud83d\ude00 "})", "jsonl", "d.jsonl");
  ASSERT_EQ(docs.size(), 1U);
  EXPECT_EQ(docs[0].text, "  <p>kept</p>\n\ttabs \xC3\xA9 \xF0\x9F\x98\x80 ");
}

TEST(Extract, JsonlMalformedLine) {
  const std::string message = error_message("{\"id\":\"a\",\"text\":\"t\"}\n{\"id\": \"b\", \"text\": }\n", "jsonl",
                                            ErrorCode::kParse, "in.jsonl");
  EXPECT_EQ(message.rfind("in.jsonl line 2: ", 0), 0U) << message;
  EXPECT_NE(message.find("syntax error"), std::string::npos) << message;
  EXPECT_EQ(message.find("[json.exception"), std::string::npos) << message;
  // Two objects on one line are not one record.
  error_message("{\"id\":\"a\",\"text\":\"t\"} {\"id\":\"b\",\"text\":\"u\"}", "jsonl", ErrorCode::kParse);
}

TEST(Extract, JsonlMissingOrWrongFields) {
  EXPECT_EQ(error_message("{\"id\":\"a\"}", "jsonl", ErrorCode::kParse), "in.jsonl line 1: missing \"text\"");
  EXPECT_EQ(error_message("\n{\"text\":\"t\"}", "jsonl", ErrorCode::kParse), "in.jsonl line 2: missing \"id\"");
  EXPECT_EQ(error_message("{\"id\":\"a\",\"text\":5}", "jsonl", ErrorCode::kParse),
            "in.jsonl line 1: \"text\" must be a string");
  EXPECT_EQ(error_message("{\"id\":\"a\",\"text\":\"t\",\"title\":[]}", "jsonl", ErrorCode::kParse),
            "in.jsonl line 1: \"title\" must be a string");
  EXPECT_EQ(error_message("[1, 2]", "jsonl", ErrorCode::kParse), "in.jsonl line 1: not a JSON object");
  EXPECT_EQ(error_message("\"text\"", "jsonl", ErrorCode::kParse), "in.jsonl line 1: not a JSON object");
  EXPECT_EQ(error_message("{\"id\":\"\",\"text\":\"t\"}", "jsonl", ErrorCode::kParse),
            "in.jsonl line 1: \"id\" is empty");
}

TEST(Extract, JsonlBadIdType) {
  for (const char* id : {"1.5", "true", "null", "[1]", "{\"a\":1}", "1e3"}) {
    EXPECT_EQ(error_message(std::string("{\"id\":") + id + ",\"text\":\"t\"}", "jsonl", ErrorCode::kParse),
              "in.jsonl line 1: \"id\" must be a string or integer")
        << id;
  }
}

TEST(Extract, JsonlDuplicateId) {
  EXPECT_EQ(
      error_message("{\"id\":\"a\",\"text\":\"1\"}\n{\"id\":\"b\",\"text\":\"2\"}\n\n{\"id\":\"a\",\"text\":\"3\"}\n",
                    "jsonl", ErrorCode::kParse),
      "in.jsonl line 4: duplicate \"id\" \"a\" (first on line 1)");
  // An integer id and its decimal string name the same document.
  EXPECT_EQ(error_message("{\"id\":7,\"text\":\"1\"}\n{\"id\":\"7\",\"text\":\"2\"}", "jsonl", ErrorCode::kParse),
            "in.jsonl line 2: duplicate \"id\" \"7\" (first on line 1)");
}

TEST(Extract, JsonlRejectsInvalidUtf8) {
  // The offset is in the file: the second line starts at byte 22.
  EXPECT_EQ(error_message("{\"id\":\"a\",\"text\":\"t\"}\n{\"id\":\"b\",\"text\":\"\xFE\"}", "jsonl",
                          ErrorCode::kInvalidInput),
            "in.jsonl line 2: invalid UTF-8 at byte 40");
  // A lone surrogate escape is not text either; nlohmann refuses it while parsing.
  error_message(R"({"id":"a","text":"\ud800"})", "jsonl", ErrorCode::kParse);
}

}  // namespace
}  // namespace sieve::search
