// TIFF writer (the reader is in decoded.hpp, reached through load_image).
#pragma once
#include <string>

namespace satlab::io {

// Writes channels (1 grey, 2 grey+alpha, 3 RGB, 4 RGBA) of `bits` (8 or 16, native-endian uint16) samples,
// deflate-compressed, with the given Orientation tag (1 for everything satlab exports). Returns false
// where libtiff cannot write the file.
bool write_tiff(const std::string& path, int width, int height, int channels, int bits, const void* samples,
                int orientation = 1);

}  // namespace satlab::io
