// A small, bounded XML reader for XMP packets: elements and attributes named by namespace URI (prefixes
// differ between writers), text content, the five predefined entities and character references. No DTDs.
// Throws satlab::Error on malformed XML, on nesting deeper than kMaxDepth or on more than kMaxNodes.
#pragma once
#include <string>
#include <vector>

namespace satlab::io::xmp {

constexpr int kMaxDepth = 64;
constexpr size_t kMaxNodes = 100000;

struct Attribute {
  std::string ns, name, value;  // namespace URI ("" when unprefixed), local name
};

struct Node {
  std::string ns, name, text;
  std::vector<Attribute> attributes;
  std::vector<int> children;  // indices into Document::nodes
};

struct Document {
  std::vector<Node> nodes;  // nodes[0] is a synthetic root holding the top-level elements
  // A property of element `i`: its attribute ns:name, else the text of its child element ns:name.
  const std::string* property(int i, const std::string& ns, const std::string& name) const;
};

Document parse(const std::string& xml);

}  // namespace satlab::io::xmp
