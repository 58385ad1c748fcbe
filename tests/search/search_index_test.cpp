#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <fstream>
#include <map>
#include <set>

#include "search/sqlite.hpp"
#include "sieve/error.hpp"
#include "sieve/search.hpp"
#include "support/paths.hpp"

namespace sieve {
namespace {

namespace fs = std::filesystem;

class TempFolder {
 public:
  TempFolder() {
    std::string pattern = (fs::temp_directory_path() / "sieve-search-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~TempFolder() {
    std::error_code error;
    fs::remove_all(path_, error);
  }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;
  [[nodiscard]] const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

void write(const fs::path& file, const std::string& content) {
  fs::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary) << content;
}

const std::vector<std::pair<std::string, std::string>> kDocuments = {
    {"volcano.txt", "Volcanoes erupt molten lava and ash when magma pressure builds beneath the crust."},
    {"bread.md", "# Baking bread\n\nKnead the dough, let the yeast rise overnight, then bake at high heat."},
    {"orbit.html",
     "<html><head><title>Orbits</title></head><body><p>Satellites orbit the planet.</p>"
     "<script>ignored()</script></body></html>"},
    {"notes/chess.txt", "Chess openings such as the Sicilian defence shape the middle game."},
};

class SearchIndexTest : public ::testing::Test {
 protected:
  void SetUp() override {
    EmbedderOptions options;
    options.runtime.intra_op_threads = 1;
    embedder_.emplace(Embedder::load(testing::fixtures_dir() / "tiny-bert-tokens", options));
    for (const auto& [name, text] : kDocuments) write(docs_.path() / name, text);
    write(docs_.path() / "records.jsonl",
          "{\"id\": \"r1\", \"text\": \"Rivers carry sediment to the sea.\", \"lang\": \"en\"}\n"
          "{\"id\": \"r2\", \"text\": \"Les rivieres portent des sediments.\", \"lang\": \"fr\"}\n");
    write(docs_.path() / "ignored.bin", std::string("\x7f"
                                                    "ELF\x02\x01\x01\0\0\0",
                                                    10));
  }

  SearchIndex create(std::size_t exact_threshold = 20000) {
    IndexCreateOptions options;
    options.chunking = {16, 4};
    options.exact_threshold = exact_threshold;
    return SearchIndex::create(index_.path() / "idx", *embedder_, options);
  }

  // An index of three documents with many chunks that mention glaciers, and two with one.
  SearchIndex glacier_index() {
    std::string many;
    for (int i = 0; i < 12; ++i)
      many += "Glacier ice moves slowly down the valley, carving rock number " + std::to_string(i) + ". ";
    write(glaciers_.path() / "a.txt", many);
    write(glaciers_.path() / "b.txt", many + "Moraines remain.");
    write(glaciers_.path() / "c.txt", many + "Crevasses open.");
    write(glaciers_.path() / "d.txt", "A glacier once covered this plain.");
    write(glaciers_.path() / "e.txt", "Quantization stores each weight in eight bits; glacier melt is unrelated.");
    auto index = create();
    (void)index.add({glaciers_.path()}, *embedder_);
    return index;
  }

  TempFolder docs_;
  TempFolder glaciers_;
  TempFolder index_;
  std::optional<Embedder> embedder_;
};

TEST_F(SearchIndexTest, AddsEveryFormatAndSkipsUnchangedFiles) {
  auto index = create();
  const auto first = index.add({docs_.path()}, *embedder_);
  EXPECT_EQ(first.files_seen, 6U);
  EXPECT_EQ(first.files_skipped, 1U);  // ignored.bin
  EXPECT_EQ(first.skipped_by_reason, (std::map<std::string, std::size_t>{{"binary file", 1}}));
  EXPECT_EQ(first.files_by_format,
            (std::map<std::string, std::size_t>{{"HTML", 1}, {"JSON Lines", 1}, {"Markdown", 1}, {"plain text", 2}}));
  EXPECT_EQ(first.documents_added, 6U);
  EXPECT_TRUE(first.errors.empty());
  EXPECT_GT(first.chunks_added, 6U);  // 16-token chunks: the longer texts need two
  const auto again = index.add({docs_.path()}, *embedder_);
  EXPECT_EQ(again.files_unchanged, 5U);
  EXPECT_EQ(again.documents_added, 0U);
  EXPECT_EQ(again.chunks_added, 0U);
  const auto stats = index.stats();
  EXPECT_EQ(stats.documents, 6U);
  EXPECT_EQ(stats.chunks, first.chunks_added);
  EXPECT_TRUE(index.check().ok());
}

TEST_F(SearchIndexTest, ChangedFileReplacesItsChunksAndVanishedRecordsGo) {
  auto index = create();
  (void)index.add({docs_.path()}, *embedder_);
  const auto before = index.stats().chunks;
  write(docs_.path() / "volcano.txt", "Glaciers carve valleys.");
  write(docs_.path() / "records.jsonl", "{\"id\": \"r1\", \"text\": \"Rivers carry sediment to the sea.\"}\n");
  const auto report = index.add({docs_.path()}, *embedder_);
  EXPECT_EQ(report.documents_added, 2U);    // volcano.txt; r1 lost its metadata, so it changed too
  EXPECT_EQ(report.documents_removed, 1U);  // r2
  EXPECT_EQ(index.stats().documents, 5U);
  EXPECT_LT(index.stats().chunks, before);
  SearchOptions options;
  options.mode = SearchMode::kBm25;
  EXPECT_TRUE(index.search("lava magma", options, nullptr).hits.empty());
  const auto glaciers = index.search("glaciers", options, nullptr);
  ASSERT_EQ(glaciers.hits.size(), 1U);
  EXPECT_EQ(glaciers.hits[0].text, "Glaciers carve valleys.");
  EXPECT_TRUE(index.check().ok());
}

TEST_F(SearchIndexTest, Bm25FindsWordsAndReportsSpansAndMetadata) {
  auto index = create();
  (void)index.add({docs_.path()}, *embedder_);
  SearchOptions options;
  options.mode = SearchMode::kBm25;
  const auto result = index.search("SEDIMENT rivers", options, nullptr);
  ASSERT_FALSE(result.hits.empty());
  const auto& hit = result.hits[0];
  EXPECT_EQ(hit.document_id, "r1");
  ASSERT_EQ(hit.matches.size(), 2U);
  EXPECT_EQ(hit.text.substr(hit.matches[0].first, hit.matches[0].second - hit.matches[0].first), "Rivers");
  ASSERT_EQ(hit.metadata.size(), 1U);
  EXPECT_EQ(hit.metadata[0], (std::pair<std::string, std::string>{"lang", "en"}));
  EXPECT_TRUE(hit.bm25_score.has_value());
  EXPECT_FALSE(hit.vector_score.has_value());
}

TEST_F(SearchIndexTest, DocumentTextIsRebuiltFromItsChunksAndCutToASpan) {
  std::string long_text;
  for (int i = 0; i < 40; ++i) long_text += "Sentence " + std::to_string(i) + " talks about caf\xC3\xA9s.  ";
  long_text += "The end.";
  write(docs_.path() / "long.txt", long_text);
  auto index = create();
  (void)index.add({docs_.path()}, *embedder_);
  SearchOptions options;
  options.mode = SearchMode::kBm25;
  const auto hits = index.search("end", options, nullptr).hits;
  ASSERT_FALSE(hits.empty());
  const std::string id = hits[0].document_id;
  const auto whole = index.document(id);
  ASSERT_TRUE(whole.has_value());
  EXPECT_GT(whole->chunks, 3U);
  EXPECT_EQ(whole->text, long_text);
  EXPECT_EQ(whole->length, long_text.size());
  EXPECT_EQ(whole->source, (docs_.path() / "long.txt").string());
  // A span inside the second character of "é" moves back to its first byte.
  const std::size_t e_acute = long_text.find("\xC3\xA9");
  const auto span = index.document(id, e_acute + 1, e_acute + 20);
  ASSERT_TRUE(span.has_value());
  EXPECT_EQ(span->begin, e_acute);
  EXPECT_EQ(span->text, long_text.substr(e_acute, span->end - e_acute));
  EXPECT_EQ(index.document(id, long_text.size() + 5)->text, "");
  EXPECT_FALSE(index.document("no such document").has_value());

  const auto first = index.documents("", 3);
  ASSERT_EQ(first.documents.size(), 3U);
  EXPECT_EQ(first.next, first.documents.back().id);
  const auto rest = index.documents(first.next, 100);
  EXPECT_EQ(first.documents.size() + rest.documents.size(), index.stats().documents);
  EXPECT_TRUE(rest.next.empty());
  EXPECT_LT(first.documents.back().id, rest.documents.front().id);
}

TEST_F(SearchIndexTest, OriginalFileOnlyWhileItIsTheFileIndexed) {
  auto index = create();
  (void)index.add({docs_.path()}, *embedder_);
  const std::string volcano = (docs_.path() / "volcano.txt").string();
  const auto original = index.original(volcano, 1 << 20);
  // Open at its start, the file's bytes.
  std::string content(original.size, '\0');
  ASSERT_EQ(::read(*original.descriptor, content.data(), content.size()), static_cast<ssize_t>(content.size()));
  EXPECT_EQ(content, kDocuments[0].second);
  EXPECT_EQ(original.format, "text");
  EXPECT_EQ(original.media_type, "text/plain; charset=utf-8");
  EXPECT_EQ(index.original((docs_.path() / "orbit.html").string(), 1 << 20).media_type, "text/html; charset=utf-8");
  const auto refused = [&index](const std::string& id, std::uint64_t max_bytes, const std::string& why) {
    try {
      (void)index.original(id, max_bytes);
      ADD_FAILURE() << id << " was served";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kNotFound);
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  };
  refused(volcano, 10, "bytes, more than the 10");
  refused("r1", 1 << 20, "not a file of its own");  // a JSONL record
  refused("no such document", 1 << 20, "no document");
  write(docs_.path() / "volcano.txt", "Volcanoes changed.");
  refused(volcano, 1 << 20, "has changed since it was indexed");
  fs::remove(docs_.path() / "volcano.txt");
  refused(volcano, 1 << 20, "cannot open");
}

TEST_F(SearchIndexTest, FormatsFoldersAndPages) {
  write(docs_.path() / "notes-extra/other.txt", "Chess clocks and openings.");
  auto index = create();
  (void)index.add({docs_.path()}, *embedder_);
  const auto stats = index.stats();
  EXPECT_EQ(stats.documents_by_format,
            (std::map<std::string, std::size_t>{{"html", 1}, {"jsonl", 2}, {"markdown", 1}, {"text", 3}}));
  SearchOptions options;
  options.mode = SearchMode::kVector;
  options.k = 50;
  const auto sources = [&](const SearchOptions& o) {
    std::set<std::string> found;
    for (const auto& hit : index.search("chess openings", o, &*embedder_).hits) found.insert(hit.source);
    return found;
  };
  options.formats = {"markdown", "html"};
  EXPECT_EQ(sources(options),
            (std::set<std::string>{(docs_.path() / "bread.md").string(), (docs_.path() / "orbit.html").string()}));
  options.formats.clear();
  options.folders = {(docs_.path() / "notes").string()};  // not notes-extra
  EXPECT_EQ(sources(options), (std::set<std::string>{(docs_.path() / "notes/chess.txt").string()}));
  options.folders = {"notes"};
  EXPECT_THROW((void)index.search("chess", options, &*embedder_), Error);
  options.folders.clear();
  options.k = 6;
  const auto whole = index.search("chess openings", options, &*embedder_).hits;
  ASSERT_EQ(whole.size(), 6U);
  options.k = 3;
  options.offset = 3;
  const auto second = index.search("chess openings", options, &*embedder_).hits;
  ASSERT_EQ(second.size(), 3U);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(second[i].chunk_id, whole[3 + i].chunk_id);
  EXPECT_EQ(second[0].format, whole[3].format);
  options.offset = 998;
  EXPECT_THROW((void)index.search("chess", options, &*embedder_), Error);
}

TEST_F(SearchIndexTest, HtmlTitleAndTextButNoScript) {
  auto index = create();
  (void)index.add({docs_.path()}, *embedder_);
  SearchOptions options;
  options.mode = SearchMode::kBm25;
  const auto hits = index.search("satellites", options, nullptr).hits;
  ASSERT_EQ(hits.size(), 1U);
  EXPECT_EQ(hits[0].title, "Orbits");
  EXPECT_TRUE(index.search("ignored", options, nullptr).hits.empty());
}

TEST_F(SearchIndexTest, VectorSearchRanksByCosineOfTheModelsVectors) {
  auto index = create();
  (void)index.add({docs_.path()}, *embedder_);
  SearchOptions options;
  options.mode = SearchMode::kVector;
  options.k = 3;
  const std::string query = "Chess openings such as the Sicilian defence shape the middle game.";
  const auto result = index.search(query, options, &*embedder_);
  ASSERT_EQ(result.hits.size(), 3U);
  // The identical chunk is its own nearest neighbour with cosine 1.
  EXPECT_EQ(result.hits[0].text, query);
  EXPECT_NEAR(result.hits[0].score, 1.0, 1e-5);
  EXPECT_GE(result.hits[0].score, result.hits[1].score);
  EXPECT_GE(result.hits[1].score, result.hits[2].score);
  // The score is the cosine of the model's own vectors.
  const std::vector<std::string> texts = {query, result.hits[1].text};
  const auto vectors = embedder_->embed(texts);
  double dot = 0, a = 0, b = 0;
  for (std::size_t i = 0; i < vectors.dimension; ++i) {
    dot += vectors.row(0)[i] * vectors.row(1)[i];
    a += vectors.row(0)[i] * vectors.row(0)[i];
    b += vectors.row(1)[i] * vectors.row(1)[i];
  }
  EXPECT_NEAR(result.hits[1].score, dot / std::sqrt(a * b), 1e-5);
}

TEST_F(SearchIndexTest, HybridFusesBothListsAndFiltersApply) {
  auto index = create();
  (void)index.add({docs_.path()}, *embedder_);
  SearchOptions options;
  options.k = 20;
  options.fusion = SearchFusion::kReciprocalRank;
  // Only r1 holds "carry": the only chunk in the BM25 list.
  const auto all = index.search("rivers carry", options, &*embedder_);
  ASSERT_FALSE(all.hits.empty());
  EXPECT_EQ(all.hits[0].document_id, "r1");  // first in BM25, and present in the vector list
  EXPECT_NEAR(all.hits[0].score, 1.0 / 61 + (all.hits[0].vector_score ? 1.0 / (60 + 1) : 0), 0.02);
  // Weighted: BM25's best scores its weight in full, plus the vector list's share.
  options.fusion = SearchFusion::kWeighted;
  const auto weighted = index.search("rivers carry", options, &*embedder_);
  ASSERT_FALSE(weighted.hits.empty());
  EXPECT_EQ(weighted.hits[0].document_id, "r1");
  EXPECT_GE(weighted.hits[0].score, options.bm25_weight - 1e-9);
  EXPECT_LE(weighted.hits[0].score, options.bm25_weight + options.vector_weight + 1e-9);
  EXPECT_DOUBLE_EQ(weighted.hits[0].relevance, 1.0);
  options.filters = {{"lang", "fr"}};
  const auto french = index.search("rivers sediment", options, &*embedder_);
  ASSERT_EQ(french.hits.size(), 1U);
  EXPECT_EQ(french.hits[0].document_id, "r2");
  options.filters = {{"lang", "de"}};
  EXPECT_TRUE(index.search("rivers", options, &*embedder_).hits.empty());
}

TEST_F(SearchIndexTest, HitsPerDocumentAreCappedAndKStillFilled) {
  auto index = glacier_index();
  for (const SearchMode mode : {SearchMode::kBm25, SearchMode::kVector, SearchMode::kHybrid}) {
    SearchOptions options;
    options.mode = mode;
    options.k = 5;
    options.per_document = 1;
    const auto capped = index.search("glacier valley", options, &*embedder_);
    std::set<std::string> documents;
    for (const auto& hit : capped.hits) documents.insert(hit.document_id);
    EXPECT_EQ(capped.hits.size(), 5U) << to_string(mode);
    EXPECT_EQ(documents.size(), capped.hits.size()) << to_string(mode);
    options.per_document = 2;
    const auto two = index.search("glacier valley", options, &*embedder_);
    std::map<std::string, int> counts;
    for (const auto& hit : two.hits) ++counts[hit.document_id];
    EXPECT_EQ(two.hits.size(), 5U);
    for (const auto& [document, count] : counts) EXPECT_LE(count, 2) << document;
    options.per_document = 0;
    options.k = 6;
    const auto unlimited = index.search("glacier valley", options, &*embedder_);
    counts.clear();
    for (const auto& hit : unlimited.hits) ++counts[hit.document_id];
    int most = 0;
    for (const auto& [document, count] : counts) most = std::max(most, count);
    // BM25 ranks the long documents' chunks first (the test model's vectors say nothing).
    if (mode == SearchMode::kBm25) {
      EXPECT_GT(most, 2);
    }
  }
  // Fewer documents than k: each gives its best chunks, no more.
  SearchOptions options;
  options.mode = SearchMode::kBm25;
  options.k = 20;
  options.per_document = 1;
  EXPECT_EQ(index.search("glacier", options, nullptr).hits.size(), 5U);
}

TEST_F(SearchIndexTest, HitsCarryRankRelevanceAndASnippet) {
  auto index = glacier_index();
  for (const SearchMode mode : {SearchMode::kBm25, SearchMode::kVector, SearchMode::kHybrid}) {
    SearchOptions options;
    options.mode = mode;
    options.k = 5;
    options.snippet_bytes = 40;
    const auto result = index.search("glacier valley", options, &*embedder_);
    ASSERT_FALSE(result.hits.empty());
    for (std::size_t i = 0; i < result.hits.size(); ++i) {
      const auto& hit = result.hits[i];
      EXPECT_EQ(hit.rank, i + 1);
      EXPECT_GE(hit.relevance, 0.0);
      EXPECT_LE(hit.relevance, 1.0);
      if (i > 0) {
        EXPECT_LE(hit.relevance, result.hits[i - 1].relevance + 1e-12) << to_string(mode);
      }
      if (mode == SearchMode::kVector) {
        EXPECT_NEAR(hit.relevance, std::max(0.0, hit.score), 1e-12);
      }
      // The snippet is the text's span, "…" where cut, its matches the words of the query.
      ASSERT_LE(hit.snippet_begin, hit.snippet_end);
      const std::string inner = hit.text.substr(hit.snippet_begin, hit.snippet_end - hit.snippet_begin);
      EXPECT_NE(hit.snippet.find(inner), std::string::npos);
      EXPECT_EQ(hit.snippet.starts_with("\u2026"), hit.snippet_begin > 0);
      EXPECT_EQ(hit.snippet.ends_with("\u2026"), hit.snippet_end < hit.text.size());
      for (const auto& [b, e] : hit.snippet_matches) {
        std::string word = hit.snippet.substr(b, e - b);
        for (char& c : word) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        EXPECT_TRUE(word == "glacier" || word == "valley") << word;
      }
    }
    if (mode != SearchMode::kVector) {
      EXPECT_DOUBLE_EQ(result.hits[0].relevance, 1.0);
    }
  }
}

TEST_F(SearchIndexTest, Bm25FindsStemmedForms) {
  auto index = glacier_index();
  SearchOptions options;
  options.mode = SearchMode::kBm25;
  const auto result = index.search("quantize", options, nullptr);
  ASSERT_EQ(result.hits.size(), 1U);
  EXPECT_TRUE(result.hits[0].document_id.ends_with("e.txt")) << result.hits[0].document_id;
  ASSERT_EQ(result.hits[0].matches.size(), 1U);
  EXPECT_EQ(result.hits[0].text.substr(result.hits[0].matches[0].first, 12), "Quantization");
}

TEST_F(SearchIndexTest, AnIndexWithTheOldKeywordTableIsRebuiltWithStems) {
  (void)glacier_index();
  const fs::path database = index_.path() / "idx" / "index.sqlite";
  {
    // The table as Sieve made it before BM25 stemmed words.
    search::Database db(database, search::Database::Mode::kReadWrite);
    db.exec("DROP TABLE chunks_fts");
    db.exec(
        "CREATE VIRTUAL TABLE chunks_fts USING fts5(text, content='chunks', content_rowid='id', "
        "tokenize='unicode61 remove_diacritics 2')");
    db.exec("INSERT INTO chunks_fts(chunks_fts) VALUES ('rebuild')");
    auto row = db.prepare("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH 'quantize'");
    ASSERT_TRUE(row.step());
    EXPECT_EQ(row.integer(0), 0);
  }
  const auto index = SearchIndex::open(index_.path() / "idx");
  SearchOptions options;
  options.mode = SearchMode::kBm25;
  const auto result = index.search("quantize", options, nullptr);
  ASSERT_EQ(result.hits.size(), 1U);
  EXPECT_TRUE(result.hits[0].document_id.ends_with("e.txt")) << result.hits[0].document_id;
  EXPECT_TRUE(index.check().ok());
  search::Database db(database, search::Database::Mode::kReadOnly);
  auto sql = db.prepare("SELECT sql FROM sqlite_master WHERE name = 'chunks_fts'");
  ASSERT_TRUE(sql.step());
  EXPECT_NE(sql.text(0).find("porter unicode61 remove_diacritics 2"), std::string::npos);
  auto rows = db.prepare("SELECT count(*) FROM chunks_fts");
  ASSERT_TRUE(rows.step());
  EXPECT_EQ(static_cast<std::size_t>(rows.integer(0)), index.stats().chunks);
}

TEST_F(SearchIndexTest, GraphSearchAgreesWithExactSearchOnASmallIndex) {
  auto index = create(/*exact_threshold=*/4);
  (void)index.add({docs_.path()}, *embedder_);
  EXPECT_GT(index.stats().ann_elements, 0U);
  SearchOptions options;
  options.mode = SearchMode::kVector;
  options.k = 5;
  for (const auto& [name, text] : kDocuments) {
    const auto graph = index.search(text, options, &*embedder_);
    EXPECT_TRUE(graph.used_ann);
    options.exact = true;
    const auto exact = index.search(text, options, &*embedder_);
    options.exact = false;
    EXPECT_FALSE(exact.used_ann);
    ASSERT_EQ(graph.hits.size(), exact.hits.size());
    for (std::size_t i = 0; i < graph.hits.size(); ++i) EXPECT_EQ(graph.hits[i].chunk_id, exact.hits[i].chunk_id);
  }
  // Removing documents updates the graph; nothing removed comes back.
  EXPECT_EQ(index.remove({(docs_.path() / "volcano.txt").string(), "r2"}), 2U);
  EXPECT_TRUE(index.check().ok());
  const auto after = index.search(kDocuments[0].second, options, &*embedder_);
  for (const auto& hit : after.hits) {
    EXPECT_NE(hit.document_id, "r2");
    EXPECT_EQ(hit.source.find("volcano"), std::string::npos);
  }
}

TEST_F(SearchIndexTest, GraphsOfCodesRescoreWithTheStoredVectors) {
  // Codes of whole vectors, and of their first half (as a Matryoshka model's prefix).
  const std::size_t dimension = embedder_->info().dimension;
  for (const auto& [codes, prefix] :
       std::vector<std::pair<VectorCodes, std::size_t>>{{VectorCodes::kInt8, 0},
                                                        {VectorCodes::kBinary, 0},
                                                        {VectorCodes::kFloat32, dimension / 2},
                                                        {VectorCodes::kInt8, dimension / 2}}) {
    const std::string layout = std::string(to_string(codes)) + (prefix ? "-prefix" : "");
    SCOPED_TRACE(layout);
    IndexCreateOptions create_options;
    create_options.chunking = {16, 4};
    create_options.exact_threshold = 4;
    create_options.vectors = codes;
    create_options.graph_dimensions = prefix;
    const fs::path folder = index_.path() / layout;
    {
      auto index = SearchIndex::create(folder, *embedder_, create_options);
      (void)index.add({docs_.path()}, *embedder_);
      const auto stats = index.stats();
      EXPECT_EQ(stats.vectors, codes);
      EXPECT_EQ(stats.graph_dimensions, prefix);
      EXPECT_EQ(stats.rescore, default_rescore(codes, prefix != 0));
      EXPECT_GT(stats.rescore, 0U);
      ASSERT_GT(stats.ann_elements, 4U);
      const std::size_t coded = prefix ? prefix : dimension;
      const std::size_t width = codes == VectorCodes::kInt8     ? coded
                                : codes == VectorCodes::kBinary ? (coded + 7) / 8
                                                                : coded * sizeof(float);
      EXPECT_EQ(stats.ann_vector_bytes, stats.ann_elements * width);
      EXPECT_TRUE(index.check().ok());
    }
    // Opened again, the graph of codes (and int8's scales) is read back; rescored, it ranks as exact search does,
    // with the float32 scores.
    const auto index = SearchIndex::open(folder);
    SearchOptions options;
    options.mode = SearchMode::kVector;
    options.k = 5;
    options.per_document = 0;
    for (const auto& [name, text] : kDocuments) {
      const auto graph = index.search(text, options, &*embedder_);
      EXPECT_TRUE(graph.used_ann);
      options.exact = true;
      const auto exact = index.search(text, options, &*embedder_);
      options.exact = false;
      ASSERT_EQ(graph.hits.size(), exact.hits.size());
      for (std::size_t i = 0; i < graph.hits.size(); ++i) {
        EXPECT_EQ(graph.hits[i].chunk_id, exact.hits[i].chunk_id);
        EXPECT_DOUBLE_EQ(graph.hits[i].score, exact.hits[i].score);
      }
    }
    EXPECT_TRUE(index.check().ok());
  }
  // int8 codes made with other scales than the index records are found by check.
  {
    search::Database db(index_.path() / "int8" / "index.sqlite", search::Database::Mode::kReadWrite);
    std::string ones;
    for (std::size_t i = 0; i < embedder_->info().dimension; ++i) ones += i ? " 0.5" : "0.5";
    db.prepare("UPDATE meta SET value = ? WHERE key = 'graph_scales'").bind(1, ones).run();
  }
  const auto report = SearchIndex::open(index_.path() / "int8").check();
  ASSERT_FALSE(report.ok());
  EXPECT_NE(report.problems[0].find("int8 vectors unlike the ones stored"), std::string::npos) << report.problems[0];
  // A prefix wider than the vectors is refused, as an index of codes in PostgreSQL is.
  IndexCreateOptions wide;
  wide.graph_dimensions = dimension + 1;
  EXPECT_THROW((void)SearchIndex::create(index_.path() / "wide", *embedder_, wide), Error);
  // Rescoring is for codes or a prefix, and bounded.
  IndexCreateOptions float32;
  float32.rescore = 2;
  EXPECT_THROW((void)SearchIndex::create(index_.path() / "float32", *embedder_, float32), Error);
  IndexCreateOptions deep;
  deep.vectors = VectorCodes::kInt8;
  deep.rescore = 101;
  EXPECT_THROW((void)SearchIndex::create(index_.path() / "deep", *embedder_, deep), Error);
}

TEST_F(SearchIndexTest, RefusesAnotherModel) {
  auto index = create();
  (void)index.add({docs_.path() / "volcano.txt"}, *embedder_);
  const auto other = Embedder::load(testing::fixtures_dir() / "tiny-bert-cls");
  try {
    (void)index.add({docs_.path()}, other);
    FAIL() << "another model was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("tiny-bert-tokens"), std::string::npos) << e.what();
  }
  EXPECT_THROW(index.check_model(other), Error);
  // The same ONNX file pooled or normalized otherwise gives other vectors.
  const auto folder = embedder_->info().folder;
  EmbedderOptions cls;
  cls.pooling = Pooling::kCls;
  EmbedderOptions raw;
  raw.normalize = !embedder_->info().normalize;
  for (const auto& options : {cls, raw}) {
    try {
      index.check_model(Embedder::load(folder, options));
      FAIL() << "the same model with other pooling or normalization was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
      EXPECT_NE(std::string(e.what()).find("would not compare"), std::string::npos) << e.what();
    }
  }
  index.check_model(Embedder::load(folder));
}

TEST_F(SearchIndexTest, ErrorsNameWhatIsWrong) {
  EXPECT_THROW(SearchIndex::open(index_.path() / "none"), Error);
  auto index = create();
  try {
    (void)index.add({docs_.path() / "missing.txt"}, *embedder_);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNotFound);
    EXPECT_NE(std::string(e.what()).find("missing.txt"), std::string::npos);
  }
  write(docs_.path() / "bad.jsonl", "{\"id\": 1, \"text\": \"fine\"}\n{not json\n");
  const auto report = index.add({docs_.path() / "bad.jsonl", docs_.path() / "volcano.txt"}, *embedder_);
  ASSERT_EQ(report.errors.size(), 1U);
  EXPECT_NE(report.errors[0].find("line 2"), std::string::npos) << report.errors[0];
  EXPECT_EQ(report.documents_added, 1U);  // the good file still went in
  SearchOptions options;
  options.mode = SearchMode::kVector;
  EXPECT_THROW((void)index.search("x", options, nullptr), Error);  // no model
  options.k = 0;
  EXPECT_THROW((void)index.search("x", options, &*embedder_), Error);
  EXPECT_THROW((void)parse_search_mode("fuzzy"), Error);
}

// The dot product of two sparse vectors (ids ascending).
double sparse_dot(const SparseVector& a, const SparseVector& b) {
  double sum = 0;
  for (std::size_t i = 0, j = 0; i < a.ids.size() && j < b.ids.size();) {
    if (a.ids[i] < b.ids[j]) {
      ++i;
    } else if (a.ids[i] > b.ids[j]) {
      ++j;
    } else {
      sum += static_cast<double>(a.weights[i++]) * b.weights[j++];
    }
  }
  return sum;
}

template <class Call>
void expect_error(Call&& call, ErrorCode code, const std::string& words) {
  try {
    call();
    ADD_FAILURE() << "no error; expected one with \"" << words << "\"";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

class SparseSearchIndexTest : public SearchIndexTest {
 protected:
  void SetUp() override {
    SearchIndexTest::SetUp();
    EmbedderOptions options;
    options.runtime.intra_op_threads = 1;
    sparse_.emplace(Embedder::load(testing::fixtures_dir() / "tiny-splade", options));
  }

  SearchIndex create_sparse() {
    IndexCreateOptions options;
    options.chunking = {16, 4};
    return SearchIndex::create(index_.path() / "sparse", *embedder_, options, &*sparse_);
  }

  std::optional<Embedder> sparse_;
};

TEST_F(SparseSearchIndexTest, SparseSearchRanksByTheDotProductOfSparseVectors) {
  auto index = create_sparse();
  const auto report = index.add({docs_.path()}, *embedder_, {}, &*sparse_);
  ASSERT_GT(report.chunks_added, 0U);
  const auto stats = index.stats();
  ASSERT_TRUE(stats.sparse_model.has_value());
  EXPECT_EQ(stats.sparse_model->name, "tiny-splade");
  EXPECT_EQ(stats.sparse_model->dimension, sparse_->info().dimension);
  EXPECT_GT(stats.sparse_postings, stats.chunks);
  EXPECT_TRUE(index.check().ok());

  SearchOptions options;
  options.mode = SearchMode::kSparse;
  options.k = 1000;
  options.per_document = 0;  // every chunk
  const std::string query = "Chess openings such as the Sicilian defence shape the middle game.";
  const auto result = index.search(query, options, nullptr, nullptr, &*sparse_);
  ASSERT_FALSE(result.hits.empty());
  const std::array<std::string_view, 1> texts{query};
  const SparseVector wanted = sparse_->embed_sparse(texts).front();
  for (std::size_t i = 0; i < result.hits.size(); ++i) {
    const auto& hit = result.hits[i];
    const std::array<std::string_view, 1> chunk{hit.text};
    const double dot = sparse_dot(wanted, sparse_->embed_sparse(chunk).front());
    EXPECT_NEAR(hit.score, dot, 1e-4 * std::max(1.0, dot)) << hit.text;
    ASSERT_TRUE(hit.sparse_score.has_value());
    EXPECT_EQ(*hit.sparse_score, hit.score);
    EXPECT_FALSE(hit.vector_score.has_value());
    if (i > 0) {
      EXPECT_GE(result.hits[i - 1].score, hit.score);
    }
  }
  // Every chunk that shares a term with the query is found: the stored chunks
  // are the documents' chunks, and each one's dot product is positive.
  EXPECT_EQ(result.hits.size(), stats.chunks);

  // Hybrid fuses all three lists by default, and the lists asked for
  // otherwise: with reciprocal rank fusion each hit's score is the sum of
  // 1 / (60 + its rank) in each list (of the 50 best), as each list alone
  // ranks it (without a per-document limit, as fusion sees the lists).
  std::map<SearchMode, std::map<std::int64_t, std::size_t>> ranks;
  for (const SearchMode mode : {SearchMode::kVector, SearchMode::kBm25, SearchMode::kSparse}) {
    SearchOptions alone;
    alone.mode = mode;
    alone.k = 50;
    alone.exact = true;
    alone.per_document = 0;
    const auto hits = index.search(query, alone, &*embedder_, nullptr, &*sparse_).hits;
    for (std::size_t rank = 0; rank < hits.size(); ++rank) ranks[mode][hits[rank].chunk_id] = rank + 1;
  }
  const auto fused_score = [&](std::int64_t id, const std::vector<SearchMode>& lists) {
    double score = 0;
    for (const SearchMode mode : lists) {
      if (const auto it = ranks[mode].find(id); it != ranks[mode].end()) score += 1.0 / (60.0 + it->second);
    }
    return score;
  };
  options.mode = SearchMode::kHybrid;
  options.k = 5;
  options.exact = true;
  options.fusion = SearchFusion::kReciprocalRank;
  const auto all = index.search(query, options, &*embedder_, nullptr, &*sparse_);
  ASSERT_EQ(all.hits.size(), 5U);
  EXPECT_TRUE(all.hits[0].vector_score && all.hits[0].sparse_score && all.hits[0].bm25_score);
  for (const auto& hit : all.hits) {
    EXPECT_NEAR(hit.score, fused_score(hit.chunk_id, {SearchMode::kVector, SearchMode::kBm25, SearchMode::kSparse}),
                1e-12);
  }
  options.fuse = {SearchMode::kSparse, SearchMode::kBm25};
  const auto two = index.search(query, options, nullptr, nullptr, &*sparse_);
  ASSERT_FALSE(two.hits.empty());
  for (const auto& hit : two.hits) {
    EXPECT_FALSE(hit.vector_score.has_value());
    EXPECT_NEAR(hit.score, fused_score(hit.chunk_id, {SearchMode::kSparse, SearchMode::kBm25}), 1e-12);
  }

  // Removing a document removes its postings.
  EXPECT_EQ(index.remove({(docs_.path() / "notes/chess.txt").string()}), 1U);
  EXPECT_LT(index.stats().sparse_postings, stats.sparse_postings);
  EXPECT_TRUE(index.check().ok());
  options.mode = SearchMode::kSparse;
  options.fuse.clear();
  for (const auto& hit : index.search(query, options, nullptr, nullptr, &*sparse_).hits) {
    EXPECT_EQ(hit.source.find("chess"), std::string::npos);
  }
  // Reopened, the index knows its sparse model.
  const auto reopened = SearchIndex::open(index_.path() / "sparse");
  ASSERT_TRUE(reopened.sparse_model().has_value());
  EXPECT_EQ(reopened.sparse_model()->onnx_sha256, stats.sparse_model->onnx_sha256);
}

TEST_F(SparseSearchIndexTest, RefusalsNameTheModelOrTheList) {
  auto dense_only = create();
  (void)dense_only.add({docs_.path() / "volcano.txt"}, *embedder_);
  SearchOptions options;
  options.mode = SearchMode::kSparse;
  expect_error([&] { (void)dense_only.search("lava", options, &*embedder_, nullptr, &*sparse_); },
               ErrorCode::kInvalidArgument, "--sparse-model");
  expect_error([&] { dense_only.check_sparse_model(*sparse_); }, ErrorCode::kInvalidArgument,
               "stores no sparse vectors");
  // A sparse model where a dense one goes, and the reverse.
  expect_error([&] { (void)SearchIndex::create(index_.path() / "wrong", *sparse_); }, ErrorCode::kUnsupported,
               "sparse (SPLADE) model");
  expect_error([&] { (void)SearchIndex::create(index_.path() / "wrong", *embedder_, {}, &*embedder_); },
               ErrorCode::kInvalidArgument, "not a sparse");
  auto index = create_sparse();
  expect_error([&] { (void)index.add({docs_.path() / "volcano.txt"}, *embedder_); }, ErrorCode::kInvalidArgument,
               "tiny-splade");
  expect_error([&] { (void)index.search("lava", options, &*embedder_); }, ErrorCode::kInvalidArgument,
               "sparse model tiny-splade");
  options.mode = SearchMode::kHybrid;
  options.fuse = {SearchMode::kSparse};
  expect_error([&] { (void)index.search("lava", options, &*embedder_, nullptr, &*sparse_); },
               ErrorCode::kInvalidArgument, "two or more");
  options.fuse = {SearchMode::kSparse, SearchMode::kSparse};
  expect_error([&] { (void)index.search("lava", options, &*embedder_, nullptr, &*sparse_); },
               ErrorCode::kInvalidArgument, "named twice");
  options.mode = SearchMode::kVector;
  options.fuse = {SearchMode::kSparse, SearchMode::kBm25};
  expect_error([&] { (void)index.search("lava", options, &*embedder_, nullptr, &*sparse_); },
               ErrorCode::kInvalidArgument, "only hybrid");
  EXPECT_EQ(parse_search_mode("sparse"), SearchMode::kSparse);
}

}  // namespace
}  // namespace sieve
