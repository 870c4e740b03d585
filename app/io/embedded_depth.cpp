// Specs read: Google's GDepth XMP namespace (depthmap/1.0), Dynamic Depth 1.0 (Container, Item, Device,
// Camera, DepthMap elements), Adobe's XMP part 3 (standard and extended XMP in APP1 segments). GDepth:
//   RangeLinear   d = (z - near) / (far - near)
//   RangeInverse  d = far (z - near) / (z (far - near)),  i.e. 1/z = 1/near - d (1/near - 1/far)
// with d the depth image's value in [0,1] (0 at near in both). The pipeline's disparity mode reads
// 1/z = 1/far + e (1/near - 1/far), so RangeInverse is stored as e = 1 - d.
#include "app/io/embedded_depth.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

#include "app/io/image_io.hpp"
#include "app/io/xmp.hpp"
#include "core/error.hpp"

namespace satlab::io {

// HEIC depth through libheif loaded at run time (heic_depth.cpp). found() false for a file without depth.
EmbeddedDepth load_heic_depth(const std::string& path, const std::vector<uint8_t>& bytes);

namespace {

const char kXmpSig[] = "http://ns.adobe.com/xap/1.0/";        // + NUL
const char kExtSig[] = "http://ns.adobe.com/xmp/extension/";  // + NUL, GUID[32], length, offset
const std::string kNsGDepth = "http://ns.google.com/photos/1.0/depthmap/";
const std::string kNsNote = "http://ns.adobe.com/xmp/note/";
const std::string kNsContainer = "http://ns.google.com/photos/dd/1.0/container/";
const std::string kNsItem = "http://ns.google.com/photos/dd/1.0/item/";
const std::string kNsDepthMap = "http://ns.google.com/photos/dd/1.0/depthmap/";
// A file larger than this is not searched for depth (the image loaders refuse such sizes anyway).
constexpr size_t kMaxFileBytes = size_t(1) << 30;

uint32_t be32(const uint8_t* p) {
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3];
}

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::strchr(" \t\r\n", s[b])) ++b;
  while (e > b && std::strchr(" \t\r\n", s[e - 1])) --e;
  return s.substr(b, e - b);
}

bool parse_float(const std::string* s, float* out) {
  if (!s) return false;
  const std::string t = trim(*s);
  char* end = nullptr;
  const double v = std::strtod(t.c_str(), &end);
  if (t.empty() || *end != '\0' || !std::isfinite(v)) return false;
  *out = float(v);
  return true;
}

bool parse_size(const std::string* s, uint64_t* out) {
  if (!s) return false;
  const std::string t = trim(*s);
  if (t.empty() || t.size() > 15 || t.find_first_not_of("0123456789") != std::string::npos) return false;
  *out = std::strtoull(t.c_str(), nullptr, 10);
  return true;
}

std::vector<uint8_t> base64_decode(const std::string& s) {
  std::vector<uint8_t> out;
  out.reserve(s.size() / 4 * 3);
  uint32_t acc = 0;
  int bits = 0;
  bool padded = false;
  for (char c : s) {
    int v;
    if (c >= 'A' && c <= 'Z')
      v = c - 'A';
    else if (c >= 'a' && c <= 'z')
      v = c - 'a' + 26;
    else if (c >= '0' && c <= '9')
      v = c - '0' + 52;
    else if (c == '+' || c == '-')
      v = 62;  // '-' and '_': the URL-safe alphabet, accepted too
    else if (c == '/' || c == '_')
      v = 63;
    else if (c == '=') {
      padded = true;
      continue;
    } else if (std::strchr(" \t\r\n", c))
      continue;
    else
      throw Error("GDepth:Data is not base64 (character " + std::to_string(int(uint8_t(c))) + ")");
    if (padded) throw Error("GDepth:Data is not base64 (data after '=')");
    acc = acc << 6 | uint32_t(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(uint8_t(acc >> bits));
      acc &= (1u << bits) - 1;
    }
  }
  return out;
}

struct ExtendedChunks {
  uint32_t length = 0;
  std::vector<uint8_t> data;
  std::vector<std::pair<uint32_t, uint32_t>> spans;  // offset, size of each chunk
};

struct JpegScan {
  int orientation = 1;  // EXIF Orientation of IFD0
  std::string xmp;
  std::map<std::string, ExtendedChunks> extended;  // by GUID
  size_t primary_end = 0;                          // just past the primary image's EOI; 0 if not found
};

// The Orientation tag (0x0112) of a TIFF structure's IFD0; 1 where absent or invalid.
int exif_orientation(const uint8_t* t, size_t n) {
  if (n < 8 || !((t[0] == 'I' && t[1] == 'I') || (t[0] == 'M' && t[1] == 'M'))) return 1;
  const bool le = t[0] == 'I';
  auto u16 = [&](size_t at) {
    return le ? uint32_t(t[at]) | uint32_t(t[at + 1]) << 8 : uint32_t(t[at]) << 8 | t[at + 1];
  };
  auto u32 = [&](size_t at) { return le ? u16(at) | u16(at + 2) << 16 : u16(at) << 16 | u16(at + 2); };
  const size_t ifd = u32(4);
  if (ifd > n || n - ifd < 2) return 1;
  const size_t count = u16(ifd);
  for (size_t i = 0; i < count && ifd + 2 + 12 * (i + 1) <= n; ++i) {
    const size_t e = ifd + 2 + 12 * i;
    if (u16(e) == 0x0112 && u16(e + 2) == 3) {
      const uint32_t v = u16(e + 8);
      return v >= 1 && v <= 8 ? int(v) : 1;
    }
  }
  return 1;
}

// Walks the marker segments up to the primary image's EOI, collecting the XMP packets.
JpegScan scan_jpeg(const uint8_t* d, size_t n) {
  JpegScan s;
  uint64_t declared = 0;
  size_t p = 2;
  while (p + 1 < n) {
    if (d[p] != 0xFF) return s;  // not a marker: stop (the depth search reports what it has)
    uint8_t m = d[p + 1];
    if (m == 0xFF) {  // fill byte
      ++p;
      continue;
    }
    if (m == 0xD9) {
      s.primary_end = p + 2;
      return s;
    }
    if (m == 0x01 || (m >= 0xD0 && m <= 0xD7)) {
      p += 2;
      continue;
    }
    if (p + 4 > n) return s;
    const size_t len = size_t(d[p + 2]) << 8 | d[p + 3];
    if (len < 2 || p + 2 + len > n) return s;
    const uint8_t* body = d + p + 4;
    const size_t body_len = len - 2;
    if (m == 0xE1 && body_len >= 6 && std::memcmp(body, "Exif\0\0", 6) == 0) {
      s.orientation = exif_orientation(body + 6, body_len - 6);
    } else if (m == 0xE1 && body_len >= sizeof(kXmpSig) && std::memcmp(body, kXmpSig, sizeof(kXmpSig)) == 0) {
      s.xmp.assign(reinterpret_cast<const char*>(body) + sizeof(kXmpSig), body_len - sizeof(kXmpSig));
    } else if (m == 0xE1 && body_len >= sizeof(kExtSig) + 40 &&
               std::memcmp(body, kExtSig, sizeof(kExtSig)) == 0) {
      const uint8_t* h = body + sizeof(kExtSig);
      const std::string guid(reinterpret_cast<const char*>(h), 32);
      const uint32_t total = be32(h + 32), offset = be32(h + 36);
      const size_t chunk = body_len - sizeof(kExtSig) - 40;
      ExtendedChunks& e = s.extended[guid];
      if (e.spans.empty()) {
        declared += total;  // every packet's bytes are in the file: more is a lie, and costs memory
        if (declared > n)
          throw Error("extended XMP declares " + std::to_string(declared) + " bytes, more than the file");
        e.length = total;
        e.data.assign(total, 0);
      }
      if (total != e.length || uint64_t(offset) + chunk > total)
        throw Error("extended XMP chunk at offset " + std::to_string(offset) +
                    " does not fit its declared length " + std::to_string(e.length));
      std::memcpy(e.data.data() + offset, h + 40, chunk);
      e.spans.emplace_back(offset, uint32_t(chunk));
    }
    p += 2 + len;
    if (m == 0xDA) {  // entropy-coded data: up to the next marker that is not RSTn or a stuffed 0xFF00
      while (p + 1 < n && !(d[p] == 0xFF && d[p + 1] != 0x00 && d[p + 1] != 0xFF &&
                            !(d[p + 1] >= 0xD0 && d[p + 1] <= 0xD7)))
        ++p;
    }
  }
  return s;
}

std::string complete(ExtendedChunks& e) {
  std::sort(e.spans.begin(), e.spans.end());
  uint64_t covered = 0;
  for (const auto& [off, len] : e.spans) {
    if (off > covered) break;
    covered = std::max<uint64_t>(covered, uint64_t(off) + len);
  }
  if (covered < e.length)
    throw Error("extended XMP is incomplete: " + std::to_string(covered) + " of " + std::to_string(e.length) +
                " bytes present");
  return std::string(e.data.begin(), e.data.end());
}

// The first value of ns:name on any element of the documents, in order.
const std::string* find_property(const std::vector<const xmp::Document*>& docs, const std::string& ns,
                                 const std::string& name) {
  for (const auto* doc : docs)
    for (size_t i = 0; i < doc->nodes.size(); ++i)
      if (const std::string* v = doc->property(int(i), ns, name)) return v;
  return nullptr;
}

void set_range(JpegDepthPayload& r, const std::string* near_s, const std::string* far_s, const char* what) {
  float nr = 0, fr = 0;
  const bool has_n = parse_float(near_s, &nr), has_f = parse_float(far_s, &fr);
  if (has_n && has_f && nr > 0 && fr > nr) {
    r.near_depth = nr, r.far_depth = fr, r.has_near = r.has_far = true;
  } else if (near_s || far_s) {
    r.ignored.push_back(std::string(what) + " Near/Far not usable (need 0 < near < far)");
  }
}

JpegDepthPayload gdepth(const std::vector<const xmp::Document*>& docs) {
  JpegDepthPayload r;
  const std::string* data = find_property(docs, kNsGDepth, "Data");
  if (!data) throw Error("GDepth XMP has no GDepth:Data (its extended XMP may be missing)");
  r.image = base64_decode(*data);
  if (r.image.empty()) throw Error("GDepth:Data is empty");
  const std::string* fmt = find_property(docs, kNsGDepth, "Format");
  r.format = fmt ? trim(*fmt) : "";
  if (const std::string* mime = find_property(docs, kNsGDepth, "Mime")) r.mime = trim(*mime);
  if (const std::string* units = find_property(docs, kNsGDepth, "Units")) r.units = trim(*units);
  set_range(r, find_property(docs, kNsGDepth, "Near"), find_property(docs, kNsGDepth, "Far"), "GDepth");
  if (find_property(docs, kNsGDepth, "Confidence")) r.ignored.push_back("GDepth confidence map");
  r.source = "GDepth";
  return r;
}

struct Item {
  std::string mime, uri;
  uint64_t length = 0, padding = 0;
};

bool starts_like(const std::vector<uint8_t>& d, size_t at) {
  static const uint8_t png[4] = {0x89, 'P', 'N', 'G'};
  return at + 4 <= d.size() &&
         (std::memcmp(d.data() + at, png, 4) == 0 || (d[at] == 0xFF && d[at + 1] == 0xD8));
}

JpegDepthPayload dynamic_depth(const std::vector<const xmp::Document*>& docs, const uint8_t* d, size_t n,
                               size_t primary_end) {
  JpegDepthPayload r;
  r.source = "Dynamic Depth";
  // Items: every element with Item:Mime, in document order (the directory's order).
  std::vector<Item> items;
  for (const auto* doc : docs)
    for (size_t i = 0; i < doc->nodes.size(); ++i) {
      const std::string* mime = doc->property(int(i), kNsItem, "Mime");
      if (!mime) continue;
      Item it;
      it.mime = trim(*mime);
      if (const std::string* u = doc->property(int(i), kNsItem, "DataURI")) it.uri = trim(*u);
      parse_size(doc->property(int(i), kNsItem, "Length"), &it.length);
      parse_size(doc->property(int(i), kNsItem, "Padding"), &it.padding);
      items.push_back(it);
    }
  if (items.size() < 2) throw Error("Dynamic Depth container lists no item after the primary image");
  // The depth map: the first DepthMap element that is not a segmentation.
  int depth_node = -1;
  const xmp::Document* depth_doc = nullptr;
  for (const auto* doc : docs)
    for (size_t i = 0; i < doc->nodes.size() && depth_node < 0; ++i) {
      if (!doc->property(int(i), kNsDepthMap, "DepthURI") && !doc->property(int(i), kNsDepthMap, "Format"))
        continue;
      const std::string* sem = doc->property(int(i), kNsDepthMap, "ItemSemantic");
      if (sem && trim(*sem) != "Depth") {
        r.ignored.push_back("DepthMap with ItemSemantic " + trim(*sem));
        continue;
      }
      depth_node = int(i), depth_doc = doc;
    }
  if (depth_node < 0) throw Error("Dynamic Depth container has no DepthMap element");
  auto prop = [&](const char* name) { return depth_doc->property(depth_node, kNsDepthMap, name); };
  r.format = prop("Format") ? trim(*prop("Format")) : "";
  if (prop("Units")) r.units = trim(*prop("Units"));
  set_range(r, prop("Near"), prop("Far"), "DepthMap");
  if (prop("ConfidenceURI")) r.ignored.push_back("confidence map");
  if (prop("MeasureType") && trim(*prop("MeasureType")) == "OpticRay")
    r.ignored.push_back("MeasureType OpticRay (read as distance along the optical axis)");
  const std::string uri = prop("DepthURI") ? trim(*prop("DepthURI")) : "";

  // Appended items follow the primary image (plus its padding) in directory order, each Length bytes.
  std::vector<uint64_t> offsets(items.size(), 0);
  uint64_t tail = 0;  // bytes of the appended items and their padding
  for (size_t k = 1; k < items.size(); ++k) {
    if (items[k].length == 0) throw Error("Dynamic Depth item " + std::to_string(k) + " has no Item:Length");
    tail += items[k].length + (k + 1 < items.size() ? items[k].padding : 0);
  }
  if (tail > n)
    throw Error("Dynamic Depth items (" + std::to_string(tail) + " bytes) are longer than the file");
  size_t pick = 0;
  for (size_t k = 1; k < items.size() && !pick; ++k)
    if (!uri.empty() && items[k].uri == uri) pick = k;
  if (!pick) {
    for (size_t k = 1; k < items.size() && !pick; ++k)
      if (items[k].mime == "image/png" || items[k].mime == "image/jpeg") pick = k;
    if (!pick) throw Error("Dynamic Depth container has no PNG or JPEG item for its depth map");
    r.ignored.push_back(uri.empty() ? "no DepthURI: the first image item used"
                                    : "DepthURI " + uri + " names no item: the first image item used");
  }
  std::vector<uint8_t> all(d, d + n);
  auto locate = [&](uint64_t start) {
    uint64_t at = start;
    for (size_t k = 1; k < pick; ++k) at += items[k].length + items[k].padding;
    return at;
  };
  uint64_t at = primary_end ? locate(primary_end + items[0].padding) : uint64_t(-1);
  if (at == uint64_t(-1) || at + items[pick].length > n || !starts_like(all, size_t(at))) {
    const uint64_t from_end = locate(n - tail);
    if (from_end + items[pick].length > n || !starts_like(all, size_t(from_end)))
      throw Error("Dynamic Depth item " + (uri.empty() ? std::to_string(pick) : uri) +
                  " is not where the container says (truncated file?)");
    if (at != uint64_t(-1))
      r.ignored.push_back("container offsets counted from the end of the file (padding differs)");
    at = from_end;
  }
  r.image.assign(d + at, d + at + items[pick].length);
  r.mime = items[pick].mime;
  for (size_t k = 1; k < items.size(); ++k)
    if (k != pick && !items[k].uri.empty()) r.ignored.push_back("item " + items[k].uri);
  return r;
}

std::vector<uint8_t> read_file(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw Error(path + ": cannot open");
  std::vector<uint8_t> bytes;
  uint8_t buf[1 << 16];
  size_t got;
  while ((got = std::fread(buf, 1, sizeof(buf), f)) > 0) {
    bytes.insert(bytes.end(), buf, buf + got);
    if (bytes.size() > kMaxFileBytes) {
      std::fclose(f);
      return {};
    }
  }
  std::fclose(f);
  return bytes;
}

// The encoded depth image through the project's depth loader (its format guards and pixel limit).
ImageF decode_payload(const std::vector<uint8_t>& image) {
  const char* dir = std::getenv("TMPDIR");
  std::string tmpl = std::string(dir && *dir ? dir : "/tmp") + "/satlab-embedded-depth-XXXXXX";
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  const int fd = mkstemp(name.data());
  if (fd < 0) throw Error("cannot create a temporary file for the embedded depth image");
  const std::string tmp(name.data());
  bool ok = true;
  for (size_t done = 0; ok && done < image.size();) {
    const ssize_t w = ::write(fd, image.data() + done, image.size() - done);
    ok = w > 0;
    if (ok) done += size_t(w);
  }
  ::close(fd);
  try {
    if (!ok) throw Error("cannot write a temporary file for the embedded depth image");
    ImageF d = load_depth(tmp);
    ::unlink(tmp.c_str());
    return d;
  } catch (const Error& e) {
    ::unlink(tmp.c_str());
    std::string why = e.what();
    if (why.compare(0, tmp.size(), tmp) == 0) why = why.substr(tmp.size() + 2);  // "TMP: reason"
    throw Error("embedded depth image: " + why);
  }
}

}  // namespace

ImageF oriented(const ImageF& in, int orientation) {
  if (orientation <= 1 || orientation > 8) return in;
  const int w = in.width, h = in.height;
  const bool swap = orientation >= 5;
  ImageF out(swap ? h : w, swap ? w : h, 1);
  for (int y = 0; y < out.height; ++y)
    for (int x = 0; x < out.width; ++x) {
      int sx = x, sy = y;  // the stored pixel shown at (x, y)
      switch (orientation) {
        case 2:
          sx = w - 1 - x;
          break;
        case 3:
          sx = w - 1 - x, sy = h - 1 - y;
          break;
        case 4:
          sy = h - 1 - y;
          break;
        case 5:
          sx = y, sy = x;
          break;
        case 6:
          sx = y, sy = h - 1 - x;
          break;
        case 7:
          sx = w - 1 - y, sy = h - 1 - x;
          break;
        case 8:
          sx = w - 1 - y, sy = x;
          break;
      }
      out.at(x, y) = in.at(sx, sy);
    }
  return out;
}

JpegDepthPayload parse_jpeg_depth(const uint8_t* data, size_t size) {
  if (size < 4 || data[0] != 0xFF || data[1] != 0xD8) return {};
  JpegScan scan = scan_jpeg(data, size);
  if (scan.xmp.empty() && scan.extended.empty()) return {};
  std::vector<std::string> notes;
  xmp::Document main_doc, ext_doc;
  std::vector<const xmp::Document*> docs;
  if (!scan.xmp.empty()) {
    main_doc = xmp::parse(scan.xmp);
    docs.push_back(&main_doc);
  }
  const std::string* want = scan.xmp.empty() ? nullptr : find_property(docs, kNsNote, "HasExtendedXMP");
  ExtendedChunks* ext = nullptr;
  if (want && scan.extended.count(trim(*want))) {
    ext = &scan.extended[trim(*want)];
  } else if (!scan.extended.empty()) {
    if (want)
      notes.push_back("extended XMP GUID differs from xmpNote:HasExtendedXMP");
    else
      notes.push_back("extended XMP without xmpNote:HasExtendedXMP");
    ext = &scan.extended.begin()->second;
    if (scan.extended.size() > 1)
      notes.push_back(std::to_string(scan.extended.size() - 1) + " other extended XMP packets");
  } else if (want) {
    notes.push_back("xmpNote:HasExtendedXMP names extended XMP that the file does not have");
  }
  if (ext) {
    ext_doc = xmp::parse(complete(*ext));
    docs.push_back(&ext_doc);
  }
  const bool has_dd = find_property(docs, kNsItem, "Mime") || find_property(docs, kNsDepthMap, "Format");
  const bool has_gdepth = find_property(docs, kNsGDepth, "Data") || find_property(docs, kNsGDepth, "Format");
  JpegDepthPayload r;
  if (has_dd) {
    try {
      r = dynamic_depth(docs, data, size, scan.primary_end);
      if (has_gdepth) r.ignored.push_back("GDepth XMP (Dynamic Depth preferred)");
    } catch (const Error& e) {
      if (!has_gdepth) throw;
      r = gdepth(docs);
      r.ignored.push_back(std::string("Dynamic Depth: ") + e.what());
    }
  } else if (has_gdepth) {
    r = gdepth(docs);
  } else {
    return {};
  }
  r.ignored.insert(r.ignored.end(), notes.begin(), notes.end());
  r.orientation = scan.orientation;
  return r;
}

EmbeddedDepth load_embedded_depth(const std::string& path) {
  EmbeddedDepth e;
  try {
    // Only JPEG and HEIF/ISOBMFF files are read whole.
    uint8_t head[12] = {};
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) throw Error("cannot open");
    const size_t got = std::fread(head, 1, sizeof(head), f);
    std::fclose(f);
    const bool jpeg = got >= 2 && head[0] == 0xFF && head[1] == 0xD8;
    const bool isobmff = got == 12 && std::memcmp(head + 4, "ftyp", 4) == 0;
    if (!jpeg && !isobmff) return e;
    const std::vector<uint8_t> bytes = read_file(path);
    if (bytes.size() >= 12 && std::memcmp(bytes.data() + 4, "ftyp", 4) == 0)
      return load_heic_depth(path, bytes);
    JpegDepthPayload p = parse_jpeg_depth(bytes.data(), bytes.size());
    if (!p.found()) return e;
    std::string format = p.format;
    if (format != "RangeInverse" && format != "RangeLinear") {
      p.ignored.push_back(format.empty() ? "no Format: RangeLinear assumed"
                                         : "Format " + format + ": RangeLinear assumed");
      format = "RangeLinear";
    }
    if (!p.mime.empty() && p.mime != "image/png" && p.mime != "image/jpeg")
      p.ignored.push_back("Mime " + p.mime + " (decoded by content)");
    if (!p.units.empty() && p.units != "Meters" && p.units != "m") p.ignored.push_back("Units " + p.units);
    // Stored like the primary image: shown with its EXIF orientation, as the image is.
    e.depth = oriented(decode_payload(p.image), p.orientation);
    e.orientation = p.orientation;
    if (format == "RangeInverse") {
      for (float& v : e.depth.data) v = 1.0f - v;
      e.disparity = true;
    }
    if (p.has_near) e.near_depth = p.near_depth, e.far_depth = p.far_depth;
    e.source = p.source + " " + format;
    e.ignored = std::move(p.ignored);
  } catch (const Error& err) {
    throw Error(path + ": embedded depth: " + err.what());
  }
  return e;
}

Params fit_embedded_range(const EmbeddedDepth& e, const ImageF& map, Params p) {
  p.disparity = e.disparity;
  if (!(e.near_depth > 0 && e.far_depth > e.near_depth) || map.empty()) return p;
  float lo = map.data[0], hi = map.data[0];
  for (float v : map.data) lo = std::min(lo, v), hi = std::max(hi, v);
  lo = std::min(std::max(lo, 0.f), 1.f), hi = std::min(std::max(hi, 0.f), 1.f);
  const double n = e.near_depth, f = e.far_depth;
  if (!(hi > lo)) {  // a flat map normalises to 0: only the depth at d = lo matters
    p.near_depth = float(n), p.far_depth = float(f);
    return p;
  }
  if (e.disparity) {  // 1/z = 1/f + d (1/n - 1/f) at d = lo and d = hi
    const double span = 1.0 / n - 1.0 / f;
    p.far_depth = float(1.0 / (1.0 / f + lo * span));
    p.near_depth = float(1.0 / (1.0 / f + hi * span));
  } else {
    p.near_depth = float(n + lo * (f - n));
    p.far_depth = float(n + hi * (f - n));
  }
  return p;
}

std::string describe(const EmbeddedDepth& e) {
  std::string s = "embedded " + e.source;
  if (e.near_depth > 0) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), " near %.3g far %.3g", double(e.near_depth), double(e.far_depth));
    s += buf;
  } else {
    s += " (no near/far in the file)";
  }
  if (e.orientation > 1) s += " (EXIF orientation " + std::to_string(e.orientation) + " applied)";
  if (!e.ignored.empty()) {
    s += " (ignored: ";
    for (size_t i = 0; i < e.ignored.size(); ++i) s += (i ? "; " : "") + e.ignored[i];
    s += ")";
  }
  return s;
}

}  // namespace satlab::io

namespace satlab::io {

DepthForImage embedded_depth_for(const std::string& image_path, const Params& p) {
  DepthForImage r;
  r.params = p;
  try {
    EmbeddedDepth e = load_embedded_depth(image_path);
    if (!e.found()) return r;
    r.summary = describe(e);
    r.depth = std::move(e.depth);
    r.params = fit_embedded_range(e, r.depth, p);
    if (e.near_depth > 0) {
      char buf[96];
      std::snprintf(buf, sizeof(buf), "; the map spans %.3g..%.3g (near/far set to that)",
                    double(r.params.near_depth), double(r.params.far_depth));
      r.fitted = buf;
    }
    r.used = true;
  } catch (const Error& err) {
    std::string why = err.what();
    const std::string prefix = image_path + ": embedded depth: ";
    if (why.compare(0, prefix.size(), prefix) == 0) why = why.substr(prefix.size());
    r.summary = "embedded depth not used: " + why;
    r.depth = ImageF();
  }
  return r;
}

}  // namespace satlab::io
