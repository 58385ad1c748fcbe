#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <set>

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
    write(docs_.path() / "ignored.bin", "binary");
  }

  SearchIndex create(std::size_t exact_threshold = 20000) {
    IndexCreateOptions options;
    options.chunking = {16, 4};
    options.exact_threshold = exact_threshold;
    return SearchIndex::create(index_.path() / "idx", *embedder_, options);
  }

  TempFolder docs_;
  TempFolder index_;
  std::optional<Embedder> embedder_;
};

TEST_F(SearchIndexTest, AddsEveryFormatAndSkipsUnchangedFiles) {
  auto index = create();
  const auto first = index.add({docs_.path()}, *embedder_);
  EXPECT_EQ(first.files_seen, 5U);
  EXPECT_EQ(first.files_skipped, 1U);  // ignored.bin
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
  const auto all = index.search("rivers sediment", options, &*embedder_);
  ASSERT_FALSE(all.hits.empty());
  EXPECT_EQ(all.hits[0].document_id, "r1");  // first in BM25, and present in the vector list
  EXPECT_NEAR(all.hits[0].score, 1.0 / 61 + (all.hits[0].vector_score ? 1.0 / (60 + 1) : 0), 0.02);
  options.filters = {{"lang", "fr"}};
  const auto french = index.search("rivers sediment", options, &*embedder_);
  ASSERT_EQ(french.hits.size(), 1U);
  EXPECT_EQ(french.hits[0].document_id, "r2");
  options.filters = {{"lang", "de"}};
  EXPECT_TRUE(index.search("rivers", options, &*embedder_).hits.empty());
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

}  // namespace
}  // namespace sieve
