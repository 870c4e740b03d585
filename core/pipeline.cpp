#include "core/pipeline.hpp"

#include <cstring>

namespace satlab {

void Pipeline::read_result(const PixelRect& region, uint8_t* dst, size_t stride) {
  const ImageRGBA8& r = result();
  if (region.empty() || region.x0 < 0 || region.y0 < 0 || region.x1 > r.width || region.y1 > r.height)
    throw Error("read_result: region " + std::to_string(region.width()) + "x" + std::to_string(region.height()) +
                " at (" + std::to_string(region.x0) + ", " + std::to_string(region.y0) +
                ") is not within the result of " + std::to_string(r.width) + "x" + std::to_string(r.height));
  for (int y = region.y0; y < region.y1; ++y)
    std::memcpy(dst + size_t(y - region.y0) * stride, r.px(region.x0, y), size_t(region.width()) * 4);
}

}  // namespace satlab
