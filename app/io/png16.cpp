// 16-bit greyscale PNG writer (stb_image_write only writes 8-bit): IHDR, one zlib-compressed IDAT, IEND.
#include <zlib.h>

#include <cstdio>
#include <string>
#include <vector>

#include "app/io/atomic_file.hpp"

namespace satlab::io {

namespace {

void put32(std::vector<uint8_t>& b, uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) b.push_back(uint8_t(v >> s));
}

void chunk(std::vector<uint8_t>& out, const char* type, const std::vector<uint8_t>& data) {
  put32(out, uint32_t(data.size()));
  std::vector<uint8_t> body(type, type + 4);
  body.insert(body.end(), data.begin(), data.end());
  out.insert(out.end(), body.begin(), body.end());
  put32(out, uint32_t(crc32(0L, body.data(), uInt(body.size()))));
}

}  // namespace

// `rows` holds height rows of (filter byte 0, then width big-endian uint16 samples).
bool write_png16_gray(const std::string& path, int width, int height, const std::vector<uint8_t>& rows) {
  std::vector<uint8_t> out = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  std::vector<uint8_t> ihdr;
  put32(ihdr, uint32_t(width));
  put32(ihdr, uint32_t(height));
  ihdr.insert(ihdr.end(), {16, 0, 0, 0, 0});  // 16-bit greyscale, deflate, adaptive filters, no interlace
  chunk(out, "IHDR", ihdr);
  uLongf len = compressBound(uLong(rows.size()));
  std::vector<uint8_t> z(len);
  if (compress2(z.data(), &len, rows.data(), uLong(rows.size()), 6) != Z_OK) return false;
  z.resize(len);
  chunk(out, "IDAT", z);
  chunk(out, "IEND", {});
  return write_file_checked(path, out.data(), out.size());
}

}  // namespace satlab::io
