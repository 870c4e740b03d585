#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "app/io/assets.hpp"
#include "app/io/image_io.hpp"
#include "core/error.hpp"
#include "test_util.hpp"

using namespace satlab;

namespace {

std::string tmp_path(const std::string& name) {
  return ::testing::TempDir() + "satlab_io_" + std::to_string(::getpid()) + "_" + name;
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

}  // namespace

TEST(Io, PngRoundTripIsExact) {
  ImageRGBA8 img = test::random_image(37, 23, test::fresh_seed());
  const std::string p = tmp_path("rt.png");
  io::save_png(p, img);
  ImageRGBA8 back = io::load_image(p);
  EXPECT_EQ(back.width, 37);
  EXPECT_EQ(back.height, 23);
  EXPECT_EQ(back.data, img.data);
  std::remove(p.c_str());
}

TEST(Io, SixteenBitDepthRoundTripKeepsSixteenBits) {
  ImageF d(19, 11, 1);
  for (int i = 0; i < 19 * 11; ++i) d.data[size_t(i)] = float(i * 311 % 65536) / 65535.f;
  const std::string p = tmp_path("d16.png");
  io::save_png16(p, d);
  ImageF back = io::load_depth(p);
  ASSERT_EQ(back.width, 19);
  ASSERT_EQ(back.height, 11);
  for (size_t i = 0; i < d.data.size(); ++i) ASSERT_EQ(back.data[i], d.data[i]) << i;
  std::remove(p.c_str());
}

TEST(Io, PfmDepthIsReadBottomUpInEitherByteOrder) {
  for (const char* scale : {"-1.0", "1.0"}) {
    const bool little = scale[0] == '-';
    std::string bytes = std::string("Pf\n2 2\n") + scale + "\n";
    const float rows[4] = {1.f, 2.f, 3.f, 4.f};  // file order: bottom row first
    for (float v : rows) {
      uint32_t u;
      std::memcpy(&u, &v, 4);
      if (!little) u = __builtin_bswap32(u);
      bytes.append(reinterpret_cast<const char*>(&u), 4);
    }
    const std::string p = tmp_path("d.pfm");
    write_bytes(p, bytes);
    ImageF d = io::load_depth(p);
    EXPECT_EQ(d.data, (std::vector<float>{3.f, 4.f, 1.f, 2.f})) << scale;
    std::remove(p.c_str());
  }
}

// Holes and infinities in a depth file: NaN takes the nearest depth on its row (the left of two as near),
// a row without depth the nearest row's (the upper of two), an infinity the map's finite extreme of its
// sign; a note says how many. A map without depth becomes flat. Nothing is refused.
TEST(Io, DepthHolesAndInfinitiesAreFilledWithANote) {
  const float nan = std::nanf(""), inf = std::numeric_limits<float>::infinity();
  ImageF d(5, 4, 1);
  d.data = {nan, 2.f, nan, nan,  5.f,   // row 0: the left edge from 2; the middle pair from 2 and 5
            nan, nan, nan, nan,  nan,   // row 1: no depth, between rows 0 and 2 (the upper wins the tie)
            1.f, inf, 3.f, -inf, nan,   // row 2: inf is the largest finite (5), -inf the smallest (1)
            nan, nan, nan, nan,  nan};  // row 3: from row 2
  std::vector<std::string> notes;
  EXPECT_EQ(io::fill_depth_holes(d, &notes), 16);
  const std::vector<float> want = {2.f, 2.f, 2.f, 5.f, 5.f, 2.f, 2.f, 2.f, 5.f, 5.f,
                                   1.f, 5.f, 3.f, 1.f, 1.f, 1.f, 5.f, 3.f, 1.f, 1.f};
  EXPECT_EQ(d.data, want);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("14 pixels without depth (NaN)"), std::string::npos) << notes[0];
  EXPECT_NE(notes[0].find("2 infinite values"), std::string::npos) << notes[0];
  ImageF none(3, 2, 1);
  for (auto& v : none.data) v = nan;
  notes.clear();
  EXPECT_EQ(io::fill_depth_holes(none, &notes), 6);
  EXPECT_EQ(none.data, std::vector<float>(6, 0.f));
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("flat"), std::string::npos) << notes[0];
  ImageF clean(2, 2, 1);
  clean.data = {0.f, 1.f, 2.f, 3.f};
  notes.clear();
  EXPECT_EQ(io::fill_depth_holes(clean, &notes), 0);
  EXPECT_EQ(clean.data, (std::vector<float>{0.f, 1.f, 2.f, 3.f}));
  EXPECT_TRUE(notes.empty());
}

// The same through a PFM file, the format that carries NaN most often.
TEST(Io, PfmDepthWithNanLoadsFilled) {
  std::string bytes = "Pf\n3 1\n-1.0\n";
  for (float v : {4.f, std::nanf(""), 8.f}) bytes.append(reinterpret_cast<const char*>(&v), 4);
  const std::string p = tmp_path("holes.pfm");
  write_bytes(p, bytes);
  io::LoadInfo image, info;
  image.stored_width = 3, image.stored_height = 1;
  const ImageF d = io::load_depth(p, image, &info);
  EXPECT_EQ(d.data, (std::vector<float>{4.f, 4.f, 8.f}));
  ASSERT_FALSE(info.notes.empty());
  EXPECT_NE(info.notes.back().find("1 pixel without depth"), std::string::npos) << info.notes.back();
  std::remove(p.c_str());
}

// A depth map given its image's orientation (it has the image's stored size) is filled along its rows as
// displayed: with orientation 6 a stored row is a displayed column.
TEST(Io, DepthHolesAreFilledAlongTheDisplayedRows) {
  const auto write = [](const std::string& path, float hole) {
    std::string bytes = "Pf\n3 2\n-1.0\n";  // stored rows, bottom first: (4 5 6), (1 hole 3)
    for (float v : {4.f, 5.f, 6.f, 1.f, hole, 3.f}) bytes.append(reinterpret_cast<const char*>(&v), 4);
    write_bytes(path, bytes);
  };
  const std::string holes = tmp_path("turned_holes.pfm"), marked = tmp_path("turned_marked.pfm");
  write(holes, std::nanf(""));
  write(marked, 99.f);
  io::LoadInfo image;
  image.orientation = 6, image.stored_width = 3, image.stored_height = 2;
  const ImageF d = io::load_depth(holes, image, nullptr), m = io::load_depth(marked, image, nullptr);
  ASSERT_EQ(d.width, 2);
  ASSERT_EQ(d.height, 3);
  const size_t at = size_t(std::find(m.data.begin(), m.data.end(), 99.f) - m.data.begin());
  ASSERT_LT(at, m.data.size());
  EXPECT_EQ(d.data[at], m.data[at ^ 1u]) << "the hole took a value from another displayed row";
  for (size_t i = 0; i < d.data.size(); ++i) {
    if (i != at) {
      EXPECT_EQ(d.data[i], m.data[i]) << i;
    }
  }
  std::remove(holes.c_str());
  std::remove(marked.c_str());
}

TEST(Io, BadFilesGiveOneClearLine) {
  const std::string text = tmp_path("text.png"), empty = tmp_path("empty.png"), trunc = tmp_path("trunc.png"),
                    huge = tmp_path("huge.png"), missing = tmp_path("missing.png");
  write_bytes(text, "this is not an image at all");
  write_bytes(empty, "");
  // A valid PNG cut short after its header.
  ImageRGBA8 img = test::random_image(64, 64, 7);
  io::save_png(trunc, img);
  std::ifstream in(trunc, std::ios::binary);
  std::string full((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  write_bytes(trunc, full.substr(0, full.size() / 3));
  // A PNG header declaring 100000 x 100000 pixels (CRC left as is: the size check comes first).
  std::string hdr = "\x89PNG\r\n\x1a\n";
  hdr += std::string("\0\0\0\x0dIHDR", 8);
  hdr += std::string("\x00\x01\x86\xa0\x00\x01\x86\xa0\x08\x06\x00\x00\x00", 13);
  hdr += std::string("\0\0\0\0", 4);
  write_bytes(huge, hdr);

  auto image = [](const std::string& p) { io::load_image(p); };
  auto depth = [](const std::string& p) { io::load_depth(p); };
  test::expect_one_line_error(image, text, "not a readable image");
  test::expect_one_line_error(image, empty, "empty");
  test::expect_one_line_error(image, trunc);
  test::expect_one_line_error(image, huge);
  test::expect_one_line_error(image, missing, "No such file");
  test::expect_one_line_error(depth, text, "not a readable image");
  test::expect_one_line_error(depth, trunc);
  test::expect_one_line_error(depth, empty, "empty");
  test::expect_one_line_error(depth, huge, "100000x100000");
  test::expect_one_line_error(depth, missing, "No such file");
  // The oversized header is refused by size, before any decoding.
  try {
    io::load_image(huge);
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_TRUE(msg.find("100000x100000") != std::string::npos || msg.find("too large") != std::string::npos)
        << "message: " << msg;
  }
  for (const auto& p : {text, empty, trunc, huge}) std::remove(p.c_str());
}

TEST(Io, FailedSaveLeavesNoFile) {
  ImageRGBA8 img = test::random_image(4, 4, 1);
  EXPECT_THROW(io::save_png("/nonexistent-dir/x.png", img), Error);
  EXPECT_THROW(io::save_png(tmp_path("empty_out.png"), ImageRGBA8()), Error);
}

TEST(Io, DepthResampleKeepsConstantsAndCorners) {
  ImageF d(4, 3, 1);
  for (auto& v : d.data) v = 0.25f;
  ImageF r = io::resample_depth(d, 17, 9);
  EXPECT_EQ(r.width, 17);
  for (float v : r.data) EXPECT_FLOAT_EQ(v, 0.25f);
  ImageF ramp(2, 1, 1);
  ramp.data = {0.f, 1.f};
  ImageF up = io::resample_depth(ramp, 8, 1);
  EXPECT_EQ(up.data.front(), 0.f);
  EXPECT_EQ(up.data.back(), 1.f);
}

// Each channel as resample_depth resamples a depth map, rounded: a 2-pixel ramp doubled gives the centres'
// quarter steps, and the size unchanged is the identity.
TEST(Io, ImageResampleIsTheDepthsPerChannelRounded) {
  ImageRGBA8 ramp(2, 1);
  const uint8_t px[8] = {0, 255, 100, 7, 200, 1, 100, 9};
  std::copy_n(px, 8, ramp.data.data());
  const ImageRGBA8 up = io::resample_image(ramp, 4, 1);
  ASSERT_EQ(up.width, 4);
  for (int c = 0; c < 4; ++c) {
    ImageF d(2, 1, 1);
    d.data = {float(px[c]), float(px[4 + c])};
    const ImageF r = io::resample_depth(d, 4, 1);
    for (int x = 0; x < 4; ++x) EXPECT_EQ(up.px(x, 0)[c], uint8_t(std::lround(r.at(x, 0)))) << c << " " << x;
  }
  EXPECT_EQ(up.px(1, 0)[0], 50);  // a quarter of the way from 0 to 200
  EXPECT_EQ(up.px(0, 0)[1], 255);
  const ImageRGBA8 img = test::random_image(5, 3, 7);
  EXPECT_EQ(io::resample_image(img, 5, 3).data, img.data);
  EXPECT_THROW(io::resample_image(ImageRGBA8(), 4, 4), Error);
}

TEST(Io, BundledSceneIsFoundAndHasAMatchingDepthMap) {
  ImageRGBA8 img = io::load_image(io::default_scene_image());
  ImageF depth = io::load_depth(io::default_scene_depth());
  EXPECT_EQ(img.width, depth.width);
  EXPECT_EQ(img.height, depth.height);
  float lo = 1, hi = 0;
  for (float v : depth.data) lo = std::min(lo, v), hi = std::max(hi, v);
  EXPECT_EQ(lo, 0.f);
  EXPECT_EQ(hi, 1.f);
}

TEST(Io, SixteenBitPngImageIsRoundedToEightBits) {
  ImageF g(5, 1, 1);
  g.data = {0.f, 128.f / 65535.f, 129.f / 65535.f, 0.5f, 1.f};  // 16-bit values 0, 128, 129, 32768, 65535
  const std::string p = tmp_path("g16.png");
  io::save_png16(p, g);
  ImageRGBA8 img = io::load_image(p);
  ASSERT_EQ(img.width, 5);
  const uint8_t expect[5] = {0, 0, 1, 128, 255};  // round(v * 255 / 65535); truncation gives 0, 0, 0, 128
  for (int x = 0; x < 5; ++x) {
    EXPECT_EQ(img.px(x, 0)[0], expect[x]) << x;
    EXPECT_EQ(img.px(x, 0)[2], expect[x]) << x;
    EXPECT_EQ(img.px(x, 0)[3], 255) << x;
  }
  std::remove(p.c_str());
}

TEST(Io, HdrDepthKeepsTheFirstChannel) {
  // Radiance RGBE, 2x1, uncompressed: (1.5, 0.5, 0) and (0.5, 0, 0).
  std::string bytes = "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 1 +X 2\n";
  bytes += std::string("\xc0\x40\x00\x81", 4);
  bytes += std::string("\x80\x00\x00\x80", 4);
  const std::string p = tmp_path("d.hdr");
  write_bytes(p, bytes);
  ImageF d = io::load_depth(p);
  ASSERT_EQ(d.width, 2);
  ASSERT_EQ(d.height, 1);
  EXPECT_EQ(d.data, (std::vector<float>{1.5f, 0.5f}));  // the average of the channels would be 0.667
  ImageRGBA8 img = io::load_image(p);                   // HDR colour: clamped and gamma encoded
  EXPECT_EQ(img.px(0, 0)[0], 255);
  EXPECT_EQ(img.px(0, 0)[2], 0);
  EXPECT_EQ(img.px(1, 0)[0], 186);  // 255 * 0.5^(1/2.2)
  std::remove(p.c_str());
}

TEST(Io, ColourPfmGivesItsFirstChannelAndTruncatedPfmIsRefused) {
  std::string bytes = "PF\n1 1\n-1.0\n";
  const float rgb[3] = {7.f, 8.f, 9.f};
  bytes.append(reinterpret_cast<const char*>(rgb), sizeof(rgb));
  const std::string p = tmp_path("c.pfm"), t = tmp_path("t.pfm");
  write_bytes(p, bytes);
  EXPECT_EQ(io::load_depth(p).data, (std::vector<float>{7.f}));
  write_bytes(t, "Pf\n16384 16384\n-1.0\n" + std::string(12, '\0'));  // 1 GiB declared, 12 bytes there
  test::expect_one_line_error([](const std::string& f) { io::load_depth(f); }, t, "truncated");
  std::remove(p.c_str());
  std::remove(t.c_str());
}

TEST(Io, AssetsFolderFromTheEnvironmentComesFirst) {
  const std::string dir = tmp_path("assets");
  ASSERT_EQ(::system(("mkdir -p '" + dir + "'").c_str()), 0);
  io::save_png(dir + "/default.png", test::random_image(4, 4, 1));
  ::setenv("SATLAB_ASSETS", dir.c_str(), 1);
  EXPECT_EQ(io::assets_dir(), dir);
  EXPECT_EQ(io::default_scene_depth(), dir + "/default_depth.png");
  ::setenv("SATLAB_ASSETS", (dir + "/nothing-here").c_str(), 1);  // not a scene folder: the next place
  EXPECT_NE(io::assets_dir(), dir + "/nothing-here");
  ::unsetenv("SATLAB_ASSETS");
  std::remove((dir + "/default.png").c_str());
  ::rmdir(dir.c_str());
}

TEST(Io, JpegGoesThroughLibjpegWithClearErrors) {
  const std::string dir = SATLAB_SOURCE_DIR "/tests/fuzz/corpus/image/";
  ImageRGBA8 img = io::load_image(dir + "small.jpg");
  EXPECT_EQ(img.width, 5);
  EXPECT_EQ(img.height, 6);
  for (size_t i = 3; i < img.data.size(); i += 4) ASSERT_EQ(img.data[i], 255);
  ImageF grey = io::load_depth(dir + "small.jpg");
  EXPECT_EQ(grey.width, 5);
  // Inputs that made stb_image write past its Huffman tables: now one clear error each.
  for (const char* bad : {"jpeg-dht-overflow-regression", "jpeg-dht-overflow-in-header-regression"}) {
    try {
      io::load_image(dir + bad);
      ADD_FAILURE() << bad << " loaded";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    }
  }
}
