// Image, depth-map and PNG I/O through stb. Every failure throws satlab::Error with one clear line that
// names the file and the reason; nothing is half-loaded.
#pragma once
#include <cstddef>
#include <string>

#include "core/image.hpp"

namespace satlab::io {

// Largest image accepted (pixels), checked from the header before any pixel is decoded.
constexpr size_t kMaxPixels = size_t(1) << 28;  // 16384 x 16384

ImageRGBA8 load_image(const std::string& path);
// Depth maps: 8/16-bit greyscale or colour PNG/JPEG/BMP/TGA (first channel), Radiance .hdr and .pfm
// (float). Values are returned raw, scaled to [0,1] for integer formats.
ImageF load_depth(const std::string& path);

// Bilinear resampling of a 1-channel depth map to another size (identity when the size matches).
ImageF resample_depth(const ImageF& depth, int width, int height);

// Writes through a temporary file and rename, so an interrupted save leaves no half-written file.
void save_png(const std::string& path, const ImageRGBA8& image);
void save_png16(const std::string& path, const ImageF& grey01);  // 1 channel in [0,1] -> 16-bit PNG
void save_text(const std::string& path, const std::string& text);  // presets, timings (CSV, JSON)

}  // namespace satlab::io
