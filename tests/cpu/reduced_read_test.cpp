// Reduced reads (app/io/reduced_read.hpp): a region of a PNG, TIFF or JPEG file read by rows and averaged
// in blocks equals the block means of the whole-image loader's pixels, at awkward sizes and bands.
#include "app/io/reduced_read.hpp"

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "app/io/icc.hpp"
#include "app/io/image_io.hpp"
#include "app/io/stream_io.hpp"
#include "core/error.hpp"
#include "test_util.hpp"

using namespace satlab;

namespace {

// Block means of `region` of `img` from its top-left corner, rounded half up: the definition, pixel by pixel.
ImageRGBA8 block_means(const ImageRGBA8& img, const PixelRect& region, int f) {
  const int ow = (region.width() + f - 1) / f, oh = (region.height() + f - 1) / f;
  ImageRGBA8 out(ow, oh);
  for (int oy = 0; oy < oh; ++oy)
    for (int ox = 0; ox < ow; ++ox)
      for (int c = 0; c < 4; ++c) {
        long sum = 0, n = 0;
        for (int y = region.y0 + oy * f; y < std::min(region.y1, region.y0 + (oy + 1) * f); ++y)
          for (int x = region.x0 + ox * f; x < std::min(region.x1, region.x0 + (ox + 1) * f); ++x)
            sum += img.px(x, y)[c], ++n;
        out.px(ox, oy)[c] = uint8_t(std::lround(double(sum) / double(n)));
      }
  return out;
}

void expect_same(const ImageRGBA8& a, const ImageRGBA8& b) {
  ASSERT_EQ(a.width, b.width);
  ASSERT_EQ(a.height, b.height);
  int differing = 0;
  for (size_t i = 0; i < a.data.size(); ++i) differing += a.data[i] != b.data[i];
  EXPECT_EQ(differing, 0);
}

}  // namespace

TEST(ReducedRead, FactorIsTheSmallestPowerOf2ThatFitsBothSides) {
  EXPECT_EQ(io::reduction_factor(100, 100, 100), 1u);
  EXPECT_EQ(io::reduction_factor(101, 1, 100), 2u);
  EXPECT_EQ(io::reduction_factor(1, 401, 100), 8u);  // 401 / 4 rounds up to 101
  EXPECT_EQ(io::reduction_factor(40000, 30000, 4096), 16u);
  EXPECT_EQ(io::reduction_factor(7, 7, 0), 8u);  // a side of at least 1
}

TEST(ReducedRead, RegionsInBlocksEqualTheBlockMeansOfTheWholeImageLoaderInPngTiffAndJpeg) {
  test::SeededRng rng;
  const ImageRGBA8 img = test::random_image(37, 29, rng());
  const std::string dir = ::testing::TempDir() + "satlab_reduced_" + std::to_string(::getpid());
  for (const char* ext : {"png", "tif", "jpg"}) {
    SCOPED_TRACE(ext);
    const std::string path = dir + "." + ext;
    io::save_image(path, img);
    const ImageRGBA8 whole = io::load_image(path);
    struct Case {
      PixelRect region;
      uint32_t factor, band;
    };
    for (const Case& c :
         {Case{{0, 0, 37, 29}, 1, 64}, Case{{0, 0, 37, 29}, 4, 64}, Case{{0, 0, 37, 29}, 8, 5},
          Case{{5, 7, 30, 20}, 3, 4}, Case{{36, 28, 37, 29}, 2, 1}, Case{{0, 3, 37, 4}, 16, 64}}) {
      SCOPED_TRACE(std::to_string(c.factor) + " band " + std::to_string(c.band) + " from " +
                   std::to_string(c.region.x0) + "," + std::to_string(c.region.y0));
      auto reader = io::open_image_reader(path);  // PNG and JPEG read forward: a fresh reader per region
      expect_same(io::read_reduced(*reader, c.region, c.factor, c.band),
                  block_means(whole, c.region, int(c.factor)));
    }
    std::remove(path.c_str());
  }
}

TEST(ReducedRead, ARegionOutsideTheImageOrAFactorOf0IsRefusedInOneLine) {
  test::SeededRng rng;
  const std::string path = ::testing::TempDir() + "satlab_reduced_bad_" + std::to_string(::getpid()) + ".png";
  io::save_image(path, test::random_image(9, 5, rng()));
  auto reader = io::open_image_reader(path);
  test::expect_one_line_error(
      [&](const std::string&) {
        io::read_reduced(*reader, {0, 0, 10, 5}, 1);
      },
      "read_reduced", "not within the image of 9x5");
  test::expect_one_line_error(
      [&](const std::string&) {
        io::read_reduced(*reader, {0, 0, 9, 5}, 0);
      },
      "read_reduced", "factor 0");
  std::remove(path.c_str());
}

namespace {

// `png` with an iCCP chunk holding `profile` after its IHDR (which a PNG's first 33 bytes are).
std::vector<uint8_t> with_icc(const std::vector<uint8_t>& png, const std::vector<uint8_t>& profile) {
  uLongf packed_size = compressBound(uLong(profile.size()));
  std::vector<uint8_t> packed(packed_size);
  EXPECT_EQ(compress(packed.data(), &packed_size, profile.data(), uLong(profile.size())), Z_OK);
  std::vector<uint8_t> data = {'i', 'C', 'C', 'P', 'p', '3', 0, 0};
  data.insert(data.end(), packed.begin(), packed.begin() + long(packed_size));
  const uint32_t n = uint32_t(data.size() - 4), crc = uint32_t(crc32(0, data.data(), uInt(data.size())));
  std::vector<uint8_t> chunk = {uint8_t(n >> 24), uint8_t(n >> 16), uint8_t(n >> 8), uint8_t(n)};
  chunk.insert(chunk.end(), data.begin(), data.end());
  for (int k = 3; k >= 0; --k) chunk.push_back(uint8_t(crc >> (8 * k)));
  std::vector<uint8_t> out(png.begin(), png.begin() + 33);
  out.insert(out.end(), chunk.begin(), chunk.end());
  out.insert(out.end(), png.begin() + 33, png.end());
  return out;
}

}  // namespace

TEST(ReducedRead, SrgbReaderConvertsTheIccProfileAsTheWholeImageLoaderDoes) {
  const std::vector<uint8_t> p3 = io::make_rgb_profile(true);
  if (p3.empty()) GTEST_SKIP() << "lcms2 is not installed";
  test::SeededRng rng;
  const ImageRGBA8 img = test::random_image(23, 17, rng());
  const std::string path = ::testing::TempDir() + "satlab_reduced_icc_" + std::to_string(::getpid()) + ".png";
  io::save_png(path, img);
  std::ifstream in(path, std::ios::binary);
  const std::vector<uint8_t> png((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  const std::vector<uint8_t> tagged = with_icc(png, p3);
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(tagged.data()), long(tagged.size()));
  const ImageRGBA8 whole = io::load_image(path);
  ASSERT_NE(whole.data, img.data) << "the loader did not apply the profile: the test proves nothing";
  auto reader = io::open_srgb_reader(path);
  ASSERT_EQ(reader->header().icc, p3);
  expect_same(io::read_reduced(*reader, {0, 0, 23, 17}, 1, 5), whole);
  std::remove(path.c_str());
}
