#include "app/io/xmp.hpp"

#include <cstdint>
#include <map>

#include "core/error.hpp"

namespace satlab::io::xmp {
namespace {

[[noreturn]] void fail(const std::string& what, size_t at) {
  throw Error("XMP is not well-formed XML: " + what + " at byte " + std::to_string(at));
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}
bool is_name(char c) {
  return !is_space(c) && c != '=' && c != '>' && c != '/' && c != '<' && c != '"' && c != '\'';
}

void append_utf8(std::string& s, uint32_t c) {
  if (c < 0x80) {
    s += char(c);
  } else if (c < 0x800) {
    s += char(0xC0 | (c >> 6)), s += char(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    s += char(0xE0 | (c >> 12)), s += char(0x80 | ((c >> 6) & 0x3F)), s += char(0x80 | (c & 0x3F));
  } else {
    s += char(0xF0 | (c >> 18)), s += char(0x80 | ((c >> 12) & 0x3F)), s += char(0x80 | ((c >> 6) & 0x3F));
    s += char(0x80 | (c & 0x3F));
  }
}

// Text with entities and character references replaced.
std::string unescape(const std::string& xml, size_t b, size_t e) {
  std::string out;
  out.reserve(e - b);
  for (size_t i = b; i < e; ++i) {
    if (xml[i] != '&') {
      out += xml[i];
      continue;
    }
    size_t semi = i + 1;  // entities are short: look no further than 12 characters
    while (semi < e && semi - i <= 12 && xml[semi] != ';') ++semi;
    if (semi >= e || xml[semi] != ';') fail("unterminated entity", i);
    const std::string ent = xml.substr(i + 1, semi - i - 1);
    if (ent == "amp")
      out += '&';
    else if (ent == "lt")
      out += '<';
    else if (ent == "gt")
      out += '>';
    else if (ent == "quot")
      out += '"';
    else if (ent == "apos")
      out += '\'';
    else if (ent.size() > 1 && ent[0] == '#') {
      const bool hex = ent[1] == 'x' || ent[1] == 'X';
      uint32_t c = 0;
      const size_t start = hex ? 2 : 1;
      if (start >= ent.size()) fail("empty character reference", i);
      for (size_t k = start; k < ent.size(); ++k) {
        const char d = ent[k];
        int v = -1;
        if (d >= '0' && d <= '9')
          v = d - '0';
        else if (hex && d >= 'a' && d <= 'f')
          v = d - 'a' + 10;
        else if (hex && d >= 'A' && d <= 'F')
          v = d - 'A' + 10;
        if (v < 0) fail("bad character reference", i);
        c = c * (hex ? 16 : 10) + uint32_t(v);
        if (c > 0x10FFFF) fail("character reference out of range", i);
      }
      append_utf8(out, c);
    } else {
      fail("unknown entity &" + ent + ";", i);
    }
    i = semi;
  }
  return out;
}

struct Open {
  int node;
  std::string qname;
  std::map<std::string, std::string> ns;  // prefix -> URI in scope
};

std::string resolve(const std::map<std::string, std::string>& ns, const std::string& qname, bool is_attribute,
                    std::string* local) {
  const size_t colon = qname.find(':');
  if (colon == std::string::npos) {
    *local = qname;
    if (is_attribute) return "";
    auto it = ns.find("");
    return it == ns.end() ? "" : it->second;
  }
  *local = qname.substr(colon + 1);
  auto it = ns.find(qname.substr(0, colon));
  return it == ns.end() ? "urn:unbound:" + qname.substr(0, colon)
                        : it->second;  // lenient: kept, never matches
}

}  // namespace

const std::string* Document::property(int i, const std::string& ns, const std::string& name) const {
  const Node& n = nodes[size_t(i)];
  for (const auto& a : n.attributes)
    if (a.ns == ns && a.name == name) return &a.value;
  for (int c : n.children)
    if (nodes[size_t(c)].ns == ns && nodes[size_t(c)].name == name) return &nodes[size_t(c)].text;
  return nullptr;
}

Document parse(const std::string& xml) {
  Document doc;
  doc.nodes.emplace_back();
  std::vector<Open> open{{0, "", {{"xml", "http://www.w3.org/XML/1998/namespace"}}}};
  size_t i = 0;
  const size_t n = xml.size();
  while (i < n) {
    if (xml[i] != '<') {
      const size_t lt = xml.find('<', i);
      const size_t e = lt == std::string::npos ? n : lt;
      if (open.size() > 1) doc.nodes[size_t(open.back().node)].text += unescape(xml, i, e);
      i = e;
      continue;
    }
    if (xml.compare(i, 4, "<!--") == 0) {
      const size_t e = xml.find("-->", i + 4);
      if (e == std::string::npos) fail("unterminated comment", i);
      i = e + 3;
    } else if (xml.compare(i, 9, "<![CDATA[") == 0) {
      const size_t e = xml.find("]]>", i + 9);
      if (e == std::string::npos) fail("unterminated CDATA", i);
      if (open.size() > 1) doc.nodes[size_t(open.back().node)].text += xml.substr(i + 9, e - i - 9);
      i = e + 3;
    } else if (xml.compare(i, 2, "<?") == 0) {
      const size_t e = xml.find("?>", i + 2);
      if (e == std::string::npos) fail("unterminated processing instruction", i);
      i = e + 2;
    } else if (xml.compare(i, 2, "<!") == 0) {
      fail("DTD declarations are not read", i);
    } else if (xml.compare(i, 2, "</") == 0) {
      size_t e = i + 2;
      while (e < n && is_name(xml[e])) ++e;
      const std::string qname = xml.substr(i + 2, e - i - 2);
      while (e < n && is_space(xml[e])) ++e;
      if (e >= n || xml[e] != '>') fail("unterminated end tag", i);
      if (open.size() <= 1 || open.back().qname != qname) fail("end tag </" + qname + "> does not match", i);
      open.pop_back();
      i = e + 1;
    } else {
      size_t e = i + 1;
      while (e < n && is_name(xml[e])) ++e;
      const std::string qname = xml.substr(i + 1, e - i - 1);
      if (qname.empty()) fail("empty element name", i);
      std::vector<std::pair<std::string, std::string>> raw;  // qualified attribute names and values
      bool self_closing = false;
      for (;;) {
        while (e < n && is_space(xml[e])) ++e;
        if (e >= n) fail("unterminated start tag", i);
        if (xml[e] == '>') {
          ++e;
          break;
        }
        if (xml[e] == '/') {
          if (e + 1 >= n || xml[e + 1] != '>') fail("stray '/' in a start tag", e);
          self_closing = true;
          e += 2;
          break;
        }
        const size_t nb = e;
        while (e < n && is_name(xml[e])) ++e;
        if (e == nb) fail("bad attribute", e);
        const std::string aname = xml.substr(nb, e - nb);
        while (e < n && is_space(xml[e])) ++e;
        if (e >= n || xml[e] != '=') fail("attribute without a value", e);
        ++e;
        while (e < n && is_space(xml[e])) ++e;
        if (e >= n || (xml[e] != '"' && xml[e] != '\'')) fail("unquoted attribute value", e);
        const size_t close = xml.find(xml[e], e + 1);
        if (close == std::string::npos) fail("unterminated attribute value", e);
        raw.emplace_back(aname, unescape(xml, e + 1, close));
        e = close + 1;
      }
      if (open.size() > size_t(kMaxDepth))
        fail("elements nested deeper than " + std::to_string(kMaxDepth), i);
      if (doc.nodes.size() >= kMaxNodes) fail("more than " + std::to_string(kMaxNodes) + " elements", i);
      Open o{int(doc.nodes.size()), qname, open.back().ns};
      for (const auto& [a, v] : raw) {
        if (a == "xmlns")
          o.ns[""] = v;
        else if (a.compare(0, 6, "xmlns:") == 0)
          o.ns[a.substr(6)] = v;
      }
      Node node;
      node.ns = resolve(o.ns, qname, false, &node.name);
      for (const auto& [a, v] : raw) {
        if (a == "xmlns" || a.compare(0, 6, "xmlns:") == 0) continue;
        Attribute at;
        at.ns = resolve(o.ns, a, true, &at.name);
        at.value = v;
        node.attributes.push_back(std::move(at));
      }
      doc.nodes[size_t(open.back().node)].children.push_back(o.node);
      doc.nodes.push_back(std::move(node));
      if (!self_closing) open.push_back(std::move(o));
      i = e;
    }
  }
  if (open.size() > 1) fail("element <" + open.back().qname + "> is not closed", n);
  return doc;
}

}  // namespace satlab::io::xmp
