// Fuzz target: the EXIF orientation parser and the PNG chunk walker (eXIf, iCCP inflated with a cap) on
// arbitrary bytes. Both must return without reading outside the input.
#include <cstdint>
#include <vector>

#include "app/io/decoded.hpp"
#include "app/io/exif.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // An exact-size copy, so that ASan sees any read past the end.
  const std::vector<uint8_t> b(data, data + size);
  const int o = satlab::io::exif_orientation(b.data(), b.size());
  if (o < 0 || o > 8) __builtin_trap();
  int po = 0;
  std::vector<uint8_t> icc;
  satlab::io::png_metadata(b, &po, &icc);
  if (po < 0 || po > 8 || icc.size() > (size_t(1) << 24)) __builtin_trap();
  return 0;
}
