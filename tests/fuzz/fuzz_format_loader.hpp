// The body of the per-format loader fuzz targets (fuzz_webp_loader, fuzz_tiff_loader, fuzz_heif_loader,
// fuzz_jpeg_loader): the same bytes through load_image and load_depth. The loaders find the format from
// the bytes, so these differ from fuzz_image_loader by their seed corpus (tests/fuzz/corpus/<format>),
// which starts the search inside one decoder. A result must be consistent, otherwise satlab::Error.
#pragma once
#include <cmath>
#include <cstdint>

#include "app/io/image_io.hpp"
#include "core/error.hpp"
#include "fuzz_input.hpp"

namespace satlab::fuzz {

inline int load_both(const uint8_t* data, size_t size, const char* ext) {
  const std::string path = write_input(data, size, ext);
  try {
    io::LoadInfo info;
    info.want_high = true;
    const ImageRGBA8 img = io::load_image(path, &info);
    if (img.width <= 0 || img.height <= 0 || img.data.size() != img.pixels() * 4) __builtin_trap();
    if (!info.high.empty() && (info.high.width != img.width || info.high.height != img.height)) __builtin_trap();
  } catch (const Error&) {
  }
  try {
    const ImageF d = io::load_depth(path);
    if (d.width <= 0 || d.height <= 0 || d.channels != 1 || d.data.size() != d.pixels()) __builtin_trap();
    for (float v : d.data)
      if (!std::isfinite(v)) __builtin_trap();
  } catch (const Error&) {
  }
  return 0;
}

}  // namespace satlab::fuzz
