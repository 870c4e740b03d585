// Fuzz target: satlab::io::load_image on arbitrary bytes. Any input must either load an image whose
// size matches its pixel buffer, or throw satlab::Error; crashes, leaks, hangs and other exceptions
// are findings.
#include <cstdint>

#include "app/io/image_io.hpp"
#include "core/error.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = satlab::fuzz::write_input(data, size, "img");
  try {
    satlab::ImageRGBA8 img = satlab::io::load_image(path);
    if (img.width <= 0 || img.height <= 0 || img.data.size() != img.pixels() * 4) __builtin_trap();
    if (img.pixels() > satlab::io::max_pixels()) __builtin_trap();
  } catch (const satlab::Error&) {
  }
  return 0;
}
