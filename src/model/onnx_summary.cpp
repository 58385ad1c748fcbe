#include "model/onnx_summary.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>
#include <vector>

#include "sieve/error.hpp"

namespace sieve::model {
namespace {

namespace fs = std::filesystem;

// Field numbers of onnx.proto (ModelProto, GraphProto, ValueInfoProto,
// TypeProto, TensorShapeProto, TensorProto, StringStringEntryProto).
constexpr std::uint32_t kModelGraph = 7;
constexpr std::uint32_t kGraphNode = 1;
constexpr std::uint32_t kNodeInput = 1;
constexpr std::uint32_t kNodeOutput = 2;
constexpr std::uint32_t kNodeOpType = 4;
constexpr std::uint32_t kNodeAttribute = 5;
constexpr std::uint32_t kAttributeName = 1;
constexpr std::uint32_t kAttributeInt = 3;
constexpr std::uint32_t kTensorDims = 1;
constexpr std::uint32_t kTensorName = 8;
constexpr std::uint32_t kGraphInitializer = 5;
constexpr std::uint32_t kGraphInput = 11;
constexpr std::uint32_t kGraphOutput = 12;
constexpr std::uint32_t kValueInfoName = 1;
constexpr std::uint32_t kValueInfoType = 2;
constexpr std::uint32_t kTypeTensor = 1;
constexpr std::uint32_t kTensorTypeElem = 1;
constexpr std::uint32_t kTensorTypeShape = 2;
constexpr std::uint32_t kShapeDim = 1;
constexpr std::uint32_t kDimValue = 1;
constexpr std::uint32_t kTensorExternalData = 13;
constexpr std::uint32_t kEntryKey = 1;
constexpr std::uint32_t kEntryValue = 2;

enum WireType : std::uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

// Reads protobuf fields from a stream, up to a limit; nested messages are
// read with a narrower limit over the same stream.
class WireReader {
 public:
  WireReader(std::istream& in, std::uint64_t end, const fs::path& file) : in_(in), end_(end), file_(file) {}

  [[nodiscard]] bool done() { return position() >= end_; }

  // The next field's number and wire type.
  std::pair<std::uint32_t, std::uint32_t> tag() {
    const std::uint64_t t = varint();
    return {static_cast<std::uint32_t>(t >> 3), static_cast<std::uint32_t>(t & 7)};
  }

  std::uint64_t varint() {
    std::uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      const int c = in_.get();
      if (c == std::char_traits<char>::eof()) fail("truncated varint");
      value |= static_cast<std::uint64_t>(c & 0x7f) << shift;
      if ((c & 0x80) == 0) return value;
    }
    fail("overlong varint");
  }

  // The end position of a length-delimited field whose tag was just read.
  std::uint64_t sub_end() {
    const std::uint64_t length = varint();
    const std::uint64_t end = position() + length;
    if (end > end_) fail("a field runs past its message");
    return end;
  }

  std::string bytes() {
    const std::uint64_t end = sub_end();
    std::string out(end - position(), '\0');
    if (!in_.read(out.data(), static_cast<std::streamsize>(out.size()))) fail("truncated field");
    return out;
  }

  void skip(std::uint32_t wire) {
    switch (wire) {
      case kVarint: (void)varint(); return;
      case kFixed64: seek(position() + 8); return;
      case kFixed32: seek(position() + 4); return;
      case kLengthDelimited: seek(sub_end()); return;
      default: fail("unsupported wire type " + std::to_string(wire));
    }
  }

  void seek(std::uint64_t to) {
    if (to > end_) fail("a field runs past its message");
    in_.seekg(static_cast<std::streamoff>(to));
    if (!in_) fail("truncated file");
  }

  std::uint64_t position() {
    const auto p = in_.tellg();
    if (p < 0) fail("unreadable");
    return static_cast<std::uint64_t>(p);
  }

  WireReader nested(std::uint64_t end) { return WireReader(in_, end, file_); }

  [[noreturn]] void fail(const std::string& what) const {
    throw Error(ErrorCode::kParse, file_.string() + ": not a readable ONNX file (" + what + ")");
  }

 private:
  std::istream& in_;
  std::uint64_t end_;
  const fs::path& file_;
};

// Reads a field's value as a nested message, calling on_field(number, wire,
// reader) for each field; unhandled fields must be skipped by the callback.
template <typename OnField>
void read_message(WireReader& parent, OnField&& on_field) {
  WireReader r = parent.nested(parent.sub_end());
  while (!r.done()) {
    const auto [field, wire] = r.tag();
    on_field(field, wire, r);
  }
}

OnnxTensor read_value_info(WireReader& parent) {
  OnnxTensor tensor;
  read_message(parent, [&](std::uint32_t f, std::uint32_t w, WireReader& info) {
    if (f == kValueInfoName && w == kLengthDelimited) {
      tensor.name = info.bytes();
    } else if (f == kValueInfoType && w == kLengthDelimited) {
      read_message(info, [&](std::uint32_t f2, std::uint32_t w2, WireReader& type) {
        if (f2 != kTypeTensor || w2 != kLengthDelimited) return type.skip(w2);
        read_message(type, [&](std::uint32_t f3, std::uint32_t w3, WireReader& t) {
          if (f3 == kTensorTypeElem && w3 == kVarint) {
            tensor.elem_type = static_cast<int>(t.varint());
          } else if (f3 == kTensorTypeShape && w3 == kLengthDelimited) {
            read_message(t, [&](std::uint32_t f4, std::uint32_t w4, WireReader& shape) {
              if (f4 != kShapeDim || w4 != kLengthDelimited) return shape.skip(w4);
              std::int64_t extent = -1;  // dim_param (a named axis) or nothing: dynamic
              read_message(shape, [&](std::uint32_t f5, std::uint32_t w5, WireReader& dim) {
                if (f5 == kDimValue && w5 == kVarint) {
                  extent = static_cast<std::int64_t>(dim.varint());
                } else {
                  dim.skip(w5);
                }
              });
              tensor.shape.push_back(extent);
            });
          } else {
            t.skip(w3);
          }
        });
      });
    } else {
      info.skip(w);
    }
  });
  return tensor;
}

// What the token-id check needs of a node: its op, inputs, outputs and a
// Gather's axis.
struct GraphNode {
  std::string op_type;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  std::int64_t axis = 0;
};

GraphNode read_node(WireReader& parent) {
  GraphNode node;
  read_message(parent, [&](std::uint32_t f, std::uint32_t w, WireReader& r) {
    if (f == kNodeOpType && w == kLengthDelimited) {
      node.op_type = r.bytes();
    } else if (f == kNodeInput && w == kLengthDelimited) {
      node.inputs.push_back(r.bytes());
    } else if (f == kNodeOutput && w == kLengthDelimited) {
      node.outputs.push_back(r.bytes());
    } else if (f == kNodeAttribute && w == kLengthDelimited) {
      std::string name;
      std::optional<std::int64_t> value;
      read_message(r, [&](std::uint32_t f2, std::uint32_t w2, WireReader& a) {
        if (f2 == kAttributeName && w2 == kLengthDelimited) {
          name = a.bytes();
        } else if (f2 == kAttributeInt && w2 == kVarint) {
          value = static_cast<std::int64_t>(a.varint());
        } else {
          a.skip(w2);
        }
      });
      if (name == "axis" && value) node.axis = *value;
    } else {
      r.skip(w);
    }
  });
  return node;
}

// An initializer's name, dimensions and external data file (if any).
struct Initializer {
  std::string name;
  std::vector<std::int64_t> dims;
  std::optional<std::string> location;
};

Initializer read_initializer(WireReader& parent) {
  Initializer init;
  read_message(parent, [&](std::uint32_t f, std::uint32_t w, WireReader& tensor) {
    if (f == kTensorName && w == kLengthDelimited) {
      init.name = tensor.bytes();
    } else if (f == kTensorDims && w == kVarint) {
      init.dims.push_back(static_cast<std::int64_t>(tensor.varint()));
    } else if (f == kTensorDims && w == kLengthDelimited) {  // packed
      WireReader packed = tensor.nested(tensor.sub_end());
      while (!packed.done()) init.dims.push_back(static_cast<std::int64_t>(packed.varint()));
    } else if (f == kTensorExternalData && w == kLengthDelimited) {
      std::string key;
      std::string value;
      read_message(tensor, [&](std::uint32_t f2, std::uint32_t w2, WireReader& entry) {
        if (f2 == kEntryKey && w2 == kLengthDelimited) {
          key = entry.bytes();
        } else if (f2 == kEntryValue && w2 == kLengthDelimited) {
          value = entry.bytes();
        } else {
          entry.skip(w2);
        }
      });
      if (key == "location") init.location = value;
    } else {
      tensor.skip(w);
    }
  });
  return init;
}

// The rows of the tables the graph looks input_ids up in (see
// OnnxSummary::id_vocabulary). Nodes of an ONNX graph come in topological
// order, so one pass finds every tensor that carries the ids unchanged.
void find_id_vocabulary(const std::vector<GraphNode>& nodes,
                        const std::map<std::string, std::vector<std::int64_t>>& tables, OnnxSummary& summary) {
  static const std::set<std::string, std::less<>> kKeepValues = {"Cast",    "Identity",  "Reshape",
                                                                 "Flatten", "Unsqueeze", "Squeeze"};
  static const std::set<std::string, std::less<>> kKeepTable = {"Cast", "Identity", "DequantizeLinear"};
  std::set<std::string, std::less<>> ids = {"input_ids"};
  std::map<std::string_view, const GraphNode*> producer;
  for (const auto& node : nodes) {
    for (const auto& out : node.outputs) producer.emplace(out, &node);
    if (kKeepValues.contains(node.op_type) && !node.inputs.empty() && ids.contains(node.inputs[0])) {
      ids.insert(node.outputs.begin(), node.outputs.end());
    }
  }
  for (const auto& node : nodes) {
    std::string table;
    if (node.op_type == "Gather" && node.axis == 0 && node.inputs.size() >= 2 && ids.contains(node.inputs[1])) {
      table = node.inputs[0];
    } else if (node.op_type == "EmbedLayerNormalization" && node.inputs.size() >= 3 && ids.contains(node.inputs[0])) {
      table = node.inputs[2];
    } else {
      continue;
    }
    // A quantized or converted table: back to the initializer it comes from.
    for (int hop = 0; hop < 4 && !tables.contains(table); ++hop) {
      const auto it = producer.find(table);
      if (it == producer.end() || !kKeepTable.contains(it->second->op_type) || it->second->inputs.empty()) break;
      table = it->second->inputs[0];
    }
    const auto it = tables.find(table);
    if (it == tables.end() || it->second.size() != 2 || it->second[0] <= 0) continue;
    const auto rows = static_cast<std::uint64_t>(it->second[0]);
    if (!summary.id_vocabulary || rows < *summary.id_vocabulary) {
      summary.id_vocabulary = rows;
      summary.id_table = table + " [" + std::to_string(it->second[0]) + ", " + std::to_string(it->second[1]) + "]";
    }
  }
}

}  // namespace

OnnxSummary read_onnx_summary(const fs::path& onnx_file) {
  std::ifstream in(onnx_file, std::ios::binary);
  if (!in) throw Error(ErrorCode::kNotFound, onnx_file.string() + ": cannot open");
  in.seekg(0, std::ios::end);
  const auto size = static_cast<std::uint64_t>(in.tellg());
  in.seekg(0);
  OnnxSummary summary;
  std::set<std::string> locations;
  std::vector<GraphNode> nodes;
  std::map<std::string, std::vector<std::int64_t>> tables;  // initializers of rank 2, by name
  WireReader model(in, size, onnx_file);
  bool have_graph = false;
  while (!model.done()) {
    const auto [field, wire] = model.tag();
    if (field != kModelGraph || wire != kLengthDelimited) {
      model.skip(wire);
      continue;
    }
    have_graph = true;
    read_message(model, [&](std::uint32_t f, std::uint32_t w, WireReader& graph) {
      if (w != kLengthDelimited) return graph.skip(w);
      if (f == kGraphNode) {
        nodes.push_back(read_node(graph));
        ++summary.operators[nodes.back().op_type];
      } else if (f == kGraphInput) {
        summary.inputs.push_back(read_value_info(graph));
      } else if (f == kGraphOutput) {
        summary.outputs.push_back(read_value_info(graph));
      } else if (f == kGraphInitializer) {
        Initializer init = read_initializer(graph);
        if (init.location) locations.insert(*init.location);
        if (init.dims.size() == 2) tables.emplace(std::move(init.name), std::move(init.dims));
      } else {
        graph.skip(w);
      }
    });
  }
  if (!have_graph) model.fail("no graph");
  for (const auto& location : locations) summary.external_data.emplace_back(location);
  find_id_vocabulary(nodes, tables, summary);
  return summary;
}

std::size_t estimate_bytes(const ModelFolder& folder, const OnnxSummary& onnx) {
  std::error_code ec;
  const auto size_of = [&](const fs::path& file) -> std::size_t {
    const auto n = fs::file_size(file, ec);
    return ec ? 0 : static_cast<std::size_t>(n);
  };
  std::size_t total = size_of(folder.onnx_file) + size_of(folder.tokenizer_file);
  for (const auto& data : onnx.external_data) total += size_of(folder.onnx_file.parent_path() / data);
  return total;
}

}  // namespace sieve::model
