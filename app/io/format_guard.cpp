#include "app/io/format_guard.hpp"

#include <cstdint>
#include <fstream>
#include <iterator>
#include <vector>

#include "core/error.hpp"

namespace satlab::io {
namespace {

// Walks the JPEG marker segments the way stb_image does (skipping stray bytes between segments and the
// entropy-coded data of scans) and checks every Huffman table it would build.
bool jpeg_huffman_tables_ok(const std::vector<uint8_t>& b) {
  size_t i = 2;  // after SOI
  while (i + 4 <= b.size()) {
    if (b[i] != 0xFF) {  // stb resynchronises on the next 0xFF
      ++i;
      continue;
    }
    const uint8_t m = b[i + 1];
    if (m == 0xFF) {  // fill byte
      ++i;
      continue;
    }
    if (m == 0xD9) return true;  // EOI
    if ((m >= 0xD0 && m <= 0xD7) || m == 0x01) {
      i += 2;
      continue;
    }
    const size_t len = size_t(b[i + 2]) << 8 | b[i + 3];
    if (len < 2) return true;
    const size_t end = std::min(b.size(), i + 2 + len);
    if (m == 0xC4) {  // DHT: [class/id][16 counts][symbols] repeated
      // stb reads each table's 16 counts even past the segment's end, so bound by the file only.
      for (size_t p = i + 4; p < end && p + 17 <= b.size();) {
        size_t n = 0;
        for (int k = 1; k <= 16; ++k) n += b[p + size_t(k)];
        if (n > 256) return false;
        p += 17 + n;
      }
    }
    i += 2 + len;
    if (m == 0xDA)  // skip the scan's entropy-coded bytes up to the next real marker
      while (i + 1 < b.size() && !(b[i] == 0xFF && b[i + 1] != 0 && !(b[i + 1] >= 0xD0 && b[i + 1] <= 0xD7))) ++i;
  }
  return true;
}

std::vector<uint8_t> read_all(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

bool is_jpeg(const std::vector<uint8_t>& b) { return b.size() >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF; }

}  // namespace

void check_untrusted_file(const std::string& path) {
  const std::vector<uint8_t> b = read_all(path);
  if (is_jpeg(b) && !jpeg_huffman_tables_ok(b))
    throw Error(path + ": corrupt JPEG (Huffman table with more than 256 codes)");
}

void check_untrusted_image(const std::string& path, int width, int height) {
  const std::vector<uint8_t> b = read_all(path);
  const uint64_t pixels = uint64_t(width) * uint64_t(height);
  const bool png = b.size() >= 8 && b[0] == 0x89 && b[1] == 'P' && b[2] == 'N' && b[3] == 'G';
  const bool jpeg = is_jpeg(b);
  // Deflate cannot beat 1032:1, and a PNG row costs at least one filter byte plus one bit per pixel.
  if (png && uint64_t(b.size()) * 1032 < pixels / 8)
    throw Error(path + ": PNG of " + std::to_string(b.size()) + " bytes cannot hold the " + std::to_string(width) +
                "x" + std::to_string(height) + " pixels it declares (truncated or corrupt)");
  // A JPEG spends at least a few bits on every 8x8 block of every component.
  if (jpeg && uint64_t(b.size()) * 8 * 64 < pixels / 4)
    throw Error(path + ": JPEG of " + std::to_string(b.size()) + " bytes cannot hold the " + std::to_string(width) +
                "x" + std::to_string(height) + " pixels it declares (truncated or corrupt)");
}

}  // namespace satlab::io
