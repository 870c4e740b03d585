// Fuzz target: satlab::io::load_depth on arbitrary bytes. The first byte picks the extension, so both
// the stb path (PNG, HDR, ...) and the PFM parser are reached. A loaded depth map must be finite and
// consistent, otherwise satlab::Error.
#include <cmath>
#include <cstdint>

#include "app/io/image_io.hpp"
#include "core/error.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string path = satlab::fuzz::write_input(data + 1, size - 1, data[0] & 1 ? "pfm" : "png");
  try {
    satlab::ImageF d = satlab::io::load_depth(path);
    if (d.width <= 0 || d.height <= 0 || d.channels != 1 || d.data.size() != d.pixels()) __builtin_trap();
    for (float v : d.data)
      if (!std::isfinite(v)) __builtin_trap();
  } catch (const satlab::Error&) {
  }
  return 0;
}
