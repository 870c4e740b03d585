#include "app/io/format_guard.hpp"

#include <cstdint>
#include <fstream>

#include "core/error.hpp"

namespace satlab::io {

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

}  // namespace satlab::io
