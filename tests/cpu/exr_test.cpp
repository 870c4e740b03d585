// OpenEXR (app/io/exr.hpp) on the files tools/exr_write.py writes by hand (tests/fuzz/corpus/exr): colour
// in linear light encoded to sRGB, the Z channel read as stored (inf and NaN filled by load_depth), half
// floats, a data window off the origin, tiles, a grey Y file, a channel named for depth, a Z-only file
// refused as an image, a cut file refused with one line. Skips where OpenEXR's library is not installed.
#include "app/io/exr.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "app/io/image_io.hpp"
#include "core/error.hpp"

namespace satlab::io {
namespace {

const std::string kDir = std::string(SATLAB_SOURCE_DIR) + "/tests/fuzz/corpus/exr/";

#define NEED_EXR()                                                   \
  do {                                                               \
    std::string why;                                                 \
    if (!exr_available(&why)) GTEST_SKIP() << "no OpenEXR: " << why; \
  } while (0)

uint8_t srgb8(double v) {
  v = std::clamp(v, 0.0, 1.0);
  return uint8_t(std::lround(255 * (v <= 0.0031308 ? 12.92 * v : 1.055 * std::pow(v, 1 / 2.4) - 0.055)));
}

TEST(Exr, ColourIsLinearLightEncodedToSrgb) {
  NEED_EXR();
  for (const char* f : {"rgbz.exr", "rgbz_half_window.exr", "rgba_tiled.exr"}) {
    LoadInfo info;
    const ImageRGBA8 img = load_image(kDir + f, &info);
    ASSERT_EQ(img.width, 7) << f;
    ASSERT_EQ(img.height, 5) << f;
    EXPECT_EQ(info.format, "OpenEXR");
    for (int y = 0; y < 5; ++y)
      for (int x = 0; x < 7; ++x) {
        const uint8_t* p = img.px(x, y);
        // Half floats round x / 6 and y / 4 to 11 bits: within one 8-bit code.
        EXPECT_NEAR(p[0], srgb8(x / 6.0), 1) << f << " " << x << "," << y;
        EXPECT_NEAR(p[1], srgb8(y / 4.0), 1) << f << " " << x << "," << y;
        EXPECT_EQ(p[2], 255) << f;  // 2.0: clipped
        EXPECT_EQ(p[3], std::string(f) == "rgba_tiled.exr" ? 128 : 255) << f;
      }
  }
  const ImageRGBA8 grey = load_image(kDir + "y_grey.exr");
  EXPECT_EQ(grey.px(3, 3)[0], srgb8(1.0));
  EXPECT_EQ(grey.px(3, 3)[0], grey.px(3, 3)[2]);
  EXPECT_EQ(grey.px(0, 0)[1], 0);
}

TEST(Exr, DepthIsTheZChannelAsStored) {
  NEED_EXR();
  for (const char* f : {"rgbz.exr", "rgbz_half_window.exr"}) {
    LoadInfo image, info;
    const ImageF d = load_depth(kDir + f, image, &info);
    EXPECT_EQ(info.format, "OpenEXR (Z)") << f;
    ASSERT_EQ(d.width, 7);
    for (int y = 0; y < 5; ++y)
      for (int x = 0; x < 7; ++x)
        EXPECT_EQ(d.at(x, y), float(1 + x + 10 * y)) << f;  // exact in half too (< 2048)
  }
  const ImageF z = load_depth(kDir + "z_only.exr");  // inf and NaN filled from their neighbours
  for (float v : z.data) EXPECT_TRUE(std::isfinite(v));
  EXPECT_EQ(z.at(0, 0), 1.f);
  set_exr_depth_channel("R");
  EXPECT_NEAR(load_depth(kDir + "rgbz.exr").at(6, 0), 1.f, 1e-6);
  set_exr_depth_channel("depth");
  try {
    load_depth(kDir + "rgbz.exr");
    ADD_FAILURE() << "a missing channel was read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no channel named 'depth' (it has B, G, R, Z)"), std::string::npos)
        << e.what();
  }
  set_exr_depth_channel("");
}

TEST(Exr, BadFilesAreOneLine) {
  NEED_EXR();
  for (const char* f : {"cut.exr", "z_only.exr"}) {
    try {
      load_image(kDir + f);
      ADD_FAILURE() << f << " was read as an image";
    } catch (const Error& e) {
      const std::string m = e.what();
      EXPECT_EQ(m.find('\n'), std::string::npos) << m;
      EXPECT_NE(m.find(f), std::string::npos) << m;
    }
  }
  EXPECT_THROW(load_depth(kDir + "cut.exr"), Error);
  EXPECT_EQ(exr_channels(kDir + "rgba_tiled.exr"), (std::vector<std::string>{"A", "B", "G", "R"}));
}

// save_image's OpenEXR: RGBA half of the 8-bit result in linear light, read back to the same 8-bit pixels
// (every code of every channel, alpha included, on an odd size that spans several ZIP chunks of 16 lines),
// with the channels a compositor expects; a folder that cannot be written to leaves nothing.
TEST(Exr, SavedResultsReadBackToTheSame8BitPixels) {
  NEED_EXR();
  const int w = 257, h = 37;
  ImageRGBA8 img(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int k = 0; k < 4; ++k) img.px(x, y)[k] = uint8_t((x * (k + 1) + y * 7 * k) % 256);
  const std::string path = ::testing::TempDir() + "satlab_exr_saved.exr";
  save_image(path, img);
  LoadInfo info;
  const ImageRGBA8 back = load_image(path, &info);
  EXPECT_EQ(info.format, "OpenEXR");
  ASSERT_EQ(back.width, w);
  ASSERT_EQ(back.height, h);
  for (size_t i = 0; i < img.data.size(); ++i)
    ASSERT_EQ(int(back.data[i]), int(img.data[i])) << "sample " << i;
  EXPECT_EQ(exr_channels(path), (std::vector<std::string>{"A", "B", "G", "R"}));
  std::remove(path.c_str());
  EXPECT_THROW(save_image("/nonexistent-dir/out.exr", img), Error);
}

}  // namespace
}  // namespace satlab::io
