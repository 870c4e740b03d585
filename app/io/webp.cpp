// WebP through libwebp (linked statically). The container's chunks are walked here for the EXIF
// orientation and the ICC profile; the writer builds the extended (VP8X) container itself when it has
// metadata to add.
#include <webp/decode.h>
#include <webp/encode.h>

#include <cstdio>
#include <cstring>

#include "app/io/atomic_file.hpp"
#include "app/io/decoded.hpp"
#include "app/io/exif.hpp"
#include "app/io/format_guard.hpp"
#include "app/io/webp.hpp"
#include "core/error.hpp"

namespace satlab::io {
namespace {

uint32_t le32(const uint8_t* p) { return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24; }
void put_le(std::vector<uint8_t>& b, uint32_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) b.push_back(uint8_t(v >> (8 * i)));
}
void put_chunk(std::vector<uint8_t>& b, const char* fourcc, const uint8_t* data, size_t n) {
  b.insert(b.end(), fourcc, fourcc + 4);
  put_le(b, uint32_t(n), 4);
  b.insert(b.end(), data, data + n);
  if (n & 1) b.push_back(0);
}

// Calls fn(fourcc, payload, size) for each chunk after the RIFF header, stopping at the first one that
// does not fit in the file.
template <typename Fn>
void for_each_chunk(const std::vector<uint8_t>& b, Fn&& fn) {
  size_t at = 12;
  while (at + 8 <= b.size()) {
    const uint32_t n = le32(&b[at + 4]);
    if (n > b.size() - at - 8) return;
    fn(reinterpret_cast<const char*>(&b[at]), &b[at + 8], size_t(n));
    at += 8 + size_t(n) + (n & 1);
  }
}

}  // namespace

bool is_webp(const std::vector<uint8_t>& b) {
  return b.size() >= 12 && std::memcmp(b.data(), "RIFF", 4) == 0 && std::memcmp(b.data() + 8, "WEBP", 4) == 0;
}

void check_webp_header(const std::string& path, const std::vector<uint8_t>& head) {
  WebPBitstreamFeatures f;
  if (WebPGetFeatures(head.data(), head.size(), &f) == VP8_STATUS_OK && f.width > 0 && f.height > 0)
    check_image_limits(path, uint64_t(f.width), uint64_t(f.height));
}

Decoded decode_webp(const std::string& path, const std::vector<uint8_t>& bytes) {
  WebPBitstreamFeatures f;
  if (WebPGetFeatures(bytes.data(), bytes.size(), &f) != VP8_STATUS_OK)
    throw Error(path + ": not a readable WebP image (bad or truncated header)");
  if (f.has_animation) throw Error(path + ": animated WebP is not supported (a still image is needed)");
  if (f.width <= 0 || f.height <= 0) throw Error(path + ": image has zero size");
  check_image_limits(path, uint64_t(f.width), uint64_t(f.height));
  // Lossy: a 16x16 macroblock costs at least a bit; lossless: a backward reference copies at most 4096
  // pixels and costs a few bits.
  check_declared_size(path, uint64_t(bytes.size()), uint64_t(f.width) * uint64_t(f.height),
                      f.format == 2 ? 4096 : 2048, "WebP");
  Decoded d;
  d.format = "WebP";
  d.rgba = ImageRGBA8(f.width, f.height);
  if (!WebPDecodeRGBAInto(bytes.data(), bytes.size(), d.rgba.data.data(), d.rgba.data.size(), f.width * 4))
    throw Error(path + ": cannot decode WebP (corrupt or truncated image data)");
  for_each_chunk(bytes, [&](const char* cc, const uint8_t* p, size_t n) {
    if (std::memcmp(cc, "EXIF", 4) == 0 && d.orientation == 0) d.orientation = exif_orientation(p, n);
    if (std::memcmp(cc, "ICCP", 4) == 0 && d.icc.empty()) d.icc.assign(p, p + n);
  });
  return d;
}

bool write_webp(const std::string& path, const ImageRGBA8& image, int quality, const std::vector<uint8_t>& exif,
                const std::vector<uint8_t>& icc) {
  // The advanced API: lossless with `exact`, so that colour under transparent pixels is kept.
  WebPConfig config;
  if (!WebPConfigInit(&config)) return false;
  config.lossless = quality > 100 ? 1 : 0;
  config.exact = 1;
  config.quality = quality > 100 ? 75.f : float(quality);
  WebPPicture pic;
  if (!WebPPictureInit(&pic)) return false;
  pic.use_argb = 1;
  pic.width = image.width;
  pic.height = image.height;
  WebPMemoryWriter writer;
  WebPMemoryWriterInit(&writer);
  pic.writer = WebPMemoryWrite;
  pic.custom_ptr = &writer;
  const bool encoded = WebPPictureImportRGBA(&pic, image.data.data(), image.width * 4) && WebPEncode(&config, &pic);
  WebPPictureFree(&pic);
  std::vector<uint8_t> simple;
  if (encoded) simple.assign(writer.mem, writer.mem + writer.size);
  WebPMemoryWriterClear(&writer);
  if (!encoded || simple.size() < 20) return false;
  std::vector<uint8_t> file;
  if (exif.empty() && icc.empty()) {
    file = std::move(simple);
  } else {
    // Extended container: VP8X (flags, canvas size), ICCP, the image chunk(s) of the simple file, EXIF.
    bool alpha = false;
    for (size_t i = 3; i < image.data.size() && !alpha; i += 4) alpha = image.data[i] != 255;
    std::vector<uint8_t> vp8x;
    put_le(vp8x, (icc.empty() ? 0u : 0x20u) | (exif.empty() ? 0u : 0x08u) | (alpha ? 0x10u : 0u), 4);
    put_le(vp8x, uint32_t(image.width - 1), 3);
    put_le(vp8x, uint32_t(image.height - 1), 3);
    file = {'R', 'I', 'F', 'F', 0, 0, 0, 0, 'W', 'E', 'B', 'P'};
    put_chunk(file, "VP8X", vp8x.data(), vp8x.size());
    if (!icc.empty()) put_chunk(file, "ICCP", icc.data(), icc.size());
    // A lossy image with alpha comes back already extended (VP8X, ALPH, VP8): its own VP8X is replaced.
    const size_t body = std::memcmp(simple.data() + 12, "VP8X", 4) == 0 ? 12 + 8 + 10 : 12;
    file.insert(file.end(), simple.begin() + long(body), simple.end());
    if (!exif.empty()) put_chunk(file, "EXIF", exif.data(), exif.size());
    const uint32_t riff = uint32_t(file.size() - 8);
    for (int i = 0; i < 4; ++i) file[4 + size_t(i)] = uint8_t(riff >> (8 * i));
  }
  return write_file_checked(path, file.data(), file.size());
}

}  // namespace satlab::io
