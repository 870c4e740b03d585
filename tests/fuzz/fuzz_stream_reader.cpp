// Fuzz target: the row and tile reader (app/io/stream_io.hpp) on TIFF (striped, tiled, BigTIFF), PNG (rows,
// interlaced) and JPEG (scanlines), seeded from tests/fuzz/corpus/stream (tools/make_format_seeds.cpp, and
// hand-made PNGs: palette, Adam7, 1- and 2-bit grey, tRNS).
// The header is read, then every row in bands of 7 (8 and 16 bits alternating), and a TIFF once more from
// the last band back. A result must be consistent, otherwise satlab::Error.
#include <algorithm>
#include <vector>

#include "app/io/stream_io.hpp"
#include "core/error.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace satlab;
  const std::string path = fuzz::write_input(data, size, "img");
  try {
    auto r = io::open_image_reader(path);
    const io::StreamHeader& h = r->header();
    if (h.width == 0 || h.height == 0 || h.format.empty()) __builtin_trap();
    if (h.width > 4096 || uint64_t(h.width) * h.height > (uint64_t(1) << 22)) return 0;  // the header only
    const uint32_t band = 7;
    std::vector<uint8_t> rgba8(size_t(h.width) * 4 * band);
    std::vector<uint16_t> rgba16(rgba8.size());
    std::vector<uint32_t> firsts;
    for (uint32_t y = 0; y < h.height; y += band) firsts.push_back(y);
    if (h.format == "TIFF") firsts.insert(firsts.end(), firsts.rbegin(), firsts.rend());
    for (size_t i = 0; i < firsts.size(); ++i) {
      const uint32_t y0 = firsts[i], y1 = std::min(h.height, y0 + band);
      r->read_rows(y0, y1, rgba8.data(), size_t(h.width) * 4, i % 2 ? rgba16.data() : nullptr, size_t(h.width) * 4);
      for (uint32_t y = 0; i % 2 && y < y1 - y0; ++y)  // the 16-bit pixels round to the 8-bit ones
        for (size_t k = 0; k < size_t(h.width) * 4; ++k) {
          const size_t at = size_t(y) * h.width * 4 + k;
          if (uint8_t((uint32_t(rgba16[at]) * 255u + 32767u) / 65535u) != rgba8[at]) __builtin_trap();
        }
    }
  } catch (const Error&) {
  }
  return 0;
}
