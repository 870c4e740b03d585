#include "app/io/reduced_read.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "app/io/icc.hpp"
#include "core/error.hpp"

namespace satlab::io {
namespace {

class SrgbReader : public ImageReader {
 public:
  explicit SrgbReader(std::unique_ptr<ImageReader> inner) : inner_(std::move(inner)) {
    header_ = inner_->header();
    if (!header_.icc.empty()) icc_ = std::make_unique<SrgbConverter>(header_.icc);
  }
  void read_rows(uint32_t y0, uint32_t y1, uint8_t* rgba8, size_t stride, uint16_t* rgba16,
                 size_t stride16) override {
    inner_->read_rows(y0, y1, rgba8, stride, rgba16, stride16);
    if (icc_)
      for (uint32_t y = y0; y < y1; ++y) icc_->run(rgba8 + size_t(y - y0) * stride, header_.width);
    notes_ = inner_->notes();
    if (icc_)
      notes_.push_back(icc_->why_not().empty() ? "ICC profile converted to sRGB"
                                               : icc_->why_not() + ": colours are shown as if sRGB");
  }

 private:
  std::unique_ptr<ImageReader> inner_;
  std::unique_ptr<SrgbConverter> icc_;
};

}  // namespace

std::unique_ptr<ImageReader> open_srgb_reader(const std::string& path) {
  return std::make_unique<SrgbReader>(open_image_reader(path));
}

uint32_t reduction_factor(uint32_t width, uint32_t height, uint32_t max_side) {
  max_side = std::max<uint32_t>(max_side, 1);
  uint64_t f = 1;
  while ((width + f - 1) / f > max_side || (height + f - 1) / f > max_side) f *= 2;
  return uint32_t(f);
}

ImageRGBA8 read_reduced(ImageReader& reader, const PixelRect& region, uint32_t factor, uint32_t band_rows) {
  const StreamHeader& hd = reader.header();
  if (factor == 0 || region.empty() || region.x0 < 0 || region.y0 < 0 || uint32_t(region.x1) > hd.width ||
      uint32_t(region.y1) > hd.height)
    throw Error("read_reduced: the region " + std::to_string(region.x0) + "," + std::to_string(region.y0) +
                "-" + std::to_string(region.x1) + "," + std::to_string(region.y1) + " (factor " +
                std::to_string(factor) + ") is not within the image of " + std::to_string(hd.width) + "x" +
                std::to_string(hd.height));
  const uint32_t rw = uint32_t(region.width()), rh = uint32_t(region.height());
  const uint32_t ow = (rw + factor - 1) / factor, oh = (rh + factor - 1) / factor;
  ImageRGBA8 out{int(ow), int(oh)};
  // A band is a whole number of block rows, so that no block row spans two bands.
  const uint32_t band = std::max<uint32_t>(1, band_rows / factor) * factor;
  const size_t stride = size_t(hd.width) * 4;  // readers give whole rows
  std::vector<uint8_t> rows(stride * std::min(band, rh));
  std::vector<uint64_t> sums(size_t(ow) * 4);
  for (uint32_t by = 0; by < rh; by += band) {
    const uint32_t n = std::min(band, rh - by);
    reader.read_rows(uint32_t(region.y0) + by, uint32_t(region.y0) + by + n, rows.data(), stride);
    for (uint32_t oy = by / factor; oy * factor < by + n; ++oy) {
      const uint32_t r0 = oy * factor - by, r1 = std::min(n, r0 + factor);
      std::fill(sums.begin(), sums.end(), 0);
      for (uint32_t r = r0; r < r1; ++r) {
        const uint8_t* px = rows.data() + size_t(r) * stride + size_t(region.x0) * 4;
        for (uint32_t x = 0; x < rw; ++x)
          for (int c = 0; c < 4; ++c)
            sums[size_t(x / factor) * 4 + size_t(c)] += px[size_t(x) * 4 + size_t(c)];
      }
      for (uint32_t ox = 0; ox < ow; ++ox) {
        const uint64_t count = uint64_t(std::min(rw, (ox + 1) * factor) - ox * factor) * (r1 - r0);
        for (int c = 0; c < 4; ++c)  // the mean, rounded half up, in integers
          out.px(int(ox), int(oy))[c] = uint8_t((2 * sums[size_t(ox) * 4 + size_t(c)] + count) / (2 * count));
      }
    }
  }
  return out;
}

}  // namespace satlab::io
