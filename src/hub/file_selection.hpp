#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "hub/hub_api.hpp"
#include "sieve/hub.hpp"

namespace sieve::hub {

// The ONNX exports among the files: model.onnx is "fp32", model_X.onnx is
// "X", at the root or in onnx/; sorted by name, fp32 first. Sizes include
// the external data files.
std::vector<Variant> find_variants(const std::vector<Sibling>& siblings);

// A file to fetch and where it goes in the model folder.
struct SelectedFile {
  Sibling source;
  std::string local_path;  // '/'-separated, relative to the model folder
};

// What a model folder of `variant` needs: the chosen ONNX file (as
// model.onnx) and its external data files beside it, the tokenizer and model
// configuration, and the sentence-transformers module configuration. Never
// weights in other formats, other variants or other exports. Throws
// sieve::Error when the repository has no ONNX export, no tokenizer.json or
// not that variant; `repo_id` names it in the message.
std::vector<SelectedFile> select_files(const std::vector<Sibling>& siblings, std::string_view variant,
                                       std::string_view repo_id);

}  // namespace sieve::hub
