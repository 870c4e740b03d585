// An image too large to decode whole, seen at a fraction of its resolution: a region of it (the whole image
// for an overview) read through its row reader (stream_io.hpp) band by band, each factor x factor block of
// pixels averaged as the rows go by. Memory: the reader's own buffer, one band of the region's columns and
// one row of block sums, whatever the image's size. TIFF rows are read where they lie; PNG and JPEG rows
// only forward, so a region of those decodes every row above it again (the reader's cost, not its memory).
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "app/io/stream_io.hpp"
#include "core/image.hpp"
#include "core/preview.hpp"

namespace satlab::io {

// Opens `path` as open_image_reader does, its rows converted from its ICC profile (if any) to sRGB as the
// whole-image loader and `satlab render`'s streaming path convert them (8-bit rows; 16-bit ones are given
// as stored). The orientation is not applied (header().orientation says whether the file has one).
std::unique_ptr<ImageReader> open_srgb_reader(const std::string& path);

// The smallest power of 2 f such that ceil(width / f) and ceil(height / f) are at most max_side (>= 1).
uint32_t reduction_factor(uint32_t width, uint32_t height, uint32_t max_side);

// `region` of the image `reader` reads (within its header's size), each factor x factor block from the
// region's top-left corner averaged per channel and rounded half up; blocks cut by the region's right or
// bottom edge average the pixels they hold. The result is ceil(width / factor) x ceil(height / factor).
// Rows are asked for in increasing order from region.y0, band_rows at a time (PNG and JPEG readers must not
// have read past region.y0). Throws satlab::Error for a region outside the image or a factor of 0.
ImageRGBA8 read_reduced(ImageReader& reader, const PixelRect& region, uint32_t factor,
                        uint32_t band_rows = 64);

}  // namespace satlab::io
