#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "tokenizer/core/components.hpp"
#include "tokenizer/core/json_view.hpp"

namespace sieve::tokenizer {

// Factories keyed by the JSON "type" of each component. A type that is not
// registered is an error naming it and its JSON path: never a silent
// fallback that would give different ids.
template <typename Component>
class FactoryTable {
 public:
  using Factory = std::function<std::unique_ptr<Component>(const JsonView&)>;

  void add(const std::string& type, Factory factory) { factories_[type] = std::move(factory); }

  std::unique_ptr<Component> create(const JsonView& node, const char* kind) const {
    node.expect_object();
    return create_as(node, node.at("type").as_string(), kind);
  }

  // For objects whose type is implied by their fields (older model entries).
  std::unique_ptr<Component> create_as(const JsonView& node, const std::string& type, const char* kind) const {
    const auto it = factories_.find(type);
    if (it == factories_.end()) {
      node.fail(std::string("unsupported ") + kind + " type \"" + type + "\"", ErrorCode::kUnsupported);
    }
    return it->second(node);
  }

 private:
  std::map<std::string, Factory, std::less<>> factories_;
};

struct ComponentRegistry {
  FactoryTable<Normalizer> normalizers;
  FactoryTable<PreTokenizer> pre_tokenizers;
  FactoryTable<Model> models;
  FactoryTable<PostProcessor> processors;
  FactoryTable<Decoder> decoders;

  // The registry with every built-in component.
  static const ComponentRegistry& builtin();
};

// Each stage's folder registers its components (normalizers/register.cpp, ...).
void register_normalizers(FactoryTable<Normalizer>& table);
void register_pre_tokenizers(FactoryTable<PreTokenizer>& table);
void register_models(FactoryTable<Model>& table);
void register_processors(FactoryTable<PostProcessor>& table);
void register_decoders(FactoryTable<Decoder>& table);

}  // namespace sieve::tokenizer
