// A test image of any size, made and written by rows (satlab bench stream, the streaming tests): smooth
// structure (a colour ramp, a checker of 512-pixel squares, rings around the centre, thin bars) under
// per-pixel noise, so that no codec compresses it to nothing and a blur has edges and grain to soften.
// Every pixel is a function of (x, y, seed) alone: any band can be made on its own.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace satlab {

// Rows [y0, y1) of a width x height scene, `channels` (3: RGB, 4: RGBA, alpha opaque) bytes a pixel,
// rows `stride` bytes apart.
void scene_rows(uint32_t width, uint32_t height, uint32_t y0, uint32_t y1, int channels, uint8_t* out,
                size_t stride, uint32_t seed = 1);

// Writes the scene as an 8-bit RGB file by rows (io::open_image_writer: TIFF strips, uncompressed unless
// `compress`; PNG; JPEG), through a temporary file and rename.
void write_scene(const std::string& path, uint32_t width, uint32_t height, bool compress = false,
                 uint32_t seed = 1);

}  // namespace satlab
