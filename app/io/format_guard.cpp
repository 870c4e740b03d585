#include "app/io/format_guard.hpp"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <vector>

#include <zlib.h>

#include "app/io/image_io.hpp"
#include "core/error.hpp"

namespace satlab::io {

namespace {

uint32_t be32(const unsigned char* p) { return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3]; }

// The bytes a PNG's rows take before filtering, from its IHDR (0 where it cannot be read): a lower bound
// of what its image data must inflate to (interlaced files take a little more).
uint64_t png_declared_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  unsigned char h[29] = {};
  if (!f.read(reinterpret_cast<char*>(h), 29) || std::memcmp(h + 12, "IHDR", 4) != 0) return 0;
  const uint64_t w = be32(h + 16), ht = be32(h + 20);
  const int bits = h[24], type = h[25];
  const int channels = type == 0 ? 1 : type == 2 ? 3 : type == 3 ? 1 : type == 4 ? 2 : type == 6 ? 4 : 0;
  if (!channels || !bits) return 0;
  return ht * ((w * uint64_t(channels) * uint64_t(bits) + 7) / 8);
}

// What the IDAT chunks inflate to, counted through a 64 KiB buffer, stopping at `enough`.
uint64_t png_inflated_bytes(const std::string& path, uint64_t enough) {
  std::ifstream f(path, std::ios::binary);
  f.seekg(8);
  z_stream z{};
  if (inflateInit(&z) != Z_OK) return 0;
  std::vector<unsigned char> in, out(1 << 16);
  uint64_t total = 0;
  bool done = false;
  unsigned char head[8];
  while (!done && total < enough && f.read(reinterpret_cast<char*>(head), 8)) {
    const uint32_t n = be32(head);
    if (std::memcmp(head + 4, "IEND", 4) == 0) break;
    if (std::memcmp(head + 4, "IDAT", 4) != 0) {
      f.seekg(std::streamoff(n) + 4, std::ios::cur);
      continue;
    }
    in.resize(n);
    if (n && !f.read(reinterpret_cast<char*>(in.data()), n)) break;
    f.seekg(4, std::ios::cur);  // the CRC
    z.next_in = in.data(), z.avail_in = uInt(n);
    while (z.avail_in > 0 && total < enough) {
      z.next_out = out.data(), z.avail_out = uInt(out.size());
      const int r = inflate(&z, Z_NO_FLUSH);
      total += out.size() - z.avail_out;
      if (r == Z_STREAM_END || (r != Z_OK && r != Z_BUF_ERROR)) {
        done = true;
        break;
      }
      if (r == Z_BUF_ERROR && z.avail_out != 0) break;
    }
  }
  inflateEnd(&z);
  return total;
}

}  // namespace

namespace {
std::atomic<size_t> g_decode_limit{0};
}  // namespace

void set_decode_memory_limit(size_t bytes) { g_decode_limit = bytes; }
size_t decode_memory_limit() { return g_decode_limit.load(); }
namespace {

std::atomic<uint64_t> g_memory_override{0};

std::string megapixels(uint64_t pixels) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f Mpx", double(pixels) / 1e6);
  return buf;
}

}  // namespace

uint64_t host_memory_available() {
  if (const uint64_t o = g_memory_override.load()) return o;
  std::ifstream f("/proc/meminfo");
  std::string key;
  uint64_t kib = 0;
  std::string unit;
  while (f >> key >> kib >> unit)
    if (key == "MemAvailable:") return kib * 1024;
  return 0;
}

void testing::set_host_memory_available(uint64_t bytes) { g_memory_override = bytes; }

void check_pixel_limit(const std::string& path, uint64_t width, uint64_t height) {
  const uint64_t pixels = width * height;  // both < 2^32: no overflow
  const uint64_t limit = max_pixels();
  if (pixels > limit)
    throw Error(path + ": image is " + std::to_string(width) + "x" + std::to_string(height) + " (" +
                megapixels(pixels) + "), more than the limit of " + megapixels(limit) +
                " (--max-megapixels or SATLAB_MAX_MEGAPIXELS)");
}

void check_image_limits(const std::string& path, uint64_t width, uint64_t height) {
  check_pixel_limit(path, width, height);
  const uint64_t pixels = width * height;
  const std::string size = std::to_string(width) + "x" + std::to_string(height) + " (" + megapixels(pixels) + ")";
  const uint64_t need = pixels * kHostBytesPerPixel, have = host_memory_available();
  if (have != 0 && need > have)
    throw Error(path + ": image is " + size + ": loading and filtering it takes about " +
                std::to_string(need >> 20) + " MiB of memory, only " + std::to_string(have >> 20) +
                " MiB available (satlab render streams TIFF, PNG and JPEG files of any size in tiles)");
}

void check_untrusted_image(const std::string& path, int width, int height) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  const uint64_t size = f ? uint64_t(f.tellg()) : 0;
  f.seekg(0);
  char magic[4] = {};
  f.read(magic, 4);
  const bool png = magic[0] == char(0x89) && magic[1] == 'P' && magic[2] == 'N' && magic[3] == 'G';
  const uint64_t pixels = uint64_t(width) * uint64_t(height);
  // PNG: deflate cannot beat 1032:1 and every pixel costs at least one bit before compression. The
  // other formats stb reads here compress by run-length at best: TGA and HDR runs cover at most 128
  // pixels, BMP RLE8 runs 255 pixels per 2 bytes, so no valid file packs more than 128 pixels a byte.
  const uint64_t max_pixels_per_byte = png ? 1032 * 8 : 128;
  if (size * max_pixels_per_byte < pixels)
    throw Error(path + ": file of " + std::to_string(size) + " bytes cannot hold the " + std::to_string(width) + "x" +
                std::to_string(height) + " pixels it declares (truncated or corrupt)");
  if (png) check_png_data(path, size, uint64_t(width), uint64_t(height));
}

void check_png_data(const std::string& path, uint64_t file_bytes, uint64_t width, uint64_t height) {
  // Only where the header declares far more pixels than such a file usually holds: a photograph's PNG
  // inflates a few times, the check costs an inflate of what it counts.
  if (width * height <= 64 * file_bytes) return;
  const uint64_t need = png_declared_bytes(path);
  const uint64_t have = png_inflated_bytes(path, need);
  if (need && have < need)
    throw Error(path + ": its image data inflates to " + std::to_string(have) + " bytes, short of the " +
                std::to_string(need) + " that " + std::to_string(width) + "x" + std::to_string(height) +
                " pixels take (truncated or corrupt)");
}

void check_declared_size(const std::string& path, uint64_t file_bytes, uint64_t pixels, uint64_t max_pixels_per_byte,
                         const std::string& format) {
  if (file_bytes * max_pixels_per_byte < pixels)
    throw Error(path + ": " + format + " file of " + std::to_string(file_bytes) + " bytes cannot hold the " +
                megapixels(pixels) + " it declares (truncated or corrupt)");
}

}  // namespace satlab::io
