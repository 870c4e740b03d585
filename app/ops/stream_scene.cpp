#include "app/ops/stream_scene.hpp"

#include <algorithm>
#include <memory>
#include <vector>

#include "app/io/stream_io.hpp"
#include "core/parallel.hpp"

namespace satlab {
namespace {

uint32_t hash(uint32_t x, uint32_t y, uint32_t seed) {  // a few rounds of multiply-xorshift
  uint32_t h = x * 0x9E3779B1u ^ (y + 0x7F4A7C15u) * 0x85EBCA77u ^ seed * 0xC2B2AE3Du;
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  h ^= h >> 12;
  h *= 0x297A2D39u;
  return h ^ (h >> 15);
}

}  // namespace

void scene_rows(uint32_t width, uint32_t height, uint32_t y0, uint32_t y1, int channels, uint8_t* out,
                size_t stride, uint32_t seed) {
  const int64_t cx = width / 2, cy = height / 2;
  const uint64_t w = std::max<uint32_t>(width, 1), h = std::max<uint32_t>(height, 1);
  parallel_for(long(y0), long(y1), [&](long b, long e) {
    for (long yy = b; yy < e; ++yy) {
      const uint32_t y = uint32_t(yy);
      uint8_t* row = out + size_t(y - y0) * stride;
      const int64_t dy = int64_t(y) - cy;
      for (uint32_t x = 0; x < width; ++x) {
        const uint32_t n = hash(x, y, seed);
        const int64_t dx = int64_t(x) - cx;
        const int checker = (((x >> 9) ^ (y >> 9)) & 1) ? 36 : -36;
        const int ring = ((uint64_t(dx * dx + dy * dy) >> 14) & 1) ? 24 : -24;  // rings ~ sqrt(2^14) apart
        const int bar = (x % 97 < 3 || y % 89 < 2) ? -90 : 0;
        const int base[3] = {int(uint64_t(x) * 160 / w) + 48, int(uint64_t(y) * 160 / h) + 48,
                             int((uint64_t(x) + y) * 80 / (w + h)) + 88};
        uint8_t* px = row + size_t(x) * size_t(channels);
        for (int c = 0; c < 3; ++c) {
          const int noise = int((n >> (8 * c)) & 63) - 32;
          px[c] = uint8_t(std::clamp(base[c] + checker + (c == 1 ? -ring : ring) + bar + noise, 0, 255));
        }
        if (channels == 4) px[3] = 255;
      }
    }
  });
}

void write_scene(const std::string& path, uint32_t width, uint32_t height, bool compress, uint32_t seed) {
  io::StreamSpec spec;
  spec.width = width, spec.height = height;
  spec.channels = 3;
  spec.compress = compress;
  std::unique_ptr<io::ImageWriter> w = io::open_image_writer(path, spec);
  const uint32_t band = 64;
  std::vector<uint8_t> rows(size_t(width) * 3 * band);
  for (uint32_t y = 0; y < height; y += band) {
    const uint32_t n = std::min(band, height - y);
    scene_rows(width, height, y, y + n, 3, rows.data(), size_t(width) * 3, seed);
    w->write_rows(n, rows.data(), size_t(width) * 3);
  }
  w->finish();
}

}  // namespace satlab
