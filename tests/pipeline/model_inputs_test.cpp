#include <gtest/gtest.h>

#include "pipeline/model_inputs.hpp"
#include "sieve/error.hpp"

namespace sieve::pipeline {
namespace {

using runtime::ElementType;
using runtime::TensorSpec;

Encoding encoding(std::vector<std::uint32_t> ids) {
  Encoding e;
  e.type_ids.assign(ids.size(), 0);
  e.ids = std::move(ids);
  return e;
}

TEST(ModelInputs, DecoderPositionsCountFromZeroPerRow) {
  const std::vector<TensorSpec> specs{{"input_ids", ElementType::kInt64, {-1, -1}},
                                      {"attention_mask", ElementType::kInt64, {-1, -1}},
                                      {"position_ids", ElementType::kInt64, {-1, -1}}};
  const InputSlots slots = find_encoder_inputs(specs, "m.onnx");
  ASSERT_TRUE(slots.position_ids.has_value());
  EXPECT_EQ(*slots.position_ids, 2U);
  EXPECT_FALSE(slots.token_type_ids.has_value());
  const Encoding a = encoding({5, 6, 7});
  const Encoding b = encoding({8});
  const std::vector<const Encoding*> batch{&a, &b};
  BatchTensors tensors;
  tensors.fill(batch, slots);
  // transformers' cumsum(mask) - 1 with padding set to 1; padding is on the right.
  EXPECT_EQ(tensors.positions, (std::vector<std::int64_t>{0, 1, 2, 0, 1, 1}));
  EXPECT_EQ(tensors.mask, (std::vector<std::int64_t>{1, 1, 1, 1, 0, 0}));
  EXPECT_EQ(tensors.inputs(slots).size(), 3U);
}

TEST(ModelInputs, InputsSieveCannotFillAreNamed) {
  const std::vector<TensorSpec> specs{{"input_ids", ElementType::kInt64, {-1, -1}},
                                      {"attention_mask", ElementType::kInt64, {-1, -1}},
                                      {"past_key_values.0.key", ElementType::kFloat32, {-1, 2, -1, 8}}};
  try {
    (void)find_encoder_inputs(specs, "m.onnx");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("\"past_key_values.0.key\""), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("without them"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace sieve::pipeline
