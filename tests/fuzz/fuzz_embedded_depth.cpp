// Fuzz target: the embedded-depth parser (io::parse_jpeg_depth: JPEG marker walk, standard and extended
// XMP, the XMP reader, GDepth base64, the Dynamic Depth container). The first byte picks the input's
// shape: even, a whole file; odd, two bytes n (big-endian, at most 65000), an XMP packet of n bytes that
// the target wraps in a JPEG's APP1 segment (so the XML and the GDepth / Dynamic Depth logic are reached
// without the fuzzer having to keep segment lengths right), and the rest appended after the EOI as
// container items. The depth image it finds is decoded by io::load_depth, which fuzz_depth_loader covers.
#include <cstdint>
#include <vector>

#include "app/io/embedded_depth.hpp"
#include "core/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::vector<uint8_t> file;
  if (data[0] & 1) {
    static const char sig[] = "http://ns.adobe.com/xap/1.0/";
    if (size < 3) return 0;
    size_t xmp = size_t(data[1]) << 8 | data[2];
    if (xmp > 65000) xmp = 65000;
    if (xmp > size - 3) xmp = size - 3;
    const size_t len = 2 + sizeof(sig) + xmp;
    file = {0xFF, 0xD8, 0xFF, 0xE1, uint8_t(len >> 8), uint8_t(len & 255)};
    file.insert(file.end(), sig, sig + sizeof(sig));
    file.insert(file.end(), data + 3, data + 3 + xmp);
    file.insert(file.end(), {0xFF, 0xDA, 0x00, 0x02, 0x00, 0xFF, 0xD9});
    file.insert(file.end(), data + 3 + xmp, data + size);
  } else {
    file.assign(data + 1, data + size);
  }
  try {
    const satlab::io::JpegDepthPayload p = satlab::io::parse_jpeg_depth(file.data(), file.size());
    if (p.found() && p.image.size() > file.size()) __builtin_trap();  // the payload comes from the file
    if (p.has_near && !(p.near_depth > 0 && p.far_depth > p.near_depth)) __builtin_trap();
  } catch (const satlab::Error&) {
  }
  return 0;
}
