#include "app/io/format_guard.hpp"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <fstream>

#include "app/io/image_io.hpp"
#include "core/error.hpp"

namespace satlab::io {

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
}

void check_declared_size(const std::string& path, uint64_t file_bytes, uint64_t pixels, uint64_t max_pixels_per_byte,
                         const std::string& format) {
  if (file_bytes * max_pixels_per_byte < pixels)
    throw Error(path + ": " + format + " file of " + std::to_string(file_bytes) + " bytes cannot hold the " +
                megapixels(pixels) + " it declares (truncated or corrupt)");
}

}  // namespace satlab::io
