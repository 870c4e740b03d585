// Fuzz target: load_image and load_depth from a TIFF seed corpus (fuzz_format_loader.hpp).
#include "fuzz_format_loader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return satlab::fuzz::load_both(data, size, "tif");
}
