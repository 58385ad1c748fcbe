#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace sieve::model {

// What ONNX Runtime's transformer optimizer did (or did not do) to a graph,
// read from the file's operators: fused blocks run as one kernel each
// (Attention instead of a dozen MatMul/Softmax/Transpose nodes), which is
// where a fused graph's speed comes from.
struct FusionReport {
  // The fused operators present, with their node counts, in a fixed order.
  std::vector<std::pair<std::string, int>> fused;
  // Set when the graph holds unfused attention (Softmax nodes, no attention
  // operator): what is left unfused and how to fuse it. Empty otherwise.
  std::string unfused;
};

FusionReport describe_fusion(const std::map<std::string, int>& operators);

// describe_fusion() of the ONNX file's main graph; a file that cannot be
// read gives an empty report (the caller has already loaded it through ONNX
// Runtime, which is the authority on whether it is valid).
FusionReport describe_fusion(const std::filesystem::path& onnx_file);

}  // namespace sieve::model
