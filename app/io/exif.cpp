#include "app/io/exif.hpp"

#include <cstring>
#include <vector>

namespace satlab::io {
namespace {

struct Reader {
  const uint8_t* p;
  size_t n;
  bool big;
  bool u16(size_t at, uint32_t* v) const {
    if (at > n || n - at < 2) return false;
    *v = big ? uint32_t(p[at]) << 8 | p[at + 1] : uint32_t(p[at + 1]) << 8 | p[at];
    return true;
  }
  bool u32(size_t at, uint32_t* v) const {
    if (at > n || n - at < 4) return false;
    *v = big ? uint32_t(p[at]) << 24 | uint32_t(p[at + 1]) << 16 | uint32_t(p[at + 2]) << 8 | p[at + 3]
             : uint32_t(p[at + 3]) << 24 | uint32_t(p[at + 2]) << 16 | uint32_t(p[at + 1]) << 8 | p[at];
    return true;
  }
};

template <typename Img, typename T>
Img oriented(const Img& in, int o, int channels) {
  if (o < 2 || o > 8 || in.empty()) return in;
  const int w = in.width, h = in.height;
  const int ow = orientation_swaps_axes(o) ? h : w, oh = orientation_swaps_axes(o) ? w : h;
  Img out = in;  // same element count; only the layout changes
  out.width = ow;
  out.height = oh;
  const T* src = in.data.data();
  T* dst = out.data.data();
  for (int y = 0; y < oh; ++y)
    for (int x = 0; x < ow; ++x) {
      int sx = 0, sy = 0;
      orientation_source(o, w, h, x, y, &sx, &sy);
      std::memcpy(dst + (size_t(y) * size_t(ow) + size_t(x)) * size_t(channels),
                  src + (size_t(sy) * size_t(w) + size_t(sx)) * size_t(channels), sizeof(T) * size_t(channels));
    }
  return out;
}

}  // namespace

int exif_orientation(const uint8_t* data, size_t size) {
  if (!data) return 0;
  if (size >= 6 && std::memcmp(data, "Exif\0\0", 6) == 0) data += 6, size -= 6;
  if (size < 8) return 0;
  Reader r{data, size, false};
  if (data[0] == 'M' && data[1] == 'M') r.big = true;
  else if (!(data[0] == 'I' && data[1] == 'I')) return 0;
  uint32_t magic = 0, ifd = 0, count = 0;
  if (!r.u16(2, &magic) || magic != 42 || !r.u32(4, &ifd) || !r.u16(ifd, &count)) return 0;
  for (uint32_t i = 0; i < count; ++i) {
    const size_t e = size_t(ifd) + 2 + size_t(i) * 12;
    uint32_t tag = 0, type = 0, n = 0, value = 0;
    if (!r.u16(e, &tag) || !r.u16(e + 2, &type) || !r.u32(e + 4, &n) || !r.u16(e + 8, &value)) return 0;
    if (tag != 0x0112) continue;
    if (type != 3 || n != 1 || value < 1 || value > 8) return 0;
    return int(value);
  }
  return 0;
}

std::vector<uint8_t> make_exif_orientation(int orientation, bool prefix) {
  std::vector<uint8_t> b;
  if (prefix) b = {'E', 'x', 'i', 'f', 0, 0};
  const uint8_t tiff[] = {'M', 'M', 0, 42, 0, 0, 0, 8,        // header, IFD0 at 8
                          0, 1,                                // one entry
                          0x01, 0x12, 0, 3, 0, 0, 0, 1,        // Orientation, SHORT, count 1
                          0, uint8_t(orientation), 0, 0,       // value
                          0, 0, 0, 0};                         // no next IFD
  b.insert(b.end(), tiff, tiff + sizeof(tiff));
  return b;
}

ImageRGBA8 apply_orientation(const ImageRGBA8& stored, int o) { return oriented<ImageRGBA8, uint8_t>(stored, o, 4); }
ImageF apply_orientation(const ImageF& stored, int o) { return oriented<ImageF, float>(stored, o, stored.channels); }

}  // namespace satlab::io
