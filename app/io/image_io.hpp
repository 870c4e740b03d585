// Image, depth-map and image-file I/O: PNG, BMP, TGA, HDR through stb; JPEG (RGB, grey, CMYK, YCCK) through
// libjpeg-turbo; WebP, TIFF (8 and 16 bit) through libwebp and libtiff; HEIC/HEIF and AVIF through libheif
// where it is installed. EXIF orientation and ICC profiles are applied on load (LoadInfo says what was done). Every failure throws satlab::Error with one clear line that
// names the file and the reason; nothing is half-loaded.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "core/image.hpp"

namespace satlab::io {

// The pixel limit the loaders check from the header before any pixel is decoded: the last
// set_max_megapixels(), else the environment variable SATLAB_MAX_MEGAPIXELS, else none (SIZE_MAX): the
// size an image may have is bounded by memory, not by a fixed number. Whole-image loads are refused when
// they need more host memory than is available (format_guard.hpp); `satlab render` streams larger TIFF,
// PNG and JPEG files in tiles within its --memory-budget (core/tiled.hpp).
size_t max_pixels();
// Throws satlab::Error unless megapixels is a positive finite number.
void set_max_megapixels(double megapixels);
// Back to SATLAB_MAX_MEGAPIXELS, else no limit.
void clear_max_megapixels();

// What a loader did beside decoding, for the user (the CLI prints `notes`, the app shows them).
struct LoadInfo {
  bool want_high = false;                // set before the call: fill `high` for deep files (16 bytes a pixel)
  std::string format;                    // "PNG", "JPEG", "WebP", "TIFF", "HEIF", ...
  int orientation = 1;                   // the EXIF/TIFF orientation applied (1: none); HEIF: its own irot/imir
  int stored_width = 0, stored_height = 0;  // the size as stored, before the orientation
  int bits = 8;                          // bits per channel in the file
  // With want_high, 16-bit (and 10/12-bit HEIF) colour: the same pixels as the returned image, RGBA in
  // [0,1], oriented and colour converted alike. The pipeline filters 8-bit RGBA (ImageRGBA8), so this is
  // only kept beside it, not used by the filters yet (the app and `render` do not ask for it). Empty for
  // 8-bit files.
  ImageF high;
  std::vector<std::string> notes;        // e.g. "ICC profile converted to sRGB", "rotated (EXIF orientation 6)"
};

// The returned image is as displayed: orientation applied, colours in sRGB where an ICC profile could be
// applied (else a note says it was not).
ImageRGBA8 load_image(const std::string& path);
ImageRGBA8 load_image(const std::string& path, LoadInfo* info);
// Depth maps: 8/16-bit greyscale or colour PNG/JPEG/WebP/TIFF/HEIF/BMP/TGA (first channel), Radiance .hdr
// and .pfm (float). Values are returned raw, scaled to [0,1] for integer formats. A depth file with its own
// orientation (EXIF, TIFF tag) is turned by it.
ImageF load_depth(const std::string& path);
// What every depth loader does with values that are not finite (NaN holes, infinities): see image_io.cpp.
// Returns how many it replaced; a note for `notes` says so (nothing when there were none).
int fill_depth_holes(ImageF& depth, std::vector<std::string>* notes);
// The same for the depth map of an image loaded with `image`: a depth file without an orientation of its
// own whose size is the image's stored size and not its displayed one (a 90-degree orientation, 5-8) was
// written in the image's stored frame and is given the image's orientation; otherwise it is taken as
// upright (as satlab's own exports write it). `info` may be null.
ImageF load_depth(const std::string& path, const LoadInfo& image, LoadInfo* info);

// Bilinear resampling of a 1-channel depth map to another size (identity when the size matches).
ImageF resample_depth(const ImageF& depth, int width, int height);
// The same for an RGBA image, each channel rounded to the nearest code.
ImageRGBA8 resample_image(const ImageRGBA8& image, int width, int height);

// Writers never overwrite an input: a path that is (through links too) a file this process loaded as an
// image or depth map is refused with satlab::Error. Other writers (presets, exports) call this first.
void refuse_overwriting_inputs(const std::string& path);
// Counts `path` among those inputs: the row readers (stream_io.hpp) call it for every file they open.
void add_input(const std::string& path);

// Writes through a temporary file and rename, so an interrupted save leaves no half-written file.
// Refuses to overwrite an input (above).
void save_png(const std::string& path, const ImageRGBA8& image);
void save_png16(const std::string& path, const ImageF& grey01);  // 1 channel in [0,1] -> 16-bit PNG
// The format follows the extension: .png, .jpg/.jpeg (quality 95), .webp (lossless), .tif/.tiff (8-bit
// RGBA, deflate). Pixels are written as displayed, with no orientation tag. Another extension: Error.
void save_image(const std::string& path, const ImageRGBA8& image);
// 16-bit TIFF of a 1-channel (grey) or 4-channel (RGBA) image in [0,1].
void save_tiff16(const std::string& path, const ImageF& image01);
// The extensions save_image takes, for messages: ".png, .jpg, .jpeg, .webp, .tif, .tiff".
const char* saveable_extensions();
bool can_save(const std::string& path);  // save_image takes this path's extension
// width * height 16-bit samples as they are -> 16-bit greyscale PNG.
void save_png16_raw(const std::string& path, int width, int height, const std::vector<uint16_t>& samples);
void save_text(const std::string& path, const std::string& text);  // presets, timings (CSV, JSON)

}  // namespace satlab::io
