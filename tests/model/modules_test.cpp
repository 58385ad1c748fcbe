#include <gtest/gtest.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <bit>
#include <cmath>
#include <fstream>

#include "model/model_folder.hpp"
#include "model/modules/module.hpp"
#include "model/safetensors.hpp"
#include "sieve/error.hpp"

namespace sieve::model {
namespace {

namespace fs = std::filesystem;

struct Tensor {
  std::string name;
  std::string dtype;
  std::vector<std::int64_t> shape;
  std::vector<unsigned char> bytes;
};

std::vector<unsigned char> f32_bytes(const std::vector<float>& values) {
  std::vector<unsigned char> out;
  for (const float v : values) {
    const auto bits = std::bit_cast<std::uint32_t>(v);
    for (unsigned b = 0; b < 4; ++b) out.push_back(static_cast<unsigned char>(bits >> (8U * b)));
  }
  return out;
}

// A .safetensors file as the format describes it, written by hand.
void write_safetensors(const fs::path& file, const std::vector<Tensor>& tensors) {
  nlohmann::json header = nlohmann::json::object();
  header["__metadata__"] = {{"format", "pt"}};
  std::vector<unsigned char> data;
  for (const auto& t : tensors) {
    header[t.name] = {
        {"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {data.size(), data.size() + t.bytes.size()}}};
    data.insert(data.end(), t.bytes.begin(), t.bytes.end());
  }
  const std::string text = header.dump();
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  const std::uint64_t n = text.size();
  for (unsigned b = 0; b < 8; ++b) out.put(static_cast<char>((n >> (8U * b)) & 0xFFU));
  out << text;
  out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
}

class Scratch : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("sieve-modules-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const fs::path& rel, const std::string& text) const {
    fs::create_directories((dir_ / rel).parent_path());
    std::ofstream(dir_ / rel, std::ios::binary | std::ios::trunc) << text;
  }
  [[nodiscard]] ModuleSpec spec(const std::string& type, const std::string& path) const {
    ModuleSpec s;
    s.modules_file = dir_ / "modules.json";
    s.index = 2;
    s.type = type;
    s.class_name = type.substr(type.rfind('.') + 1);
    s.path = path;
    s.folder = dir_ / path;
    fs::create_directories(s.folder);
    return s;
  }
  template <typename F>
  static std::string error_of(F&& f) {
    try {
      f();
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  }
  fs::path dir_;
};

using Safetensors = Scratch;

TEST_F(Safetensors, ReadsEachFloatType) {
  // 1.5, -2 as F16 (0x3E00, 0xC000) and BF16 (0x3FC0, 0xC000).
  write_safetensors(dir_ / "w.safetensors", {{"a", "F32", {2, 2}, f32_bytes({1, 2, 3, 4})},
                                             {"h", "F16", {2}, {0x00, 0x3E, 0x00, 0xC0}},
                                             {"b", "BF16", {2}, {0xC0, 0x3F, 0x00, 0xC0}}});
  const SafetensorsFile file(dir_ / "w.safetensors");
  EXPECT_EQ(file.names(), (std::vector<std::string>{"a", "b", "h"}));
  const auto a = file.read("a");
  EXPECT_EQ(a.shape, (std::vector<std::int64_t>{2, 2}));
  EXPECT_EQ(a.values, (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(file.read("h").values, (std::vector<float>{1.5F, -2.0F}));
  EXPECT_EQ(file.read("b").values, (std::vector<float>{1.5F, -2.0F}));
  EXPECT_NE(error_of([&] { (void)file.read("missing"); }).find("no tensor \"missing\""), std::string::npos);
}

TEST_F(Safetensors, DamagedFilesAreNamedErrors) {
  const auto file = dir_ / "w.safetensors";
  write("w.safetensors", "abc");
  EXPECT_NE(error_of([&] { SafetensorsFile{file}; }).find("not a safetensors file"), std::string::npos);
  write("w.safetensors", std::string("\xff\xff\xff\xff\x00\x00\x00\x00", 8) + "{}");
  EXPECT_NE(error_of([&] { SafetensorsFile{file}; }).find("header length"), std::string::npos);
  write("w.safetensors", std::string("\x02\x00\x00\x00\x00\x00\x00\x00", 8) + "{x");
  EXPECT_NE(error_of([&] { SafetensorsFile{file}; }).find("not JSON"), std::string::npos);
  // Offsets past the data, and a byte count that is not the shape's.
  write_safetensors(file, {{"a", "F32", {4}, f32_bytes({1, 2, 3, 4})}});
  std::string bytes;
  {
    std::ifstream in(file, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  write("w.safetensors", bytes.substr(0, bytes.size() - 4));
  EXPECT_NE(error_of([&] { SafetensorsFile{file}; }).find("outside the file"), std::string::npos);
  write_safetensors(file, {{"a", "F32", {3}, f32_bytes({1, 2, 3, 4})}});
  EXPECT_NE(error_of([&] { SafetensorsFile{file}; }).find("16 bytes for 3 values"), std::string::npos);
  write_safetensors(file, {{"a", "I64", {1}, std::vector<unsigned char>(8, 0)}});
  EXPECT_NE(error_of([&] { (void)SafetensorsFile(file).read("a"); }).find("dtype I64"), std::string::npos);
}

using Modules = Scratch;

const VectorModule& as_vector(const std::shared_ptr<const Module>& m) {
  return dynamic_cast<const VectorModule&>(*m);
}

TEST_F(Modules, DenseAppliesWeightsBiasAndActivation) {
  const auto s = spec("sentence_transformers.models.Dense", "2_Dense");
  write("2_Dense/config.json", R"({"in_features": 3, "out_features": 2, "bias": true,
      "activation_function": "torch.nn.modules.activation.GELU"})");
  write_safetensors(s.folder / "model.safetensors",
                    {{"linear.weight", "F32", {2, 3}, f32_bytes({1, 0, -1, 0.5F, 0.25F, 2})},
                     {"linear.bias", "F32", {2}, f32_bytes({0.1F, -0.2F})}});
  const auto module = make_module(s);
  const auto& dense = as_vector(module);
  EXPECT_EQ(dense.output_dimension(3), 2U);
  EXPECT_NE(module->describe().find("Dense 3 -> 2, bias, GELU"), std::string::npos);
  const std::vector<float> in{0.5F, -1, 2};
  std::vector<float> out(2);
  dense.apply(in, out);
  const auto gelu = [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); };
  EXPECT_NEAR(out[0], gelu(0.5 - 2 + 0.1), 1e-6);
  EXPECT_NEAR(out[1], gelu(0.25 - 0.25 + 4 - 0.2), 1e-6);
  // The pooled width must be its in_features.
  EXPECT_NE(error_of([&] { (void)dense.output_dimension(4); }).find("in_features is 3"), std::string::npos);
}

TEST_F(Modules, DenseDefaultsToTanhAndRefusesOtherActivations) {
  const auto s = spec("sentence_transformers.models.Dense", "2_Dense");
  write("2_Dense/config.json", R"({"in_features": 1, "out_features": 1, "bias": false})");
  write_safetensors(s.folder / "model.safetensors", {{"linear.weight", "F32", {1, 1}, f32_bytes({2})}});
  const auto module = make_module(s);
  std::vector<float> out(1);
  as_vector(module).apply(std::vector<float>{0.3F}, out);
  EXPECT_NEAR(out[0], std::tanh(0.6), 1e-6);

  write("2_Dense/config.json", R"({"in_features": 1, "out_features": 1, "activation_function": "my.Swish"})");
  EXPECT_NE(error_of([&] { (void)make_module(s); }).find("\"my.Swish\" is not one Sieve applies"), std::string::npos);
  write("2_Dense/config.json", R"({"in_features": 1, "out_features": 1, "bias": false,
      "module_input_name": "token_embeddings"})");
  EXPECT_NE(error_of([&] { (void)make_module(s); }).find("token_embeddings"), std::string::npos);
  // Weights of another shape than the configuration's.
  write("2_Dense/config.json", R"({"in_features": 2, "out_features": 1, "bias": false})");
  EXPECT_NE(error_of([&] { (void)make_module(s); }).find("has shape [1, 1], the configuration says [1, 2]"),
            std::string::npos);
}

TEST_F(Modules, PickledWeightsAreRefusedWithTheConvertingCommand) {
  const auto s = spec("sentence_transformers.models.Dense", "2_Dense");
  write("2_Dense/config.json", R"({"in_features": 1, "out_features": 1})");
  write("2_Dense/pytorch_model.bin", "pickle");
  const std::string error = error_of([&] { (void)make_module(s); });
  EXPECT_NE(error.find("pytorch_model.bin"), std::string::npos) << error;
  EXPECT_NE(error.find("sieve-export convert-weights " + dir_.string()), std::string::npos) << error;
  fs::remove(s.folder / "pytorch_model.bin");
  EXPECT_NE(error_of([&] { (void)make_module(s); }).find("no weights"), std::string::npos);
}

TEST_F(Modules, LayerNormNormalizesThenScales) {
  const auto s = spec("sentence_transformers.models.LayerNorm", "3_LayerNorm");
  write("3_LayerNorm/config.json", R"({"dimension": 2})");
  write_safetensors(s.folder / "model.safetensors",
                    {{"norm.weight", "F32", {2}, f32_bytes({2, 1})}, {"norm.bias", "F32", {2}, f32_bytes({0, 1})}});
  const auto module = make_module(s);
  std::vector<float> out(2);
  as_vector(module).apply(std::vector<float>{1, 3}, out);
  const double z = 1 / std::sqrt(1 + 1e-5);  // mean 2, variance 1
  EXPECT_NEAR(out[0], -z * 2, 1e-6);
  EXPECT_NEAR(out[1], z + 1, 1e-6);
}

TEST_F(Modules, PoolingReadsEveryConfigurationForm) {
  const auto s = spec("sentence_transformers.models.Pooling", "1_Pooling");
  const auto modes = [&](const std::string& config) {
    write("1_Pooling/config.json", config);
    return std::dynamic_pointer_cast<const PoolingModule>(make_module(s))->modes();
  };
  EXPECT_EQ(modes(R"({"pooling_mode": "weightedmean"})"), std::vector<Pooling>{Pooling::kWeightedMean});
  EXPECT_EQ(modes(R"({"pooling_mode": ["max", "cls"]})"), (std::vector<Pooling>{Pooling::kMax, Pooling::kCls}));
  // The older flags concatenate in sentence-transformers' fixed order.
  EXPECT_EQ(modes(R"({"pooling_mode_lasttoken": true, "pooling_mode_cls_token": true})"),
            (std::vector<Pooling>{Pooling::kCls, Pooling::kLastToken}));
  EXPECT_EQ(modes(R"({"pooling_mode_mean_tokens": false})"), std::vector<Pooling>{Pooling::kMean});
  EXPECT_NE(error_of([&] { (void)modes(R"({"pooling_mode": "median"})"); }).find("median"), std::string::npos);
}

TEST_F(Modules, UnknownAndCustomModulesAreRefusedByName) {
  const std::string unknown = error_of([&] { (void)make_module(spec("sentence_transformers.models.CNN", "2_CNN")); });
  EXPECT_NE(unknown.find("module 2 (2_CNN, sentence_transformers.models.CNN)"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("not a transformer model"), std::string::npos) << unknown;
  const std::string custom = error_of([&] { (void)make_module(spec("my_code.Dense", "2_Dense")); });
  EXPECT_NE(custom.find("a custom module"), std::string::npos) << custom;
}

TEST_F(Modules, ModulesJsonOrderIsChecked) {
  write("tokenizer.json", "{}");
  write("model.onnx", "");
  const auto error_for = [&](const std::string& modules) {
    write("modules.json", modules);
    return error_of([&] { (void)read_model_folder(dir_); });
  };
  write("1_Pooling/config.json", R"({"pooling_mode": "mean"})");
  const std::string t = R"({"type": "sentence_transformers.models.Transformer", "path": ""})";
  const std::string p = R"({"type": "sentence_transformers.models.Pooling", "path": "1_Pooling"})";
  const std::string n = R"({"type": "sentence_transformers.models.Normalize", "path": "2_Normalize"})";
  EXPECT_EQ(error_for("[" + t + "," + p + "," + n + "]"), "");
  EXPECT_NE(error_for("[" + p + "]").find("first module is not a Transformer"), std::string::npos);
  EXPECT_NE(error_for("[" + t + "," + n + "," + p + "]").find("before any Pooling"), std::string::npos);
  EXPECT_NE(error_for("[" + t + "," + p + "," + p + "]").find("a second Pooling"), std::string::npos);
  EXPECT_NE(error_for("[" + t + R"(, {"type": "sentence_transformers.models.Pooling", "path": "../x"}])")
                .find("leaves the model folder"),
            std::string::npos);
  const auto f = read_model_folder((error_for("[" + t + "," + p + "," + n + "]"), dir_));
  ASSERT_EQ(f.modules.size(), 3U);
  EXPECT_TRUE(f.has_normalize_module);
  ASSERT_EQ(f.vector_modules.size(), 1U);
}

TEST_F(Modules, SpladePoolingReadsItsConfiguration) {
  const auto s = spec("sentence_transformers.sparse_encoder.modules.SpladePooling", "1_SpladePooling");
  const auto read = [&](const std::string& config) {
    write("1_SpladePooling/config.json", config);
    return std::dynamic_pointer_cast<const SpladePoolingModule>(make_module(s));
  };
  const auto max = read(R"({"pooling_strategy": "max", "activation_function": "relu", "embedding_dimension": 7})");
  EXPECT_FALSE(max->pooling().sum);
  EXPECT_FALSE(max->pooling().double_log);
  EXPECT_EQ(max->dimension(), 7U);
  const auto sum = read(R"({"pooling_strategy": "sum", "activation_function": "log1p_relu",
                            "word_embedding_dimension": 9})");
  EXPECT_TRUE(sum->pooling().sum);
  EXPECT_TRUE(sum->pooling().double_log);
  EXPECT_EQ(sum->dimension(), 9U);
  EXPECT_NE(error_of([&] { (void)read(R"({"pooling_strategy": "mean"})"); }).find("pooling_strategy \"mean\""),
            std::string::npos);
  EXPECT_NE(error_of([&] { (void)read(R"({"activation_function": "gelu"})"); }).find("activation_function"),
            std::string::npos);
}

TEST_F(Modules, SpladePoolingFollowsAFillMaskTransformerOnly) {
  write("tokenizer.json", "{}");
  write("model.onnx", "");
  write("1_SpladePooling/config.json", R"({"pooling_strategy": "max"})");
  write("1_Pooling/config.json", R"({"pooling_mode": "mean"})");
  const auto error_for = [&](const std::string& modules) {
    write("modules.json", modules);
    return error_of([&] { (void)read_model_folder(dir_); });
  };
  const std::string mlm = R"({"type": "sentence_transformers.sparse_encoder.models.MLMTransformer", "path": ""})";
  const std::string t = R"({"type": "sentence_transformers.models.Transformer", "path": ""})";
  const std::string sp =
      R"({"type": "sentence_transformers.sparse_encoder.models.SpladePooling", "path": "1_SpladePooling"})";
  const std::string p = R"({"type": "sentence_transformers.models.Pooling", "path": "1_Pooling"})";
  EXPECT_EQ(error_for("[" + mlm + "," + sp + "]"), "");
  EXPECT_TRUE(read_model_folder(dir_).splade_pooling != nullptr);
  // sentence-transformers 5.4 and later write a Transformer with the fill-mask task.
  write("sentence_bert_config.json", R"({"transformer_task": "fill-mask"})");
  EXPECT_EQ(error_for("[" + t + "," + sp + "]"), "");
  EXPECT_NE(error_for("[" + t + "," + p + "]").find("only SpladePooling"), std::string::npos);
  EXPECT_NE(error_for("[" + t + "]").find("without SpladePooling"), std::string::npos);
  write("sentence_bert_config.json", R"({"transformer_task": "feature-extraction"})");
  EXPECT_NE(error_for("[" + t + "," + sp + "]").find("must follow a fill-mask Transformer"), std::string::npos);
  std::filesystem::remove(dir_ / "sentence_bert_config.json");
  EXPECT_NE(error_for("[" + mlm + "," + sp + "," + p + "]").find("after SpladePooling"), std::string::npos);
  const std::string sparse_static = R"({"type": "sentence_transformers.sparse_encoder.models.SparseStaticEmbedding",
                                        "path": "0_SparseStaticEmbedding"})";
  EXPECT_NE(error_for("[" + sparse_static + "]").find("SPLADE"), std::string::npos);
}

}  // namespace
}  // namespace sieve::model
