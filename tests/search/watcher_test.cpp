#include "search/watcher.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <vector>

namespace sieve::search {
namespace watcher_test {

using std::chrono::milliseconds;
using Paths = std::vector<std::filesystem::path>;

TEST(ChangeBatcher, NothingPendingIsNeverDue) {
  ChangeBatcher batcher(milliseconds(500), milliseconds(3000));
  EXPECT_FALSE(batcher.due().has_value());
  const auto batch = batcher.take();
  EXPECT_FALSE(batch.rescan);
  EXPECT_TRUE(batch.paths.empty());
}

TEST(ChangeBatcher, DueOnceChangesSettle) {
  ChangeBatcher batcher(milliseconds(500), milliseconds(3000));
  const WatchClock::time_point t0{};
  batcher.note("/d/a.txt", t0);
  EXPECT_EQ(*batcher.due(), t0 + milliseconds(500));
  // A file still being written pushes the batch back.
  batcher.note("/d/a.txt", t0 + milliseconds(400));
  EXPECT_EQ(*batcher.due(), t0 + milliseconds(900));
}

TEST(ChangeBatcher, BusyFoldersAreAppliedAfterTheLongestDelay) {
  ChangeBatcher batcher(milliseconds(500), milliseconds(3000));
  const WatchClock::time_point t0{};
  for (int i = 0; i < 100; ++i) batcher.note("/d/log.txt", t0 + milliseconds(100 * i));
  EXPECT_EQ(*batcher.due(), t0 + milliseconds(3000));
  batcher.take();
  EXPECT_FALSE(batcher.due().has_value());
  // The next batch's delay counts from its own first change.
  batcher.note("/d/log.txt", t0 + milliseconds(10000));
  EXPECT_EQ(*batcher.due(), t0 + milliseconds(10500));
}

TEST(ChangeBatcher, EachPathOnceAndNothingBelowAFolderInTheBatch) {
  ChangeBatcher batcher(milliseconds(500), milliseconds(3000));
  const WatchClock::time_point t0{};
  for (const char* path : {"/d/sub/x.txt", "/d/a.txt", "/d/sub", "/d/sub/deeper/y.txt", "/d/sub-2/z.txt", "/d/a.txt",
                           "/d/subway.txt", "/d/b.txt"}) {
    batcher.note(path, t0);
  }
  EXPECT_EQ(batcher.take().paths, (Paths{"/d/a.txt", "/d/b.txt", "/d/sub", "/d/sub-2/z.txt", "/d/subway.txt"}));
  EXPECT_TRUE(batcher.take().paths.empty());
}

TEST(ChangeBatcher, ALostQueueMeansAWholeRescan) {
  ChangeBatcher batcher(milliseconds(500), milliseconds(3000));
  const WatchClock::time_point t0{};
  batcher.note("/d/a.txt", t0);
  batcher.note_rescan(t0 + milliseconds(100));
  EXPECT_EQ(*batcher.due(), t0 + milliseconds(600));
  const auto batch = batcher.take();
  EXPECT_TRUE(batch.rescan);
  EXPECT_TRUE(batch.paths.empty());
  EXPECT_FALSE(batcher.take().rescan);
}

}  // namespace watcher_test
}  // namespace sieve::search
