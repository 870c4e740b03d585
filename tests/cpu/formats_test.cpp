// Image formats beyond stb's: EXIF orientation (all 8 values) in JPEG, PNG, WebP and TIFF, HEIF's own
// transformations, WebP/TIFF round trips (8 and 16 bit), CMYK and YCCK JPEG, ICC conversion, corrupt files.
// Every test file is written at test time by the project's own writers (jpeg.cpp, webp.cpp, tiff.cpp) or
// libheif's encoder, tiny.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>

#include "app/io/exif.hpp"
#include "app/io/format_guard.hpp"
#include "app/io/heif.hpp"
#include "app/io/icc.hpp"
#include "app/io/image_io.hpp"
#include "app/io/jpeg.hpp"
#include "app/io/tiff.hpp"
#include "app/io/webp.hpp"
#include "core/error.hpp"
#include "test_util.hpp"

using namespace satlab;

namespace {

std::string tmp_path(const std::string& name) {
  return ::testing::TempDir() + "satlab_fmt_" + std::to_string(::getpid()) + "_" + name;
}

std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}
void write_bytes(const std::string& path, const std::vector<uint8_t>& b) {
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}

// 48 x 32, six 16 x 16 blocks of distinct colours (16-pixel blocks survive JPEG's 2x2 chroma subsampling):
// no two orientations of it are alike.
ImageRGBA8 upright() {
  static const uint8_t colours[6][3] = {{230, 30, 30}, {30, 200, 30}, {30, 30, 230},
                                        {230, 230, 30}, {30, 220, 220}, {220, 30, 220}};
  ImageRGBA8 img(48, 32);
  for (int y = 0; y < 32; ++y)
    for (int x = 0; x < 48; ++x) {
      const uint8_t* c = colours[(y / 16) * 3 + x / 16];
      uint8_t* p = img.px(x, y);
      p[0] = c[0], p[1] = c[1], p[2] = c[2], p[3] = 255;
    }
  return img;
}

// The centre 8 x 8 of every 16 x 16 block within `tol` (lossy codecs blur the edges).
void expect_blocks_near(const ImageRGBA8& got, const ImageRGBA8& want, int tol, const std::string& what) {
  ASSERT_EQ(got.width, want.width) << what;
  ASSERT_EQ(got.height, want.height) << what;
  int worst = 0;
  for (int by = 0; by < want.height / 16; ++by)
    for (int bx = 0; bx < want.width / 16; ++bx)
      for (int y = by * 16 + 4; y < by * 16 + 12; ++y)
        for (int x = bx * 16 + 4; x < bx * 16 + 12; ++x)
          for (int c = 0; c < 3; ++c) worst = std::max(worst, std::abs(int(got.px(x, y)[c]) - int(want.px(x, y)[c])));
  EXPECT_LE(worst, tol) << what;
}

uint32_t crc32_of(const uint8_t* p, size_t n) {
  uint32_t c = 0xffffffffu;
  for (size_t i = 0; i < n; ++i) {
    c ^= p[i];
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
  }
  return ~c;
}

// `png` with a chunk inserted right after IHDR (`early`) or before IEND (the last 12 bytes).
std::vector<uint8_t> with_png_chunk(std::vector<uint8_t> png, const char* type, const std::vector<uint8_t>& data,
                                    bool early = false) {
  std::vector<uint8_t> chunk;
  for (int s = 24; s >= 0; s -= 8) chunk.push_back(uint8_t(data.size() >> s));
  chunk.insert(chunk.end(), type, type + 4);
  chunk.insert(chunk.end(), data.begin(), data.end());
  const uint32_t crc = crc32_of(chunk.data() + 4, chunk.size() - 4);
  for (int s = 24; s >= 0; s -= 8) chunk.push_back(uint8_t(crc >> s));
  png.insert(early ? png.begin() + 33 : png.end() - 12, chunk.begin(), chunk.end());
  return png;
}

}  // namespace

TEST(Exif, OrientationIsReadInBothByteOrdersWithAndWithoutPrefix) {
  for (int o = 1; o <= 8; ++o)
    for (bool prefix : {false, true}) {
      std::vector<uint8_t> b = io::make_exif_orientation(o, prefix);
      EXPECT_EQ(io::exif_orientation(b.data(), b.size()), o);
      // The same block little-endian: header II, IFD offset, count, tag, type, count, value.
      const size_t t = prefix ? 6 : 0;
      const uint8_t le[] = {'I', 'I', 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, uint8_t(o), 0, 0, 0, 0, 0, 0, 0};
      std::vector<uint8_t> l(b.begin(), b.begin() + long(t));
      l.insert(l.end(), le, le + sizeof(le));
      EXPECT_EQ(io::exif_orientation(l.data(), l.size()), o);
    }
}

TEST(Exif, MalformedBlocksGiveNoOrientation) {
  const std::vector<uint8_t> b = io::make_exif_orientation(6, true);
  for (size_t n = 0; n < 6 + 20; ++n) EXPECT_EQ(io::exif_orientation(b.data(), n), 0) << "cut at " << n;
  std::vector<uint8_t> bad = b;
  bad[6 + 19] = 9;  // value out of range
  EXPECT_EQ(io::exif_orientation(bad.data(), bad.size()), 0);
  bad = b;
  bad[6 + 13] = 4;  // type LONG instead of SHORT
  EXPECT_EQ(io::exif_orientation(bad.data(), bad.size()), 0);
  bad = b;
  bad[6 + 7] = 0xF0;  // IFD offset past the end
  EXPECT_EQ(io::exif_orientation(bad.data(), bad.size()), 0);
  bad = b;
  bad[6 + 9] = 0xFF;   // 255 entries declared, one present ...
  bad[6 + 11] = 0x13;  // ... and it is not Orientation: the walk stops at the end of the block
  EXPECT_EQ(io::exif_orientation(bad.data(), bad.size()), 0);
  EXPECT_EQ(io::exif_orientation(nullptr, 100), 0);
}

TEST(Orientation, EachValueMapsAsTheExifStandardSays) {
  // A 3 x 2 image with distinct pixels, stored; the displayed image for each orientation written out.
  ImageF s(3, 2, 1);
  for (int i = 0; i < 6; ++i) s.data[size_t(i)] = float(i);  // rows: 0 1 2 / 3 4 5
  const std::vector<std::vector<float>> want = {
      {},
      {0, 1, 2, 3, 4, 5},  // 1
      {2, 1, 0, 5, 4, 3},  // 2 mirrored
      {5, 4, 3, 2, 1, 0},  // 3 turned 180
      {3, 4, 5, 0, 1, 2},  // 4 mirrored top-bottom
      {0, 3, 1, 4, 2, 5},  // 5 transposed (2 wide, 3 high)
      {3, 0, 4, 1, 5, 2},  // 6 turned 90 clockwise
      {5, 2, 4, 1, 3, 0},  // 7 transversed
      {2, 5, 1, 4, 0, 3},  // 8 turned 90 anticlockwise
  };
  for (int o = 1; o <= 8; ++o) {
    const ImageF d = io::apply_orientation(s, o);
    EXPECT_EQ(d.width, o >= 5 ? 2 : 3) << o;
    EXPECT_EQ(d.data, want[size_t(o)]) << "orientation " << o;
    EXPECT_EQ(io::apply_orientation(d, io::inverse_orientation(o)).data, s.data) << o;
  }
}

TEST(Orientation, JpegWithEachOfTheEightValuesLoadsUpright) {
  const ImageRGBA8 up = upright();
  for (int o = 1; o <= 8; ++o) {
    const ImageRGBA8 stored = io::apply_orientation(up, io::inverse_orientation(o));
    const std::string p = tmp_path("o" + std::to_string(o) + ".jpg");
    ASSERT_TRUE(io::write_jpeg(p, stored.data.data(), stored.width, stored.height, io::JpegKind::Rgb, 95,
                               io::make_exif_orientation(o, true)));
    io::LoadInfo info;
    const ImageRGBA8 got = io::load_image(p, &info);
    EXPECT_EQ(info.orientation, o);
    EXPECT_EQ(info.stored_width, stored.width);
    expect_blocks_near(got, up, 12, "JPEG orientation " + std::to_string(o));
    std::remove(p.c_str());
  }
}

TEST(Orientation, PngEXIfWebpEXIFAndTiffTagAreApplied) {
  const ImageRGBA8 up = upright();
  for (int o : {3, 6, 7, 8}) {
    const ImageRGBA8 stored = io::apply_orientation(up, io::inverse_orientation(o));
    const std::string png = tmp_path("o.png"), webp = tmp_path("o.webp"), tif = tmp_path("o.tif");
    io::save_png(png, stored);
    write_bytes(png, with_png_chunk(read_bytes(png), "eXIf", io::make_exif_orientation(o, false)));
    ASSERT_TRUE(io::write_webp(webp, stored, 101, io::make_exif_orientation(o, false)));
    ASSERT_TRUE(io::write_tiff(tif, stored.width, stored.height, 4, 8, stored.data.data(), o));
    for (const auto& p : {png, webp, tif}) {
      io::LoadInfo info;
      const ImageRGBA8 got = io::load_image(p, &info);
      EXPECT_EQ(info.orientation, o) << p;
      EXPECT_EQ(got.data, up.data) << p << " orientation " << o;  // lossless: exact
      std::remove(p.c_str());
    }
  }
}

TEST(Orientation, DepthMapsFollowTheirOwnOrientationElseTheImageStoredFrame) {
  const ImageRGBA8 up = upright();
  const ImageRGBA8 stored = io::apply_orientation(up, io::inverse_orientation(6));
  const std::string img = tmp_path("i.jpg"), dpng = tmp_path("d.png"), dup = tmp_path("d_up.png"),
                    dexif = tmp_path("d_exif.png");
  ASSERT_TRUE(io::write_jpeg(img, stored.data.data(), stored.width, stored.height, io::JpegKind::Rgb, 95,
                             io::make_exif_orientation(6, true)));
  io::LoadInfo info;
  io::load_image(img, &info);
  // A depth map in the image's stored frame (32 x 48 here) without orientation of its own: turned like it.
  ImageF d(stored.width, stored.height, 1);
  for (size_t i = 0; i < d.data.size(); ++i) d.data[i] = float(i * 257 % 65536) / 65535.f;  // exact in 16 bits
  io::save_png16(dpng, d);
  io::LoadInfo dinfo;
  const ImageF got = io::load_depth(dpng, info, &dinfo);
  EXPECT_EQ(got.width, up.width);
  ASSERT_EQ(got.height, up.height);
  const ImageF want = io::apply_orientation(io::load_depth(dpng), 6);
  EXPECT_EQ(got.data, want.data);
  EXPECT_FALSE(dinfo.notes.empty());
  // Already upright (the displayed size): kept as it is.
  ImageF du(up.width, up.height, 1);
  io::save_png16(dup, du);
  EXPECT_EQ(io::load_depth(dup, info, nullptr).width, up.width);
  // Its own EXIF orientation wins (8 here, whatever the image's).
  io::save_png16(dexif, d);
  write_bytes(dexif, with_png_chunk(read_bytes(dexif), "eXIf", io::make_exif_orientation(8, false)));
  const ImageF own = io::load_depth(dexif, info, &dinfo);
  EXPECT_EQ(own.data, io::apply_orientation(d, 8).data);
  for (const auto& p : {img, dpng, dup, dexif}) std::remove(p.c_str());
}

TEST(Formats, WebpLosslessRoundTripIsExactAndLossyIsClose) {
  const ImageRGBA8 img = test::random_image(37, 23, test::fresh_seed());
  const std::string p = tmp_path("rt.webp");
  io::save_image(p, img);
  io::LoadInfo info;
  EXPECT_EQ(io::load_image(p, &info).data, img.data);
  EXPECT_EQ(info.format, "WebP");
  ASSERT_TRUE(io::write_webp(p, upright(), 90));
  expect_blocks_near(io::load_image(p), upright(), 12, "lossy WebP");
  std::remove(p.c_str());
}

TEST(Formats, TiffRoundTripsAt8And16Bits) {
  const ImageRGBA8 img = test::random_image(29, 17, test::fresh_seed());
  const std::string p8 = tmp_path("rt8.tiff"), p16 = tmp_path("rt16.tif"), g16 = tmp_path("g16.tif");
  io::save_image(p8, img);
  io::LoadInfo info;
  EXPECT_EQ(io::load_image(p8, &info).data, img.data);
  EXPECT_EQ(info.format, "TIFF");
  EXPECT_EQ(info.bits, 8);
  EXPECT_TRUE(info.high.empty());
  // 16 bits: every value kept in LoadInfo::high; the 8-bit image rounds.
  ImageF c(13, 7, 4);
  for (size_t i = 0; i < c.data.size(); ++i) c.data[i] = float((i * 7919) % 65536) / 65535.f;
  io::save_tiff16(p16, c);
  info = io::LoadInfo();
  info.want_high = true;
  const ImageRGBA8 back = io::load_image(p16, &info);
  EXPECT_EQ(info.bits, 16);
  ASSERT_EQ(info.high.channels, 4);
  EXPECT_EQ(info.high.data, c.data);
  for (size_t i = 0; i < c.data.size(); ++i)
    ASSERT_EQ(back.data[i], uint8_t(std::lround(c.data[i] * 255.f))) << i;
  // 16-bit grey as a depth map keeps 16 bits.
  ImageF g(11, 5, 1);
  for (size_t i = 0; i < g.data.size(); ++i) g.data[i] = float(i * 1201 % 65536) / 65535.f;
  io::save_tiff16(g16, g);
  EXPECT_EQ(io::load_depth(g16).data, g.data);
  for (const auto& p : {p8, p16, g16}) std::remove(p.c_str());
}

TEST(Formats, SixteenBitPngKeepsItsSixteenBitsBeside) {
  ImageF g(9, 4, 1);
  for (size_t i = 0; i < g.data.size(); ++i) g.data[i] = float(i * 1733 % 65536) / 65535.f;
  const std::string p = tmp_path("g16.png");
  io::save_png16(p, g);
  io::LoadInfo info;
  io::load_image(p, &info);
  EXPECT_TRUE(info.high.empty());  // not asked for
  info.want_high = true;
  io::load_image(p, &info);
  EXPECT_EQ(info.bits, 16);
  ASSERT_EQ(info.high.channels, 4);
  for (size_t i = 0; i < g.data.size(); ++i) ASSERT_EQ(info.high.data[i * 4], g.data[i]) << i;
  std::remove(p.c_str());
}

TEST(Formats, SaveImageFollowsTheExtension) {
  const ImageRGBA8 img = upright();
  for (const char* ext : {".png", ".jpg", ".jpeg", ".webp", ".tif", ".tiff"}) {
    const std::string p = tmp_path(std::string("out") + ext);
    io::save_image(p, img);
    io::LoadInfo info;
    expect_blocks_near(io::load_image(p, &info), img, 12, ext);
    const std::string want = ext[1] == 'p' ? "PNG" : ext[1] == 'j' ? "JPEG" : ext[1] == 'w' ? "WebP" : "TIFF";
    EXPECT_EQ(info.format, want) << ext;
    EXPECT_EQ(info.orientation, 1) << ext;
    std::remove(p.c_str());
  }
  test::expect_one_line_error([&](const std::string& p) { io::save_image(p, img); }, tmp_path("out.gif"), "extension");
  // A loaded file is an input: no writer replaces it, whatever the format.
  const std::string in = tmp_path("in.webp");
  io::save_image(in, img);
  io::load_image(in);
  const std::vector<uint8_t> before = read_bytes(in);
  test::expect_one_line_error([&](const std::string& p) { io::save_image(p, img); }, in, "refusing to overwrite");
  EXPECT_EQ(read_bytes(in), before);
  std::remove(in.c_str());
}

TEST(Formats, CmykAndYcckJpegAreConvertedToRgb) {
  // Inks (C, M, Y, K in 0..255) and the RGB each gives by (1-C)(1-K) etc.; stored inverted as Adobe does.
  const uint8_t inks[6][4] = {{255, 0, 0, 0}, {0, 255, 0, 0}, {0, 0, 255, 0}, {0, 0, 0, 128}, {0, 0, 0, 0}, {128, 64, 0, 0}};
  const uint8_t rgb[6][3] = {{0, 255, 255}, {255, 0, 255}, {255, 255, 0}, {127, 127, 127}, {255, 255, 255}, {127, 191, 255}};
  std::vector<uint8_t> cmyk(48 * 32 * 4);
  ImageRGBA8 want(48, 32);
  for (int y = 0; y < 32; ++y)
    for (int x = 0; x < 48; ++x) {
      const int b = (y / 16) * 3 + x / 16;
      for (int c = 0; c < 4; ++c) cmyk[(size_t(y) * 48 + size_t(x)) * 4 + size_t(c)] = uint8_t(255 - inks[b][c]);
      for (int c = 0; c < 3; ++c) want.px(x, y)[c] = rgb[b][c];
      want.px(x, y)[3] = 255;
    }
  for (io::JpegKind kind : {io::JpegKind::Cmyk, io::JpegKind::Ycck}) {
    const std::string p = tmp_path("cmyk.jpg");
    ASSERT_TRUE(io::write_jpeg(p, cmyk.data(), 48, 32, kind, 95));
    io::LoadInfo info;
    const ImageRGBA8 got = io::load_image(p, &info);
    expect_blocks_near(got, want, 8, kind == io::JpegKind::Cmyk ? "CMYK" : "YCCK");
    ASSERT_FALSE(info.notes.empty());
    EXPECT_NE(info.notes[0].find(kind == io::JpegKind::Cmyk ? "CMYK" : "YCCK"), std::string::npos) << info.notes[0];
    EXPECT_NE(info.notes[0].find("Adobe"), std::string::npos) << info.notes[0];
    // As a depth map: the first channel of the RGB.
    const ImageF d = io::load_depth(p);
    EXPECT_NEAR(d.at(8, 8), 0.f, 8 / 255.f);
    EXPECT_NEAR(d.at(24, 8), 1.f, 8 / 255.f);
    std::remove(p.c_str());
  }
  // Without Adobe's marker the values are ink amounts, not inverted.
  std::vector<uint8_t> plain(cmyk.size());
  for (size_t i = 0; i < cmyk.size(); ++i) plain[i] = uint8_t(255 - cmyk[i]);
  const std::string p = tmp_path("cmyk_plain.jpg");
  ASSERT_TRUE(io::write_jpeg(p, plain.data(), 48, 32, io::JpegKind::CmykPlain, 95));
  io::LoadInfo info;
  expect_blocks_near(io::load_image(p, &info), want, 8, "CMYK without Adobe marker");
  ASSERT_FALSE(info.notes.empty());
  EXPECT_EQ(info.notes[0].find("Adobe"), std::string::npos) << info.notes[0];
  std::remove(p.c_str());
}

TEST(Formats, DisplayP3ProfileIsConvertedToSrgb) {
  const std::vector<uint8_t> p3 = io::make_rgb_profile(true);
  if (p3.empty()) GTEST_SKIP() << "lcms2 (liblcms2-2) is not installed: ICC profiles cannot be applied here";
  // One P3 colour inside sRGB's gamut, through the standard linear P3 -> sRGB matrix (D65).
  ImageRGBA8 img(4, 4);
  for (size_t i = 0; i < img.pixels(); ++i) img.data[i * 4] = 200, img.data[i * 4 + 1] = 100, img.data[i * 4 + 2] = 50, img.data[i * 4 + 3] = 255;
  auto lin = [](double v) { return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
  auto enc = [](double v) { return v <= 0.0031308 ? 12.92 * v : 1.055 * std::pow(v, 1 / 2.4) - 0.055; };
  const double r = lin(200 / 255.), g = lin(100 / 255.), b = lin(50 / 255.);
  const double M[3][3] = {{1.2249, -0.2247, 0.0}, {-0.0420, 1.0419, 0.0}, {-0.0197, -0.0786, 1.0979}};
  int want[3];
  for (int c = 0; c < 3; ++c) want[c] = int(std::lround(255 * enc(M[c][0] * r + M[c][1] * g + M[c][2] * b)));
  const std::string p = tmp_path("p3.webp"), ps = tmp_path("srgb.webp");
  ASSERT_TRUE(io::write_webp(p, img, 101, {}, p3));
  io::LoadInfo info;
  const ImageRGBA8 got = io::load_image(p, &info);
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(int(got.data[size_t(c)]), want[c], 2) << c;
  EXPECT_EQ(got.data[3], 255);
  ASSERT_EQ(info.notes.size(), 1u);
  EXPECT_EQ(info.notes[0], "ICC profile converted to sRGB");
  // An sRGB profile changes nothing (beyond rounding); a malformed one is said not to be applied.
  ASSERT_TRUE(io::write_webp(ps, img, 101, {}, io::make_rgb_profile(false)));
  const ImageRGBA8 same = io::load_image(ps);
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(int(same.data[size_t(c)]), int(img.data[size_t(c)]), 1) << c;
  ASSERT_TRUE(io::write_webp(ps, img, 101, {}, std::vector<uint8_t>(200, 7)));
  EXPECT_EQ(io::load_image(ps, &info).data, img.data);
  ASSERT_EQ(info.notes.size(), 1u);
  EXPECT_NE(info.notes[0].find("not applied"), std::string::npos) << info.notes[0];
  // In a PNG's iCCP chunk (deflated; a stored deflate stream, written here by hand).
  const std::string pp = tmp_path("p3.png");
  io::save_png(pp, img);
  std::vector<uint8_t> iccp = {'P', '3', 0, 0, 0x78, 0x01};  // name, NUL, method 0, zlib header
  iccp.insert(iccp.end(), {1, uint8_t(p3.size()), uint8_t(p3.size() >> 8), uint8_t(~p3.size()), uint8_t(~p3.size() >> 8)});
  iccp.insert(iccp.end(), p3.begin(), p3.end());
  uint32_t a = 1, bsum = 0;  // Adler-32
  for (uint8_t v : p3) a = (a + v) % 65521, bsum = (bsum + a) % 65521;
  for (int sh = 24; sh >= 0; sh -= 8) iccp.push_back(uint8_t(((bsum << 16) | a) >> sh));
  ASSERT_LT(p3.size(), 65536u);
  write_bytes(pp, with_png_chunk(read_bytes(pp), "iCCP", iccp, true));
  const ImageRGBA8 gp = io::load_image(pp, &info);
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(int(gp.data[size_t(c)]), want[c], 2) << c;
  ASSERT_EQ(info.notes.size(), 1u);
  EXPECT_EQ(info.notes[0], "ICC profile converted to sRGB");
  std::remove(pp.c_str());
  // The same profile in a JPEG's APP2.
  const std::string pj = tmp_path("p3.jpg");
  ASSERT_TRUE(io::write_jpeg(pj, img.data.data(), 4, 4, io::JpegKind::Rgb, 100, {}, p3));
  const ImageRGBA8 gj = io::load_image(pj);
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(int(gj.data[size_t(c)]), want[c], 4) << c;
  for (const auto& f : {p, ps, pj}) std::remove(f.c_str());
}

TEST(Formats, HeicAndAvifFromLibheifsEncoderLoadWithTheirTransformations) {
  std::string why;
  if (!io::heif_available(&why)) GTEST_SKIP() << why;
  const ImageRGBA8 up = upright();
  for (bool avif : {false, true}) {
    const std::string p = tmp_path(avif ? "o.avif" : "o.heic");
    const ImageRGBA8 stored = io::apply_orientation(up, io::inverse_orientation(6));
    why = io::write_heif(p, stored, avif, 6);
    if (!why.empty()) {
      ADD_FAILURE() << (avif ? "AVIF" : "HEIC") << " not written: " << why;
      continue;
    }
    io::LoadInfo info;
    const ImageRGBA8 got = io::load_image(p, &info);
    EXPECT_EQ(info.format, "HEIF");
    expect_blocks_near(got, up, 16, avif ? "AVIF" : "HEIC");
    // With an EXIF block that repeats the orientation, as phones write it: turned once, not twice.
    why = io::write_heif(p, stored, avif, 6, io::make_exif_orientation(6, false));
    ASSERT_TRUE(why.empty()) << why;
    expect_blocks_near(io::load_image(p), up, 16, avif ? "AVIF with EXIF" : "HEIC with EXIF");
    // Display P3 given by nclx code points rather than an ICC profile: not converted, and said so. Only
    // AVIF: libheif 1.15's HEVC path writes no colr box (nor VUI primaries) for the nclx it is given.
    if (!avif) {
      std::remove(p.c_str());
      continue;
    }
    why = io::write_heif(p, up, avif, 1, {}, 12);
    ASSERT_TRUE(why.empty()) << why;
    io::load_image(p, &info);
    bool said = false;
    for (const auto& n : info.notes) said = said || n.find("Display P3") != std::string::npos;
    EXPECT_TRUE(said) << (avif ? "AVIF" : "HEIC");
    std::remove(p.c_str());
  }
}

TEST(Formats, CorruptAndTruncatedFilesGiveOneClearError) {
  const ImageRGBA8 up = upright();
  std::vector<std::pair<std::string, std::vector<uint8_t>>> files;
  const std::string w = tmp_path("src.webp"), t = tmp_path("src.tif"), j = tmp_path("src.jpg"), h = tmp_path("src.heic");
  ASSERT_TRUE(io::write_webp(w, up, 90));
  ASSERT_TRUE(io::write_tiff(t, up.width, up.height, 4, 8, up.data.data()));
  std::vector<uint8_t> cmyk(up.data.size(), 100);
  ASSERT_TRUE(io::write_jpeg(j, cmyk.data(), up.width, up.height, io::JpegKind::Ycck, 90));
  std::vector<std::string> srcs = {w, t, j};
  std::string why;
  if (io::heif_available(&why) && io::write_heif(h, up, false).empty()) srcs.push_back(h);
  for (const auto& src : srcs) {
    const std::vector<uint8_t> full = read_bytes(src);
    const std::string bad = tmp_path("bad" + src.substr(src.find_last_of('.')));
    for (size_t n : {size_t(20), full.size() / 2}) {
      write_bytes(bad, std::vector<uint8_t>(full.begin(), full.begin() + long(n)));
      test::expect_one_line_error([](const std::string& p) { io::load_image(p); }, bad);
      test::expect_one_line_error([](const std::string& p) { io::load_depth(p); }, bad);
    }
    // Header intact, the body overwritten.
    std::vector<uint8_t> junk = full;
    for (size_t i = full.size() / 3; i < full.size(); ++i) junk[i] = uint8_t(i * 37);
    write_bytes(bad, junk);
    try {
      io::load_image(bad);  // some codecs decode garbage to garbage pixels without noticing: allowed
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    }
    std::remove(bad.c_str());
    std::remove(src.c_str());
  }
}

TEST(Formats, DeclaredSizesBeyondTheFileAreRefusedBeforeDecoding) {
  // A WebP whose VP8L header declares 16383 x 16383 in a few dozen bytes.
  const ImageRGBA8 tiny(1, 1);
  const std::string p = tmp_path("huge.webp");
  ASSERT_TRUE(io::write_webp(p, tiny, 101));
  std::vector<uint8_t> b = read_bytes(p);
  ASSERT_GE(b.size(), 25u);
  ASSERT_EQ(std::string(b.begin() + 12, b.begin() + 16), "VP8L");
  // VP8L: signature 0x2f, then 14 bits width-1, 14 bits height-1.
  const uint32_t bits = 16382u | (16382u << 14) | (uint32_t(b[24]) & 0xF0u) << 24;
  for (int i = 0; i < 4; ++i) b[21 + size_t(i)] = uint8_t(bits >> (8 * i));
  write_bytes(p, b);
  io::testing::set_host_memory_available(uint64_t(1) << 50);  // the size check, not the memory check
  test::expect_one_line_error([](const std::string& f) { io::load_image(f); }, p, "cannot hold");
  io::testing::set_host_memory_available(0);
  std::remove(p.c_str());
}
