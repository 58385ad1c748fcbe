#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "sieve/embedder.hpp"
#include "sieve/error.hpp"
#include "support/paths.hpp"

// Late chunking in parts, as the server's queue runs it: prepare, run windows (of several documents at once),
// pool. The parts give embed_late_chunks()'s vectors; a document past max_windows and states of the wrong shape
// are errors, never reads past the end.
namespace sieve {
namespace {

Embedder short_windows() {
  EmbedderOptions options;
  options.max_length = 8;  // 6 text tokens per window: the document below takes several
  return Embedder::load(testing::fixtures_dir() / "tiny-bert-tokens", options);
}

const std::vector<std::string_view> kChunks = {"hello world how are you", "the cat sat on the mat",
                                               "a third chunk of text here"};

TEST(LateChunkParts, PartsGiveTheWholeCallsVectors) {
  const Embedder e = short_windows();
  LateChunkOptions options;
  options.overlap = 2;
  const Embeddings whole = e.embed_late_chunks(kChunks, options);
  std::string document;
  std::vector<TextSpan> spans;
  for (const auto chunk : kChunks) {
    if (!spans.empty()) document += " ";
    spans.push_back({document.size(), document.size() + chunk.size()});
    document += chunk;
  }
  const LateChunkWork work = e.prepare_late_chunks(document, spans, options);
  ASSERT_GT(work.windows.size(), 2U);
  // All windows in one run, as the queue may batch them with other documents' windows.
  std::vector<const Encoding*> windows;
  for (const auto& w : work.windows) windows.push_back(&w);
  const auto states = e.run_window_states(windows);
  const Embeddings parts = e.pool_late_chunks(work, states);
  ASSERT_EQ(parts.rows, whole.rows);
  ASSERT_EQ(parts.data.size(), whole.data.size());
  for (std::size_t i = 0; i < whole.data.size(); ++i) EXPECT_NEAR(parts.data[i], whole.data[i], 1e-5F) << i;

  // Fewer states than windows, or a window's states cut short: errors.
  EXPECT_THROW((void)e.pool_late_chunks(work, std::span(states).first(1)), Error);
  auto cut = states;
  cut.back().resize(cut.back().size() / 2);
  EXPECT_THROW((void)e.pool_late_chunks(work, cut), Error);
}

TEST(LateChunkParts, ADocumentPastMaxWindowsIsRefusedBeforeItsWindowsAreMade) {
  const Embedder e = short_windows();
  LateChunkOptions options;
  options.max_windows = 2;
  try {
    (void)e.embed_late_chunks(kChunks, options);
    FAIL() << "a document of more windows than allowed was run";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kInvalidInput);
    EXPECT_NE(std::string(error.what()).find("more than the 2 a request may run"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace sieve
