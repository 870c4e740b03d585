// PNG chunks stb_image does not return: eXIf (orientation) and iCCP (ICC profile, zlib-compressed).
#include <zlib.h>

#include <cstring>

#include "app/io/decoded.hpp"
#include "app/io/exif.hpp"

namespace satlab::io {
namespace {

uint32_t be32(const uint8_t* p) { return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3]; }

// Inflates at most `limit` bytes; empty on any error or when the profile is larger.
std::vector<uint8_t> inflate_limited(const uint8_t* p, size_t n, size_t limit) {
  std::vector<uint8_t> out;
  z_stream z{};
  if (inflateInit(&z) != Z_OK) return out;
  z.next_in = const_cast<Bytef*>(p);
  z.avail_in = uInt(n);
  uint8_t buf[16384];
  int r = Z_OK;
  while (r == Z_OK) {
    z.next_out = buf;
    z.avail_out = sizeof(buf);
    r = inflate(&z, Z_NO_FLUSH);
    if (r != Z_OK && r != Z_STREAM_END) break;
    out.insert(out.end(), buf, buf + (sizeof(buf) - z.avail_out));
    if (out.size() > limit) break;
    if (r == Z_OK && z.avail_in == 0 && z.avail_out != 0) break;  // input ends before the stream does
  }
  inflateEnd(&z);
  if (r != Z_STREAM_END || out.size() > limit) out.clear();
  return out;
}

}  // namespace

void png_metadata(const std::vector<uint8_t>& b, int* orientation, std::vector<uint8_t>* icc, std::string* bad_crc,
                  bool* critical) {
  *orientation = 0;
  icc->clear();
  if (bad_crc) bad_crc->clear();
  if (critical) *critical = false;
  if (b.size() < 8 || std::memcmp(b.data(), "\x89PNG\r\n\x1a\n", 8) != 0) return;
  size_t at = 8;
  while (at + 12 <= b.size()) {
    const uint32_t n = be32(&b[at]);
    if (n > b.size() - at - 12) return;
    const char* type = reinterpret_cast<const char*>(&b[at + 4]);
    const uint8_t* data = &b[at + 8];
    if (bad_crc && bad_crc->empty()) {
      const uint32_t want = be32(&b[at + 8 + n]);
      const uint32_t got = uint32_t(crc32(crc32(0L, Z_NULL, 0), &b[at + 4], uInt(n + 4)));
      if (want != got) {
        *bad_crc = std::string(type, 4) + " chunk at byte " + std::to_string(at);
        if (critical) *critical = (type[0] & 0x20) == 0;  // an upper-case first letter: critical
      }
    }
    // eXIf may follow IDAT (PNG 1.5 extensions allow it); iCCP must precede it.
    if (std::memcmp(type, "eXIf", 4) == 0 && *orientation == 0) *orientation = exif_orientation(data, n);
    if (std::memcmp(type, "iCCP", 4) == 0 && icc->empty()) {
      const void* nul = std::memchr(data, 0, std::min<size_t>(n, 80));  // profile name: 1-79 bytes
      if (nul) {
        const size_t name = size_t(static_cast<const uint8_t*>(nul) - data);
        if (name + 2 <= n && data[name + 1] == 0)  // compression method 0: deflate
          *icc = inflate_limited(data + name + 2, n - name - 2, size_t(1) << 24);
      }
    }
    if (std::memcmp(type, "IEND", 4) == 0) return;
    at += 12 + size_t(n);
  }
}

}  // namespace satlab::io
