#include "hub/file_selection.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "sieve/error.hpp"

namespace sieve::hub {
namespace {

std::vector<Sibling> siblings(const std::vector<std::pair<std::string, std::uint64_t>>& files) {
  std::vector<Sibling> out;
  out.reserve(files.size());
  for (const auto& [path, size] : files) out.push_back({path, size, std::nullopt, std::nullopt, std::nullopt});
  return out;
}

// The file list of sentence-transformers/all-MiniLM-L6-v2 (abridged only in sizes).
std::vector<Sibling> sentence_transformers_repo() {
  return siblings({{".gitattributes", 1},
                   {"1_Pooling/config.json", 190},
                   {"README.md", 10},
                   {"config.json", 612},
                   {"config_sentence_transformers.json", 116},
                   {"data_config.json", 39265},
                   {"model.safetensors", 90868376},
                   {"modules.json", 349},
                   {"onnx/model.onnx", 90405214},
                   {"onnx/model_O1.onnx", 90360328},
                   {"onnx/model_O4.onnx", 45212349},
                   {"onnx/model_qint8_arm64.onnx", 23026053},
                   {"onnx/model_qint8_avx512.onnx", 23026053},
                   {"onnx/model_qint8_avx512_vnni.onnx", 23026053},
                   {"onnx/model_quint8_avx2.onnx", 23046789},
                   {"openvino/openvino_model.xml", 211315},
                   {"openvino/openvino_model.bin", 90265744},
                   {"pytorch_model.bin", 90888945},
                   {"rust_model.ot", 90887379},
                   {"sentence_bert_config.json", 53},
                   {"special_tokens_map.json", 112},
                   {"tf_model.h5", 91005696},
                   {"tokenizer.json", 466247},
                   {"tokenizer_config.json", 350},
                   {"train_script.py", 13156},
                   {"vocab.txt", 231508}});
}

std::map<std::string, std::string> chosen(const std::vector<SelectedFile>& files) {
  std::map<std::string, std::string> out;
  for (const auto& f : files) out[f.local_path] = f.source.path;
  return out;
}

std::string error_of(const std::vector<Sibling>& files, const char* variant) {
  try {
    (void)select_files(files, variant, "org/name");
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(FileSelection, ListsVariantsFp32First) {
  const auto variants = find_variants(sentence_transformers_repo());
  std::vector<std::string> names;
  names.reserve(variants.size());
  for (const auto& v : variants) names.push_back(v.name);
  EXPECT_EQ(names, (std::vector<std::string>{"fp32", "O1", "O4", "qint8_arm64", "qint8_avx512", "qint8_avx512_vnni",
                                             "quint8_avx2"}));
  EXPECT_EQ(variants[0].onnx_file, "onnx/model.onnx");
  EXPECT_EQ(variants[0].bytes, 90405214u);
}

TEST(FileSelection, Fp32TakesTheModelAndItsConfigurationOnly) {
  const auto files = chosen(select_files(sentence_transformers_repo(), "fp32", "org/name"));
  const std::map<std::string, std::string> expected = {
      {"model.onnx", "onnx/model.onnx"},
      {"1_Pooling/config.json", "1_Pooling/config.json"},
      {"config.json", "config.json"},
      {"config_sentence_transformers.json", "config_sentence_transformers.json"},
      {"modules.json", "modules.json"},
      {"sentence_bert_config.json", "sentence_bert_config.json"},
      {"special_tokens_map.json", "special_tokens_map.json"},
      {"tokenizer.json", "tokenizer.json"},
      {"tokenizer_config.json", "tokenizer_config.json"},
      {"vocab.txt", "vocab.txt"}};
  EXPECT_EQ(files, expected);
}

TEST(FileSelection, AQuantizedVariantBecomesModelOnnx) {
  const auto files = chosen(select_files(sentence_transformers_repo(), "qint8_avx512", "org/name"));
  EXPECT_EQ(files.at("model.onnx"), "onnx/model_qint8_avx512.onnx");
  EXPECT_EQ(files.count("onnx/model.onnx"), 0u);
  EXPECT_EQ(std::count_if(files.begin(), files.end(), [](const auto& f) { return f.second.ends_with(".onnx"); }), 1);
}

// Xenova-style exports, with external data beside the graph.
TEST(FileSelection, ExternalDataGoesBesideModelOnnx) {
  const auto repo = siblings({{"onnx/model.onnx", 1000},
                              {"onnx/model.onnx_data", 2000000},
                              {"onnx/model_fp16.onnx", 500},
                              {"onnx/model_fp16.onnx_data", 1000000},
                              {"onnx/model_quantized.onnx", 600},
                              {"onnx/model_q4.onnx", 700},
                              {"onnx/model_q4.onnx.data", 300},
                              {"onnx/encoder_model.onnx", 5},
                              {"model.safetensors", 9},
                              {"tokenizer.json", 10},
                              {"merges.txt", 10},
                              {"vocab.json", 10}});
  const auto variants = find_variants(repo);
  ASSERT_EQ(variants.size(), 4u);
  EXPECT_EQ(variants[0].name, "fp32");
  EXPECT_EQ(variants[0].bytes, 2001000u);
  EXPECT_EQ(variants[1].name, "fp16");
  EXPECT_EQ(variants[1].bytes, 1000500u);
  EXPECT_EQ(variants[2].name, "q4");
  EXPECT_EQ(variants[2].bytes, 1000u);
  EXPECT_EQ(variants[3].name, "quantized");

  const auto fp32 = chosen(select_files(repo, "fp32", "org/name"));
  const std::map<std::string, std::string> expected = {{"model.onnx", "onnx/model.onnx"},
                                                       {"model.onnx_data", "onnx/model.onnx_data"},
                                                       {"tokenizer.json", "tokenizer.json"},
                                                       {"merges.txt", "merges.txt"},
                                                       {"vocab.json", "vocab.json"}};
  EXPECT_EQ(fp32, expected);
  const auto q4 = chosen(select_files(repo, "q4", "org/name"));
  EXPECT_EQ(q4.at("model.onnx"), "onnx/model_q4.onnx");
  EXPECT_EQ(q4.at("model_q4.onnx.data"), "onnx/model_q4.onnx.data");
  EXPECT_EQ(q4.count("model.onnx_data"), 0u);
}

TEST(FileSelection, RootModelOnnx) {
  const auto repo = siblings({{"model.onnx", 10}, {"model_int8.onnx", 5}, {"tokenizer.json", 1}});
  EXPECT_EQ(chosen(select_files(repo, "fp32", "org/name")).at("model.onnx"), "model.onnx");
  EXPECT_EQ(chosen(select_files(repo, "int8", "org/name")).at("model.onnx"), "model_int8.onnx");
}

TEST(FileSelection, ClearErrors) {
  const auto no_onnx = siblings({{"model.safetensors", 1}, {"tokenizer.json", 1}});
  EXPECT_NE(error_of(no_onnx, "fp32").find("org/name has no ONNX export"), std::string::npos);
  EXPECT_NE(error_of(no_onnx, "fp32").find("sieve-export"), std::string::npos);
  const auto no_tokenizer = siblings({{"onnx/model.onnx", 1}, {"vocab.txt", 1}});
  EXPECT_NE(error_of(no_tokenizer, "fp32").find("no tokenizer.json"), std::string::npos);
  const std::string unknown = error_of(sentence_transformers_repo(), "int4");
  EXPECT_NE(unknown.find("no ONNX variant \"int4\""), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("available: fp32, O1, O4, qint8_arm64"), std::string::npos) << unknown;
}

TEST(FileSelection, NamesOutsideTheFolderAreNotSelected) {
  auto repo = sentence_transformers_repo();
  for (const char* name : {"../1_Pooling/config.json", "1_Pooling//config.json", "onnx/../model_x.onnx",
                           "/etc/config.json", "onnx/../../model.onnx_data"}) {
    repo.push_back({name, 1, std::nullopt, std::nullopt, std::nullopt});
  }
  const auto files = select_files(repo, "fp32", "org/name");
  EXPECT_EQ(files.size(), 10u);
  for (const auto& f : files) EXPECT_EQ(f.source.path.find(".."), std::string::npos) << f.source.path;
  EXPECT_EQ(find_variants(repo).size(), 7u);
}

}  // namespace
}  // namespace sieve::hub
