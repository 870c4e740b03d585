// Image, depth-map and PNG I/O through stb. Every failure throws satlab::Error with one clear line that
// names the file and the reason; nothing is half-loaded.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "core/image.hpp"

namespace satlab::io {

// The largest image any backend takes (pixels): 16384 x 16384, 268.4 Mpx.
constexpr size_t kMaxPixels = size_t(1) << 28;

// The pixel limit the loaders check from the header before any pixel is decoded: the last
// set_max_megapixels(), else the environment variable SATLAB_MAX_MEGAPIXELS, else kMaxPixels. Images
// that need more host memory than is available are refused as well (format_guard.hpp).
size_t max_pixels();
// Throws satlab::Error unless 0 < megapixels <= kMaxPixels / 1e6.
void set_max_megapixels(double megapixels);

ImageRGBA8 load_image(const std::string& path);
// Depth maps: 8/16-bit greyscale or colour PNG/JPEG/BMP/TGA (first channel), Radiance .hdr and .pfm
// (float). Values are returned raw, scaled to [0,1] for integer formats.
ImageF load_depth(const std::string& path);

// Bilinear resampling of a 1-channel depth map to another size (identity when the size matches).
ImageF resample_depth(const ImageF& depth, int width, int height);

// Writers never overwrite an input: a path that is (through links too) a file this process loaded as an
// image or depth map is refused with satlab::Error. Other writers (presets, exports) call this first.
void refuse_overwriting_inputs(const std::string& path);

// Writes through a temporary file and rename, so an interrupted save leaves no half-written file.
// Refuses to overwrite an input (above).
void save_png(const std::string& path, const ImageRGBA8& image);
void save_png16(const std::string& path, const ImageF& grey01);  // 1 channel in [0,1] -> 16-bit PNG
// width * height 16-bit samples as they are -> 16-bit greyscale PNG.
void save_png16_raw(const std::string& path, int width, int height, const std::vector<uint16_t>& samples);
void save_text(const std::string& path, const std::string& text);  // presets, timings (CSV, JSON)

}  // namespace satlab::io
