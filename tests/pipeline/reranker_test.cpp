#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <random>

#include "sieve/error.hpp"
#include "sieve/reranker.hpp"
#include "support/paths.hpp"

namespace sieve {
namespace {

namespace fs = std::filesystem;

// The fixture cross-encoders come from tools/make_cross_encoder.py; the
// reference scores from sentence-transformers' CrossEncoder.predict on the
// same folder (tools/make_ce_reference.py, stored in tests/data/).
fs::path minilm() {
  return testing::fixtures_dir() / "cross-encoder-minilm-l6";
}
fs::path three_labels() {
  return testing::fixtures_dir() / "cross-encoder-tiny-3labels";
}

nlohmann::json read_json(const fs::path& file) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error(file.string() + " missing (tools/make_cross_encoder.py makes the fixtures)");
  return nlohmann::json::parse(in);
}

struct Group {
  std::string query;
  std::vector<std::string> documents;
  [[nodiscard]] std::vector<std::string_view> views() const { return {documents.begin(), documents.end()}; }
};

std::vector<Group> read_groups() {
  std::vector<Group> groups;
  // Named: a range-for over a member of a temporary would outlive the temporary.
  const auto doc = read_json(testing::source_dir() / "tests/data/cross-encoder-pairs.json");
  for (const auto& g : doc["groups"]) {
    groups.push_back({g["query"].get<std::string>(), g["documents"].get<std::vector<std::string>>()});
  }
  return groups;
}

nlohmann::json read_reference() {
  auto ref = read_json(testing::source_dir() / "tests/data/cross-encoder-minilm-l6.ce-reference.json");
  // The stored scores belong to one set of weights; a regenerated fixture
  // must not fail as a parity bug.
  const auto fixture = read_json(minilm() / "fixture.json");
  if (fixture["weights_sha256"] != ref["weights_sha256"]) {
    throw std::runtime_error(
        "the fixture cross-encoder's weights differ from those of the stored reference: "
        "rerun tools/make_ce_reference.py");
  }
  return ref;
}

double worst_difference(const std::vector<float>& got, const nlohmann::json& expected) {
  EXPECT_EQ(got.size(), expected.size());
  double worst = 0;
  for (std::size_t i = 0; i < std::min(got.size(), expected.size()); ++i) {
    worst = std::max(worst, std::abs(static_cast<double>(got[i]) - expected[i].get<double>()));
  }
  return worst;
}

RerankerOptions single_thread() {
  RerankerOptions options;
  options.runtime.intra_op_threads = 1;
  return options;
}

TEST(Reranker, MatchesSentenceTransformersCrossEncoderWithin1e4) {
  const auto groups = read_groups();
  const auto ref = read_reference();
  for (const std::size_t batch_size : {1UL, 32UL}) {
    auto options = single_thread();
    options.batch_size = batch_size;
    const auto reranker = Reranker::load(minilm(), options);
    EXPECT_EQ(reranker.activation(), ScoreActivation::kSigmoid);
    EXPECT_EQ(reranker.info().max_length, ref["max_length"].get<std::size_t>());
    for (std::size_t g = 0; g < groups.size(); ++g) {
      const auto scores = reranker.score(groups[g].query, groups[g].views());
      EXPECT_LE(worst_difference(scores, ref["groups"][g]["default"]), 1e-4)
          << "group " << g << " batch " << batch_size;
    }
  }
}

TEST(Reranker, ScoresPairsOfManyQueriesAsCrossEncoderPredict) {
  // Every group's pairs in one list, the queries interleaved, against CrossEncoder.predict's scores.
  const auto groups = read_groups();
  const auto ref = read_reference();
  std::vector<TextPair> pairs;
  std::vector<double> expected;
  for (std::size_t d = 0;; ++d) {
    bool any = false;
    for (std::size_t g = 0; g < groups.size(); ++g) {
      if (d >= groups[g].documents.size()) continue;
      pairs.push_back({groups[g].query, groups[g].documents[d]});
      expected.push_back(ref["groups"][g]["default"][d].get<double>());
      any = true;
    }
    if (!any) break;
  }
  ASSERT_GT(pairs.size(), groups.size());
  const auto reranker = Reranker::load(minilm(), single_thread());
  for (const std::size_t batch_size : {0UL, 1UL, 7UL}) {
    const auto scores = reranker.score_pairs(pairs, batch_size);
    ASSERT_EQ(scores.size(), pairs.size());
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      EXPECT_NEAR(scores[i], expected[i], 1e-4) << "pair " << i << " batch " << batch_size;
    }
  }
  EXPECT_TRUE(reranker.score_pairs({}).empty());
}

TEST(Reranker, RawScoresAndShortMaxLengthMatchCrossEncoder) {
  const auto groups = read_groups();
  const auto ref = read_reference();
  auto raw_options = single_thread();
  raw_options.activation = ScoreActivation::kNone;
  const auto raw = Reranker::load(minilm(), raw_options);
  auto short_options = single_thread();
  short_options.max_length = 24;
  const auto short_model = Reranker::load(minilm(), short_options);
  for (std::size_t g = 0; g < groups.size(); ++g) {
    EXPECT_LE(worst_difference(raw.score(groups[g].query, groups[g].views()), ref["groups"][g]["raw"]), 1e-4)
        << "group " << g;
    EXPECT_LE(
        worst_difference(short_model.score(groups[g].query, groups[g].views()), ref["groups"][g]["max_length_24"]),
        1e-4)
        << "group " << g;
  }
}

TEST(Reranker, TruncatesPairsAsTheCrossEncoderTokenizerDoes) {
  // Token counts after truncation, from transformers' tokenizer inside the
  // CrossEncoder (tools/make_ce_reference.py): longest_first to 512 and 24.
  const auto groups = read_groups();
  const auto ref = read_reference();
  const auto full = Reranker::load(minilm(), single_thread());
  auto short_options = single_thread();
  short_options.max_length = 24;
  const auto short_model = Reranker::load(minilm(), short_options);
  bool some_truncated = false;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    for (std::size_t d = 0; d < groups[g].documents.size(); ++d) {
      const auto n = full.tokenizer().encode_pair(groups[g].query, groups[g].documents[d]).size();
      EXPECT_EQ(n, ref["groups"][g]["tokens"][d].get<std::size_t>()) << "group " << g << " document " << d;
      const auto n24 = short_model.tokenizer().encode_pair(groups[g].query, groups[g].documents[d]).size();
      EXPECT_EQ(n24, ref["groups"][g]["tokens_24"][d].get<std::size_t>()) << "group " << g << " document " << d;
      some_truncated = some_truncated || n == 512;
    }
  }
  EXPECT_TRUE(some_truncated) << "the parity input should include pairs longer than the model's 512 tokens";
}

TEST(Reranker, OnlySecondKeepsTheWholeQuery) {
  auto options = single_thread();
  options.max_length = 32;
  options.truncation = TruncationStrategy::kOnlySecond;
  const auto reranker = Reranker::load(minilm(), options);
  const std::string query = "how many people live in berlin today";
  const auto longest = reranker.tokenizer().encode(query, false).size();
  const auto e = reranker.tokenizer().encode_pair(query, "berlin has many people " + std::string(40, 'b') + " x y z");
  EXPECT_EQ(e.size(), 32U);
  std::size_t first = 0;
  for (std::size_t i = 0; i < e.size(); ++i) first += e.type_ids[i] == 0 && e.special_tokens_mask[i] == 0;
  EXPECT_EQ(first, longest);
  // A query longer than the limit cannot be kept whole: an error naming the pair.
  std::string long_query;
  for (int i = 0; i < 40; ++i) long_query += "berlin ";
  const std::vector<std::string_view> docs = {"short", "documents"};
  try {
    (void)reranker.score(long_query, docs);
    // Hugging Face refuses as well ("Truncation error: Second sequence not long enough").
    ADD_FAILURE() << "expected an error";
  } catch (const Error& err) {
    EXPECT_TRUE(err.input_index().has_value());
  }
}

TEST(Reranker, RerankOrdersBestFirstAndKeepsInputOrderOnTies) {
  auto options = single_thread();
  const auto reranker = Reranker::load(minilm(), options);
  const std::vector<std::string_view> docs = {"berlin has 3.8 million people", "the cat sat on the mat",
                                              "berlin has 3.8 million people", "paris is in france",
                                              "population of berlin",          ""};
  const std::string query = "how many people live in berlin";
  const auto scores = reranker.score(query, docs);
  const auto all = reranker.rerank(query, docs);
  ASSERT_EQ(all.size(), docs.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(all[i].score, scores[all[i].index]);
    if (i > 0) {
      EXPECT_GE(all[i - 1].score, all[i].score);
    }
  }
  // Documents 0 and 2 are the same text: equal scores, input order.
  EXPECT_EQ(scores[0], scores[2]);
  std::size_t pos0 = 0;
  std::size_t pos2 = 0;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (all[i].index == 0) pos0 = i;
    if (all[i].index == 2) pos2 = i;
  }
  EXPECT_LT(pos0, pos2);
  const auto top2 = reranker.rerank(query, docs, 2);
  ASSERT_EQ(top2.size(), 2U);
  EXPECT_EQ(top2[0].index, all[0].index);
  EXPECT_EQ(top2[1].index, all[1].index);
  EXPECT_EQ(reranker.rerank(query, docs, 100).size(), docs.size());
  EXPECT_TRUE(reranker.rerank(query, {}, 3).empty());
  EXPECT_TRUE(reranker.score(query, {}).empty());
}

TEST(Reranker, ScoresDoNotDependOnBatchComposition) {
  const auto groups = read_groups();
  const auto reranker = Reranker::load(minilm(), single_thread());
  const auto& g = groups[1];
  const auto together = reranker.score(g.query, g.views());
  for (std::size_t d = 0; d < g.documents.size(); d += 3) {
    const std::vector<std::string_view> one = {g.documents[d]};
    EXPECT_NEAR(reranker.score(g.query, one)[0], together[d], 1e-5) << "document " << d;
  }
}

TEST(Reranker, SigmoidIsTheLogisticOfTheRawLogit) {
  auto raw_options = single_thread();
  raw_options.activation = ScoreActivation::kNone;
  const auto raw = Reranker::load(minilm(), raw_options);
  const auto sig = Reranker::load(minilm(), single_thread());
  const std::vector<std::string_view> docs = {"one", "two words", "the third document is longer than the others"};
  const auto logits = raw.score("query", docs);
  const auto probs = sig.score("query", docs);
  for (std::size_t i = 0; i < docs.size(); ++i) {
    EXPECT_NEAR(probs[i], 1.0 / (1.0 + std::exp(-static_cast<double>(logits[i]))), 1e-7);
  }
  EXPECT_EQ(raw.info().output, "logits");
  EXPECT_EQ(raw.info().pairs.labels, 1U);
  EXPECT_EQ(raw.info().dimension, 0U);  // no vectors
  EXPECT_EQ(raw.num_labels(), 1U);
}

// A folder that shares the fixture's model and tokenizer but has its own config.json.
class ConfiguredFolder {
 public:
  ConfiguredFolder(const fs::path& model, const nlohmann::json& config) {
    std::random_device rd;
    dir_ = fs::temp_directory_path() / ("sieve-reranker-test-" + std::to_string(rd()));
    fs::create_directories(dir_);
    for (const char* name : {"model.onnx", "tokenizer.json", "tokenizer_config.json"}) {
      fs::create_symlink(fs::absolute(model / name), dir_ / name);
    }
    std::ofstream(dir_ / "config.json") << config.dump();
  }
  ~ConfiguredFolder() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  ConfiguredFolder(const ConfiguredFolder&) = delete;
  ConfiguredFolder& operator=(const ConfiguredFolder&) = delete;
  [[nodiscard]] const fs::path& path() const { return dir_; }

 private:
  fs::path dir_;
};

TEST(Reranker, AutoActivationFollowsTheSentenceTransformersConfiguration) {
  auto config = read_json(minilm() / "config.json");
  // The real cross-encoder/ms-marco-MiniLM-L-6-v2 records Identity: raw logits.
  config["sentence_transformers"] = {{"activation_fn", "torch.nn.modules.linear.Identity"}, {"version", "4.0.1"}};
  {
    const ConfiguredFolder folder(minilm(), config);
    EXPECT_EQ(Reranker::load(folder.path(), single_thread()).activation(), ScoreActivation::kNone);
    auto options = single_thread();
    options.activation = ScoreActivation::kSigmoid;  // an explicit choice wins
    EXPECT_EQ(Reranker::load(folder.path(), options).activation(), ScoreActivation::kSigmoid);
  }
  config.erase("sentence_transformers");
  config["sbert_ce_default_activation_function"] = "torch.nn.modules.activation.Sigmoid";  // before v4
  {
    const ConfiguredFolder folder(minilm(), config);
    EXPECT_EQ(Reranker::load(folder.path(), single_thread()).activation(), ScoreActivation::kSigmoid);
  }
  config["sbert_ce_default_activation_function"] = "torch.nn.modules.activation.Tanh";
  {
    const ConfiguredFolder folder(minilm(), config);
    EXPECT_THROW((void)Reranker::load(folder.path(), single_thread()), Error);
    auto options = single_thread();
    options.activation = ScoreActivation::kNone;
    EXPECT_THROW((void)Reranker::load(folder.path(), options), Error);  // the file itself is unsupported
  }
}

TEST(Reranker, SeveralLabelsGiveTheChosenLabelsSoftmax) {
  auto raw_options = single_thread();
  raw_options.activation = ScoreActivation::kNone;
  std::vector<std::vector<float>> logits;  // [label][document]
  const std::vector<std::string_view> docs = {"a man eats food", "nobody eats", "", "a woman is eating bread"};
  const std::string query = "a man is eating";
  for (std::size_t label = 0; label < 3; ++label) {
    raw_options.label = label;
    const auto raw = Reranker::load(three_labels(), raw_options);
    EXPECT_EQ(raw.num_labels(), 3U);  // from id2label: the fixture's config has no num_labels
    logits.push_back(raw.score(query, docs));
  }
  for (std::size_t label = 0; label < 3; ++label) {
    auto options = single_thread();
    options.label = label;
    const auto reranker = Reranker::load(three_labels(), options);
    EXPECT_EQ(reranker.activation(), ScoreActivation::kSoftmax);
    const auto probs = reranker.score(query, docs);
    for (std::size_t d = 0; d < docs.size(); ++d) {
      double sum = 0;
      for (std::size_t j = 0; j < 3; ++j) sum += std::exp(static_cast<double>(logits[j][d]));
      EXPECT_NEAR(probs[d], std::exp(static_cast<double>(logits[label][d])) / sum, 1e-6);
    }
  }
  auto options = single_thread();
  options.label = 3;
  try {
    (void)Reranker::load(three_labels(), options);
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidArgument);
  }
}

TEST(Reranker, RefusesWhatIsNotACrossEncoder) {
  try {
    (void)Reranker::load(testing::fixtures_dir() / "no-such-model");
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kNotFound);
  }
  // An embedding model: config.json names BertModel.
  try {
    (void)Reranker::load(testing::fixtures_dir() / "tiny-bert-tokens");
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUnsupported);
    EXPECT_NE(std::string(e.what()).find("not a cross-encoder"), std::string::npos) << e.what();
  }
  // The same model with a configuration that claims a classifier: its ONNX
  // output (token states) still gives it away.
  auto config = read_json(testing::fixtures_dir() / "tiny-bert-tokens/config.json");
  config["architectures"] = {"BertForSequenceClassification"};
  {
    const ConfiguredFolder folder(testing::fixtures_dir() / "tiny-bert-tokens", config);
    try {
      (void)Reranker::load(folder.path());
      ADD_FAILURE() << "expected an error";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kUnsupported);
      EXPECT_NE(std::string(e.what()).find("logits"), std::string::npos) << e.what();
    }
  }
  // Labels in config.json that the output does not have.
  config = read_json(minilm() / "config.json");
  config["num_labels"] = 3;
  {
    const ConfiguredFolder folder(minilm(), config);
    EXPECT_THROW((void)Reranker::load(folder.path()), Error);
  }
}

TEST(Reranker, RefusesBadOptionsAndInput) {
  auto options = single_thread();
  options.max_length = 513;  // the model has 512 positions
  EXPECT_THROW((void)Reranker::load(minilm(), options), Error);
  options.max_length = 3;  // [CLS] a [SEP] b [SEP] needs room for text
  EXPECT_THROW((void)Reranker::load(minilm(), options), Error);
  options = single_thread();
  options.batch_size = 0;
  EXPECT_THROW((void)Reranker::load(minilm(), options), Error);

  const auto reranker = Reranker::load(minilm(), single_thread());
  const std::string bad = "caf\xC3";
  const std::vector<std::string_view> docs = {"fine", bad};
  try {
    (void)reranker.score("query", docs);
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kInvalidInput);
    EXPECT_EQ(e.input_index(), std::optional<std::size_t>(1));
  }
  EXPECT_EQ(parse_score_activation("raw"), ScoreActivation::kNone);
  EXPECT_EQ(parse_score_activation("softmax"), ScoreActivation::kSoftmax);
  EXPECT_THROW((void)parse_score_activation("tanh"), Error);
}

}  // namespace
}  // namespace sieve
