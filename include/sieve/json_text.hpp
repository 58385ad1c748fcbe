#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

namespace sieve {

// JSON text written directly, for outputs too large to build as a JSON
// tree first (vectors of floats).

// Shortest decimal form that reads back to the same float; null for NaN
// and infinities, which JSON lacks.
void append_float(std::string& out, float value);
// A JSON string literal of UTF-8 text (bytes are copied as they are).
void append_json_string(std::string& out, std::string_view text);
template <typename T>
void append_json_array(std::string& out, std::span<const T> values) {
  out.push_back('[');
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) out.push_back(',');
    if constexpr (std::is_floating_point_v<T>) {
      append_float(out, values[i]);
    } else {
      out += std::to_string(values[i]);
    }
  }
  out.push_back(']');
}

// A sparse vector as Text Embeddings Inference's /embed_sparse writes one:
// [{"index":id,"value":weight},...]; with `token`, each entry also has
// "token", the id's vocabulary string.
void append_sparse_json(std::string& out, std::span<const std::uint32_t> ids, std::span<const float> weights,
                        const std::function<std::string_view(std::uint32_t)>& token = {});

}  // namespace sieve
