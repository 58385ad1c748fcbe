#include "model/accuracy_record.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "sieve/error.hpp"
#include "support/temp_folder.hpp"

namespace sieve::model {
namespace {

namespace fs = std::filesystem;

class AccuracyRecordFile : public testing::TempFolderTest {
 protected:
  void write(const std::string& text) const { write_file(kAccuracyRecordFile, text); }
};

TEST_F(AccuracyRecordFile, AbsentIsNoRecord) {
  EXPECT_FALSE(read_accuracy_record(dir_).has_value());
}

TEST_F(AccuracyRecordFile, APassedRecordIsOneLine) {
  write(R"J({"variant": "INT8 dynamic (avx512_vnni)", "sample": "built-in", "min_cosine": 0.99, "passed": true,
            "texts": 96, "metric": "cosine", "mean": 0.99775, "min": 0.99519})J");
  const auto record = read_accuracy_record(dir_);
  ASSERT_TRUE(record.has_value());
  EXPECT_TRUE(record->passed);
  EXPECT_EQ(record->summary,
            "mean cosine 0.9978 (min 0.9952) to the float model on 96 texts, built-in; at least 0.9900; "
            "INT8 dynamic (avx512_vnni)");
}

TEST_F(AccuracyRecordFile, AForcedRecordSaysItIsBelow) {
  write(R"J({"sample": "s", "min_cosine": 0.99, "passed": false, "texts": 12, "metric": "score correlation",
            "mean": 0.5, "min": 0.25})J");
  const auto record = read_accuracy_record(dir_);
  ASSERT_TRUE(record.has_value());
  EXPECT_FALSE(record->passed);
  EXPECT_NE(record->summary.find("mean score correlation 0.5000 (min 0.2500)"), std::string::npos);
  EXPECT_NE(record->summary.find("BELOW the required 0.9900"), std::string::npos);
}

TEST_F(AccuracyRecordFile, ABrokenRecordIsAnErrorNamingTheFile) {
  for (const char* text : {"not json", R"J({"passed": true, "texts": 1, "mean": "high", "min": 1, "min_cosine": 1})J",
                           R"J({"texts": 1, "mean": 1, "min": 1, "min_cosine": 1})J"}) {
    write(text);
    try {
      (void)read_accuracy_record(dir_);
      ADD_FAILURE() << "accepted " << text;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(kAccuracyRecordFile), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace sieve::model
