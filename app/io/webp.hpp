// WebP writer (the reader is in decoded.hpp, reached through load_image).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/image.hpp"

namespace satlab::io {

// quality 0..100: lossy; above 100: lossless. Optional EXIF and ICC chunks (extended container). Returns
// false where the file cannot be encoded or written.
bool write_webp(const std::string& path, const ImageRGBA8& image, int quality, const std::vector<uint8_t>& exif = {},
                const std::vector<uint8_t>& icc = {});

}  // namespace satlab::io
