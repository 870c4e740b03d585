// Fuzz target: load_image and load_depth from an OpenEXR seed corpus (fuzz_format_loader.hpp; seeds from
// tools/exr_write.py corpus). Without OpenEXR's library every input is an Error.
#include "fuzz_format_loader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return satlab::fuzz::load_both(data, size, "exr");
}
