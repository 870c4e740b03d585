// Writes the embedded-depth test files (tests/data/embedded_depth/) from the published specs: GDepth XMP
// (standard and extended XMP), Dynamic Depth 1.0 (container items after the primary JPEG) and HEIC with a
// depth auxiliary image. Every depth map stores the same scene, with d = 0 at near in the file's format:
//   z(x, y) = kZLo + (kZHi - kZLo) * (x + w * y) / (w * h - 1)     (metres, w x h the depth map's size)
// and the file's Near/Far are kNear/kFar, wider than the scene, so readers must fit the range
// (tests/cpu/embedded_depth_test.cpp reads the files back and checks z per pixel).
//
// Usage: make_depth_samples OUT_DIR   (the names avoid "depth": the app takes a dropped file so named as
// a depth map)
//
// What the files do not have: the extended XMP's GUID is a fixed string, not the MD5 digest of the
// packet that the XMP spec asks for (readers do not check it); the HEIC depth image carries no depth
// representation info (libheif 1.15 has no API to write one, nor to link a depth image: the tool encodes
// it as a thumbnail of the primary and rewrites that reference as 'auxl' with an 'auxC' property naming
// the depth type, see heic_with_depth()). libheif 1.15's encoder wraps each image in a 1x1 'grid' item, so
// the depth image is a grid and libheif decodes it to RGB (the reader takes its red channel and says so).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>
// jpeglib.h needs FILE and size_t declared first.
#include <jpeglib.h>
#include <libheif/heif.h>
#include <stb_image_write.h>

namespace {

constexpr int kW = 24, kH = 16;            // primary image
constexpr int kDw = 12, kDh = 8;           // depth maps
constexpr double kZLo = 0.5, kZHi = 3.0;   // the scene
constexpr double kNear = 0.3, kFar = 4.1;  // the files' range

using Bytes = std::vector<uint8_t>;

double scene_z(int x, int y) {
  return kZLo + (kZHi - kZLo) * double(x + kDw * y) / double(kDw * kDh - 1);
}
double range_linear(double z) {
  return (z - kNear) / (kFar - kNear);
}
double range_inverse(double z) {
  return kFar * (z - kNear) / (z * (kFar - kNear));
}

void fail(const std::string& what) {
  throw std::runtime_error(what);
}

Bytes read_all(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) fail("cannot read " + path);
  Bytes b;
  int c;
  while ((c = std::fgetc(f)) != EOF) b.push_back(uint8_t(c));
  std::fclose(f);
  return b;
}

void write_all(const std::string& path, const Bytes& b) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || std::fwrite(b.data(), 1, b.size(), f) != b.size()) fail("cannot write " + path);
  std::fclose(f);
  std::printf("%s (%zu bytes)\n", path.c_str(), b.size());
}

// 8- or 16-bit grey PNG (16-bit: big-endian samples, as PNG stores them) of d in [0,1].
Bytes png_depth(double (*encode)(double), int bits) {
  Bytes px;
  for (int y = 0; y < kDh; ++y)
    for (int x = 0; x < kDw; ++x) {
      const double d = encode(scene_z(x, y));
      if (bits == 8) {
        px.push_back(uint8_t(std::lround(d * 255)));
      } else {
        const long v = std::lround(d * 65535);
        px.push_back(uint8_t(v >> 8)), px.push_back(uint8_t(v & 255));
      }
    }
  Bytes out;
  if (bits == 8) {
    stbi_write_png_to_func(
        [](void* ctx, void* data, int n) {
          auto* o = static_cast<Bytes*>(ctx);
          o->insert(o->end(), static_cast<uint8_t*>(data), static_cast<uint8_t*>(data) + n);
        },
        &out, kDw, kDh, 1, px.data(), kDw);
    return out;
  }
  // stb writes 8-bit only: a 16-bit PNG is written by hand (stored deflate blocks, zlib framing).
  auto be32 = [](Bytes& b, uint32_t v) {
    for (int s = 24; s >= 0; s -= 8) b.push_back(uint8_t(v >> s));
  };
  auto crc = [](const uint8_t* p, size_t n) {
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; ++i) {
      c ^= p[i];
      for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1)));
    }
    return ~c;
  };
  auto chunk = [&](const char* type, const Bytes& body) {
    be32(out, uint32_t(body.size()));
    Bytes t(type, type + 4);
    t.insert(t.end(), body.begin(), body.end());
    out.insert(out.end(), t.begin(), t.end());
    be32(out, crc(t.data(), t.size()));
  };
  const uint8_t sig[8] = {0x89, 'P', 'N', 'G', 13, 10, 26, 10};
  out.assign(sig, sig + 8);
  Bytes ihdr;
  be32(ihdr, kDw), be32(ihdr, kDh);
  ihdr.insert(ihdr.end(), {16, 0, 0, 0, 0});  // 16-bit greyscale
  chunk("IHDR", ihdr);
  Bytes raw;  // filter byte 0 per row
  for (int y = 0; y < kDh; ++y) {
    raw.push_back(0);
    raw.insert(raw.end(), px.begin() + y * kDw * 2, px.begin() + (y + 1) * kDw * 2);
  }
  Bytes z = {0x78,
             0x01,
             1,
             uint8_t(raw.size() & 255),
             uint8_t(raw.size() >> 8),
             uint8_t(~raw.size() & 255),
             uint8_t((~raw.size() >> 8) & 255)};
  z.insert(z.end(), raw.begin(), raw.end());
  uint32_t a = 1, b = 0;
  for (uint8_t v : raw) a = (a + v) % 65521, b = (b + a) % 65521;
  be32(z, b << 16 | a);
  chunk("IDAT", z);
  chunk("IEND", {});
  return out;
}

Bytes jpeg(const Bytes& px, int w, int h, int comps, int quality) {
  jpeg_compress_struct c;
  jpeg_error_mgr err;
  c.err = jpeg_std_error(&err);
  jpeg_create_compress(&c);
  unsigned char* mem = nullptr;
  unsigned long size = 0;
  jpeg_mem_dest(&c, &mem, &size);
  c.image_width = JDIMENSION(w), c.image_height = JDIMENSION(h), c.input_components = comps;
  c.in_color_space = comps == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&c);
  jpeg_set_quality(&c, quality, TRUE);
  jpeg_start_compress(&c, TRUE);
  while (c.next_scanline < c.image_height) {
    JSAMPROW row = const_cast<JSAMPROW>(px.data() + size_t(c.next_scanline) * size_t(w * comps));
    jpeg_write_scanlines(&c, &row, 1);
  }
  jpeg_finish_compress(&c);
  Bytes out(mem, mem + size);
  jpeg_destroy_compress(&c);
  std::free(mem);
  return out;
}

Bytes primary_rgb() {
  Bytes px;
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x)
      px.insert(px.end(), {uint8_t(40 + 8 * x), uint8_t(60 + 10 * y), uint8_t(200 - 5 * x)});
  return px;
}

Bytes jpeg_depth(double (*encode)(double)) {
  Bytes px;
  for (int y = 0; y < kDh; ++y)
    for (int x = 0; x < kDw; ++x) px.push_back(uint8_t(std::lround(encode(scene_z(x, y)) * 255)));
  return jpeg(px, kDw, kDh, 1, 100);
}

std::string base64(const Bytes& b) {
  static const char* t = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string s;
  for (size_t i = 0; i < b.size(); i += 3) {
    const uint32_t v = uint32_t(b[i]) << 16 | (i + 1 < b.size() ? uint32_t(b[i + 1]) << 8 : 0) |
                       (i + 2 < b.size() ? b[i + 2] : 0);
    s += t[v >> 18], s += t[(v >> 12) & 63];
    s += i + 1 < b.size() ? t[(v >> 6) & 63] : '=';
    s += i + 2 < b.size() ? t[v & 63] : '=';
  }
  return s;
}

Bytes app1(const std::string& sig, const Bytes& body) {
  const size_t len = 2 + sig.size() + 1 + body.size();
  if (len > 65535) fail("APP1 segment too long");
  Bytes s = {0xFF, 0xE1, uint8_t(len >> 8), uint8_t(len & 255)};
  s.insert(s.end(), sig.begin(), sig.end());
  s.push_back(0);
  s.insert(s.end(), body.begin(), body.end());
  return s;
}

// The primary JPEG with `segments` inserted after its JFIF APP0 segment.
Bytes with_segments(const Bytes& primary, const std::vector<Bytes>& segments) {
  size_t at = 2;
  if (primary[2] == 0xFF && primary[3] == 0xE0) at = 4 + (size_t(primary[4]) << 8 | primary[5]);
  Bytes out(primary.begin(), primary.begin() + long(at));
  for (const auto& s : segments) out.insert(out.end(), s.begin(), s.end());
  out.insert(out.end(), primary.begin() + long(at), primary.end());
  return out;
}

Bytes str(const std::string& s) {
  return Bytes(s.begin(), s.end());
}

const char* kRdfOpen =
    "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\">\n <rdf:RDF "
    "xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">\n";
const char* kRdfClose = " </rdf:RDF>\n</x:xmpmeta>\n";

std::string num(double v) {
  char b[32];
  std::snprintf(b, sizeof(b), "%.6g", v);
  return b;
}

// GDepth in the standard XMP: RangeInverse, 8-bit PNG.
Bytes gdepth_standard() {
  const std::string xmp =
      std::string(kRdfOpen) +
      "  <rdf:Description rdf:about=\"\" xmlns:GDepth=\"http://ns.google.com/photos/1.0/depthmap/\"\n"
      "    GDepth:Format=\"RangeInverse\" GDepth:Near=\"" +
      num(kNear) + "\" GDepth:Far=\"" + num(kFar) + "\" GDepth:Mime=\"image/png\"\n    GDepth:Data=\"" +
      base64(png_depth(range_inverse, 8)) + "\"/>\n" + kRdfClose;
  return with_segments(jpeg(primary_rgb(), kW, kH, 3, 90), {app1("http://ns.adobe.com/xap/1.0/", str(xmp))});
}

// The same with EXIF Orientation 6 (shown rotated 90 degrees clockwise): the depth map is stored like the
// primary image and turns with it.
Bytes gdepth_rotated() {
  const Bytes tiff = {'M',  'M',  0, 42, 0, 0, 0, 8,              // big-endian TIFF, IFD0 at 8
                      0,    1,                                    // one entry
                      0x01, 0x12, 0, 3,  0, 0, 0, 1, 0, 6, 0, 0,  // Orientation, SHORT, 1, value 6
                      0,    0,    0, 0};                          // no next IFD
  Bytes exif = {'E', 'x', 'i', 'f', 0, 0};
  exif.insert(exif.end(), tiff.begin(), tiff.end());
  Bytes seg = {0xFF, 0xE1, uint8_t((exif.size() + 2) >> 8), uint8_t((exif.size() + 2) & 255)};
  seg.insert(seg.end(), exif.begin(), exif.end());
  return with_segments(gdepth_standard(), {seg});
}

// GDepth in the extended XMP: RangeLinear, a JPEG depth image, properties as elements and an unusual
// prefix; the extended packet is cut into small chunks written last-first (readers place them by offset).
Bytes gdepth_extended() {
  const std::string guid = "0123456789ABCDEF0123456789ABCDEF";
  const std::string main =
      std::string(kRdfOpen) +
      "  <rdf:Description rdf:about=\"\" xmlns:xmpNote=\"http://ns.adobe.com/xmp/note/\"\n"
      "    xmlns:gd=\"http://ns.google.com/photos/1.0/depthmap/\" xmpNote:HasExtendedXMP=\"" +
      guid + "\">\n   <gd:Format>RangeLinear</gd:Format>\n   <gd:Near>" + num(kNear) +
      "</gd:Near>\n   <gd:Far>" + num(kFar) + "</gd:Far>\n   <gd:Mime>image/jpeg</gd:Mime>\n" +
      "  </rdf:Description>\n" + kRdfClose;
  const std::string ext =
      std::string(kRdfOpen) +
      "  <rdf:Description rdf:about=\"\" xmlns:gd=\"http://ns.google.com/photos/1.0/depthmap/\"\n"
      "    gd:Data=\"" +
      base64(jpeg_depth(range_linear)) + "\"/>\n" + kRdfClose;
  std::vector<Bytes> segs = {app1("http://ns.adobe.com/xap/1.0/", str(main))};
  const size_t chunk = 256;
  std::vector<Bytes> parts;
  for (size_t off = 0; off < ext.size(); off += chunk) {
    const size_t n = std::min(chunk, ext.size() - off);
    Bytes body = str(guid);
    for (uint32_t v : {uint32_t(ext.size()), uint32_t(off)})
      for (int s = 24; s >= 0; s -= 8) body.push_back(uint8_t(v >> s));
    body.insert(body.end(), ext.begin() + long(off), ext.begin() + long(off + n));
    parts.push_back(app1("http://ns.adobe.com/xmp/extension/", body));
  }
  segs.insert(segs.end(), parts.rbegin(), parts.rend());
  return with_segments(jpeg(primary_rgb(), kW, kH, 3, 90), segs);
}

// Dynamic Depth 1.0: Device / Container directory (primary, depth, confidence) and Camera / DepthMap,
// with the items appended after the primary image. RangeInverse, 16-bit PNG; the primary item gives no
// Padding (optional) and the DepthMap namespace has another prefix.
Bytes dynamic_depth() {
  const Bytes depth = png_depth(range_inverse, 16);
  Bytes conf_px(size_t(kDw * kDh), 255);
  const Bytes conf = jpeg(conf_px, kDw, kDh, 1, 90);
  const std::string xmp =
      std::string(kRdfOpen) +
      "  <rdf:Description rdf:about=\"\"\n"
      "    xmlns:Device=\"http://ns.google.com/photos/dd/1.0/device/\"\n"
      "    xmlns:Container=\"http://ns.google.com/photos/dd/1.0/container/\"\n"
      "    xmlns:Item=\"http://ns.google.com/photos/dd/1.0/item/\"\n"
      "    xmlns:Camera=\"http://ns.google.com/photos/dd/1.0/camera/\"\n"
      "    xmlns:dm=\"http://ns.google.com/photos/dd/1.0/depthmap/\">\n"
      "   <Device:Container>\n    <Container:Directory>\n     <rdf:Seq>\n"
      "      <rdf:li rdf:parseType=\"Resource\"><Container:Item Item:Mime=\"image/jpeg\" "
      "Item:Length=\"0\"/></rdf:li>\n"
      "      <rdf:li rdf:parseType=\"Resource\"><Container:Item Item:Mime=\"image/png\" Item:Length=\"" +
      std::to_string(depth.size()) +
      "\" Item:DataURI=\"android/depthmap\"/></rdf:li>\n"
      "      <rdf:li rdf:parseType=\"Resource\"><Container:Item Item:Mime=\"image/jpeg\" Item:Length=\"" +
      std::to_string(conf.size()) +
      "\" Item:DataURI=\"android/confidencemap\"/></rdf:li>\n"
      "     </rdf:Seq>\n    </Container:Directory>\n   </Device:Container>\n"
      "   <Device:Cameras>\n    <rdf:Seq>\n     <rdf:li rdf:parseType=\"Resource\">\n"
      "      <Camera:DepthMap rdf:parseType=\"Resource\">\n"
      "       <dm:Format>RangeInverse</dm:Format><dm:Near>" +
      num(kNear) + "</dm:Near><dm:Far>" + num(kFar) +
      "</dm:Far>\n       <dm:Units>Meters</dm:Units><dm:ItemSemantic>Depth</dm:ItemSemantic>\n"
      "       "
      "<dm:DepthURI>android/depthmap</dm:DepthURI><dm:ConfidenceURI>android/confidencemap</"
      "dm:ConfidenceURI>\n"
      "      </Camera:DepthMap>\n     </rdf:li>\n    </rdf:Seq>\n   </Device:Cameras>\n"
      "  </rdf:Description>\n" +
      kRdfClose;
  Bytes out =
      with_segments(jpeg(primary_rgb(), kW, kH, 3, 90), {app1("http://ns.adobe.com/xap/1.0/", str(xmp))});
  out.insert(out.end(), depth.begin(), depth.end());
  out.insert(out.end(), conf.begin(), conf.end());
  return out;
}

void heif_check(heif_error e, const char* what) {
  if (e.code != heif_error_Ok) fail(std::string(what) + ": " + e.message);
}

uint32_t get(const Bytes& b, size_t at, int n) {
  uint32_t v = 0;
  for (int i = 0; i < n; ++i) v = v << 8 | b[at + size_t(i)];
  return v;
}
void put(Bytes& b, size_t at, int n, uint64_t v) {
  for (int i = n - 1; i >= 0; --i, v >>= 8) b[at + size_t(i)] = uint8_t(v & 255);
}

// The child boxes of the box body [b, e): (offset, size, type).
struct Box {
  size_t at, size;
  std::string type;
};
std::vector<Box> boxes(const Bytes& d, size_t b, size_t e) {
  std::vector<Box> r;
  while (b + 8 <= e) {
    const size_t n = get(d, b, 4);
    if (n < 8 || b + n > e) fail("bad box");
    r.push_back({b, n, std::string(d.begin() + long(b) + 4, d.begin() + long(b) + 8)});
    b += n;
  }
  return r;
}
const Box& child(const std::vector<Box>& bs, const char* type) {
  for (const auto& b : bs)
    if (b.type == type) return b;
  fail(std::string("no ") + type + " box");
  static Box none;
  return none;
}

// HEIC: the primary and a monochrome depth image encoded with libheif's HEVC encoder (the depth
// losslessly), the depth attached as the primary's thumbnail; then the 'thmb' reference is rewritten as
// 'auxl' and an 'auxC' property "urn:mpeg:hevc:2015:auxid:2" (HEVC depth) is added to the depth item.
Bytes heic_with_depth(const std::string& tmp) {
  if (!heif_have_encoder_for_format(heif_compression_HEVC)) fail("libheif has no HEVC encoder here");
  heif_context* ctx = heif_context_alloc();
  heif_encoder* enc = nullptr;
  heif_check(heif_context_get_encoder_for_format(ctx, heif_compression_HEVC, &enc), "HEVC encoder");
  heif_image *rgb = nullptr, *dep = nullptr;
  heif_check(heif_image_create(kW, kH, heif_colorspace_RGB, heif_chroma_interleaved_RGB, &rgb), "image");
  heif_check(heif_image_add_plane(rgb, heif_channel_interleaved, kW, kH, 8), "plane");
  int stride = 0;
  uint8_t* p = heif_image_get_plane(rgb, heif_channel_interleaved, &stride);
  const Bytes px = primary_rgb();
  for (int y = 0; y < kH; ++y) std::memcpy(p + y * stride, px.data() + y * kW * 3, size_t(kW) * 3);
  heif_check(heif_image_create(kDw, kDh, heif_colorspace_monochrome, heif_chroma_monochrome, &dep), "depth");
  heif_check(heif_image_add_plane(dep, heif_channel_Y, kDw, kDh, 8), "depth plane");
  p = heif_image_get_plane(dep, heif_channel_Y, &stride);
  // Uniform inverse Z, bright = near: v = 255 (1/z - 1/far) / (1/near - 1/far), the file's near/far.
  for (int y = 0; y < kDh; ++y)
    for (int x = 0; x < kDw; ++x)
      p[y * stride + x] = uint8_t(std::lround(255 * (1 / scene_z(x, y) - 1 / kFar) / (1 / kNear - 1 / kFar)));
  heif_image_handle *primary = nullptr, *depth = nullptr;
  heif_encoder_set_lossy_quality(enc, 90);
  heif_check(heif_context_encode_image(ctx, rgb, enc, nullptr, &primary), "encode primary");
  heif_check(heif_encoder_set_lossless(enc, 1), "lossless");
  heif_check(heif_context_encode_image(ctx, dep, enc, nullptr, &depth), "encode depth");
  heif_check(heif_context_set_primary_image(ctx, primary), "primary");
  heif_check(heif_context_assign_thumbnail(ctx, primary, depth), "attach depth");
  heif_check(heif_context_write_to_file(ctx, tmp.c_str()), "write");
  heif_image_handle_release(primary), heif_image_handle_release(depth);
  heif_image_release(rgb), heif_image_release(dep);
  heif_encoder_release(enc);
  heif_context_free(ctx);

  Bytes d = read_all(tmp);
  std::remove(tmp.c_str());
  const auto top = boxes(d, 0, d.size());
  const Box meta = child(top, "meta");
  const auto mb = boxes(d, meta.at + 12, meta.at + meta.size);  // meta is a full box
  // 'thmb' -> 'auxl' (same size).
  const Box iref = child(mb, "iref");
  if (d[iref.at + 8] != 0) fail("iref version 1 not handled");
  const Box pitm = child(mb, "pitm");
  const uint32_t primary_id = get(d, pitm.at + 12, 2);
  // libheif 1.15 writes this 'thmb' from the primary to the thumbnail; 'auxl' goes from the auxiliary
  // image to its master, so the ids are put in that order.
  uint32_t depth_id = 0;
  for (const auto& r : boxes(d, iref.at + 12, iref.at + iref.size)) {
    if (r.type != "thmb") continue;
    if (get(d, r.at + 10, 2) != 1) fail("thmb reference with several targets");
    const uint32_t a = get(d, r.at + 8, 2), b = get(d, r.at + 12, 2);
    depth_id = a == primary_id ? b : a;
    std::memcpy(d.data() + r.at + 4, "auxl", 4);
    put(d, r.at + 8, 2, depth_id);
    put(d, r.at + 12, 2, primary_id);
  }
  if (!depth_id) fail("no thmb reference to rewrite");
  // New auxC at the end of ipco, and its index appended to the depth item's ipma entry.
  const Box iprp = child(mb, "iprp");
  const auto pb = boxes(d, iprp.at + 8, iprp.at + iprp.size);
  const Box ipco = child(pb, "ipco"), ipma = child(pb, "ipma");
  if (ipco.at > ipma.at) fail("ipma before ipco: not handled");
  const size_t prop_index = boxes(d, ipco.at + 8, ipco.at + ipco.size).size() + 1;
  const std::string urn = "urn:mpeg:hevc:2015:auxid:2";
  Bytes auxc(12, 0);
  put(auxc, 0, 4, 12 + urn.size() + 1);
  std::memcpy(auxc.data() + 4, "auxC", 4);
  auxc.insert(auxc.end(), urn.begin(), urn.end());
  auxc.push_back(0);
  const int version = d[ipma.at + 8];
  const bool wide = d[ipma.at + 11] & 1;
  if (!wide && prop_index > 127) fail("too many properties");
  size_t q = ipma.at + 12;
  const uint32_t entries = get(d, q, 4);
  q += 4;
  size_t assoc_insert = 0, count_at = 0;
  for (uint32_t i = 0; i < entries; ++i) {
    const int idw = version < 1 ? 2 : 4;
    const uint32_t id = get(d, q, idw);
    q += size_t(idw);
    const uint32_t n = d[q];
    if (id == depth_id) count_at = q;
    q += 1 + n * (wide ? 2 : 1);
    if (id == depth_id) assoc_insert = q;
  }
  if (!assoc_insert) fail("no ipma entry for the depth item");
  Bytes assoc =
      wide ? Bytes{uint8_t(prop_index >> 8), uint8_t(prop_index & 255)} : Bytes{uint8_t(prop_index)};
  // Insert later positions first so earlier offsets stay valid.
  const size_t grow = auxc.size() + assoc.size();
  d[count_at] = uint8_t(d[count_at] + 1);
  d.insert(d.begin() + long(assoc_insert), assoc.begin(), assoc.end());
  d.insert(d.begin() + long(ipco.at + ipco.size), auxc.begin(), auxc.end());
  put(d, ipma.at + auxc.size(), 4, ipma.size + assoc.size());  // ipma moved by the auxC before it
  put(d, ipco.at, 4, ipco.size + auxc.size());
  put(d, iprp.at, 4, iprp.size + grow);
  put(d, meta.at, 4, meta.size + grow);
  // iloc: file offsets (construction method 0) of data after meta move by `grow`.
  const Box iloc = child(mb, "iloc");  // before iprp in libheif's files: not moved
  if (iloc.at > iprp.at) fail("iloc after iprp: not handled");
  const int iv = d[iloc.at + 8];
  size_t r = iloc.at + 12;
  const int off_size = d[r] >> 4, len_size = d[r] & 15, base_size = d[r + 1] >> 4,
            idx_size = iv > 0 ? d[r + 1] & 15 : 0;
  r += 2;
  const uint32_t items = iv < 2 ? get(d, r, 2) : get(d, r, 4);
  r += iv < 2 ? 2 : 4;
  for (uint32_t i = 0; i < items; ++i) {
    r += iv < 2 ? 2 : 4;
    int method = 0;
    if (iv > 0) method = d[r + 1] & 15, r += 2;
    r += 2;  // data_reference_index
    const size_t base_at = r;
    const uint64_t base = base_size ? get(d, r, base_size) : 0;
    r += size_t(base_size);
    const uint32_t extents = get(d, r, 2);
    r += 2;
    if (method == 0 && base_size && base > meta.at) put(d, base_at, base_size, base + grow);
    for (uint32_t k = 0; k < extents; ++k) {
      r += size_t(idx_size);
      const uint64_t off = off_size ? get(d, r, off_size) : 0;
      if (method == 0 && off_size && (!base_size || base == 0) && off > meta.at)
        put(d, r, off_size, off + grow);
      r += size_t(off_size) + size_t(len_size);
    }
  }
  return d;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_depth_samples OUT_DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  try {
    write_all(dir + "/gd_standard_xmp.jpg", gdepth_standard());
    write_all(dir + "/gd_rotated.jpg", gdepth_rotated());
    write_all(dir + "/gd_extended_xmp.jpg", gdepth_extended());
    write_all(dir + "/dd_container.jpg", dynamic_depth());
    write_all(dir + "/heic_aux.heic", heic_with_depth(dir + "/heic_aux.tmp.heic"));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "make_depth_samples: %s\n", e.what());
    return 1;
  }
  return 0;
}
