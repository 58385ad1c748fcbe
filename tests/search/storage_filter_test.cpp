#include <gtest/gtest.h>

#include "search/storage.hpp"
#include "sieve/error.hpp"

namespace sieve::search {
namespace {

using Prefixes = std::vector<std::pair<std::string, std::string>>;

TEST(StorageFilter, FoldersMatchThemselvesAndWhatLiesBelowOnPathBoundaries) {
  EXPECT_EQ(folder_prefixes({"/a/b"}), (Prefixes{{"/a/b", "/a/b/"}}));
  EXPECT_EQ(folder_prefixes({"/a/b/", "/a/b//"}), (Prefixes{{"/a/b", "/a/b/"}, {"/a/b", "/a/b/"}}));
  EXPECT_EQ(folder_prefixes({"/"}), (Prefixes{{"/", "/"}}));
  EXPECT_EQ(folder_prefixes({"//"}), (Prefixes{{"/", "/"}}));
  EXPECT_THROW(folder_prefixes({"a/b"}), Error);
  EXPECT_THROW(folder_prefixes({""}), Error);
}

TEST(StorageFilter, NarrowIntersectsAndUnitedJoins) {
  AllowedChunks allowed;
  narrow(allowed, {1, 3, 5, 7});
  ASSERT_TRUE(allowed);
  EXPECT_EQ(*allowed, (std::vector<std::int64_t>{1, 3, 5, 7}));
  narrow(allowed, {3, 4, 7});
  EXPECT_EQ(*allowed, (std::vector<std::int64_t>{3, 7}));
  narrow(allowed, {});
  EXPECT_TRUE(allowed && allowed->empty());  // nothing allowed is not "no filter"
  EXPECT_EQ(united({1, 4}, {2, 4, 9}), (std::vector<std::int64_t>{1, 2, 4, 9}));
}

TEST(StorageFilter, FormatsOfOldDocumentsComeFromTheirFileNames) {
  EXPECT_EQ(format_by_name("/d/report.PDF", "/d/report.PDF"), "pdf");
  EXPECT_EQ(format_by_name("/d/notes.md", "/d/notes.md"), "markdown");
  EXPECT_EQ(format_by_name("/d/a.zip!inner/page.html", "/d/a.zip"), "html");
  EXPECT_EQ(format_by_name("record-7", "/d/records.jsonl"), "jsonl");  // a record's id is no file name
  EXPECT_EQ(format_by_name("/d/README", "/d/README"), "text");
}

}  // namespace
}  // namespace sieve::search
