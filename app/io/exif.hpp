// EXIF orientation: read from the TIFF structure that JPEG (APP1), PNG (eXIf), WebP (EXIF) and TIFF files
// carry, and applied to pixels so that images are filtered and shown the way the camera meant them.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/image.hpp"

namespace satlab::io {

// The Orientation tag (0x0112) of IFD0 in an EXIF block, with or without its "Exif\0\0" prefix: 1..8, or
// 0 where there is none or the block is malformed (every offset is checked against `size`; the tag must
// be one SHORT in 1..8). Never reads outside [data, data + size).
int exif_orientation(const uint8_t* data, size_t size);

// A minimal EXIF block (big-endian TIFF, IFD0 holding only the Orientation tag), with the "Exif\0\0"
// prefix when `prefix`. For writing test files.
std::vector<uint8_t> make_exif_orientation(int orientation, bool prefix);

// Width and height after orientation `o` (5..8 swap them).
inline bool orientation_swaps_axes(int o) { return o >= 5 && o <= 8; }

// The pixel of the stored image (w x h) shown at (x, y) of the displayed image, for EXIF orientation o:
// 1 as stored, 2 mirrored left-right, 3 turned 180 degrees, 4 mirrored top-bottom, 5 transposed, 6 turned
// 90 degrees clockwise, 7 transversed, 8 turned 90 degrees anticlockwise.
inline void orientation_source(int o, int w, int h, int x, int y, int* sx, int* sy) {
  switch (o) {
    case 2: *sx = w - 1 - x, *sy = y; break;
    case 3: *sx = w - 1 - x, *sy = h - 1 - y; break;
    case 4: *sx = x, *sy = h - 1 - y; break;
    case 5: *sx = y, *sy = x; break;
    case 6: *sx = y, *sy = h - 1 - x; break;
    case 7: *sx = w - 1 - y, *sy = h - 1 - x; break;
    case 8: *sx = w - 1 - y, *sy = x; break;
    default: *sx = x, *sy = y; break;
  }
}

// The displayed image for orientation o (0 and 1: unchanged).
ImageRGBA8 apply_orientation(const ImageRGBA8& stored, int o);
ImageF apply_orientation(const ImageF& stored, int o);
// The orientation that undoes o (6 and 8 undo each other; the others undo themselves).
inline int inverse_orientation(int o) { return o == 6 ? 8 : o == 8 ? 6 : o; }

}  // namespace satlab::io
