// Depth embedded in photos (app/io/embedded_depth.hpp), read from the files tools/depth_samples wrote
// (tests/data/embedded_depth/). Every file stores the same scene, z = 0.5 .. 3.0 m along the depth
// map's pixels in raster order, with the file range near 0.3, far 4.1: the loader's map, fitted and
// normalised by the pipeline's own code, must give that z back within the file's quantisation.
#include "app/io/embedded_depth.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "app/io/image_io.hpp"
#include "app/io/xmp.hpp"
#include "core/error.hpp"
#include "core/reference.hpp"

namespace satlab {
namespace {

const std::string kDir = std::string(SATLAB_SOURCE_DIR) + "/tests/data/embedded_depth/";
constexpr int kDw = 12, kDh = 8;
constexpr double kNear = 0.3, kFar = 4.1;

double scene_z(int x, int y) {
  return 0.5 + 2.5 * double(x + kDw * y) / double(kDw * kDh - 1);
}

std::vector<uint8_t> read(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

std::string write_tmp(const std::vector<uint8_t>& bytes, const std::string& name) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), long(bytes.size()));
  return path;
}

// The scene depth the pipeline sees for each pixel of `e`'s map, through fit_embedded_range,
// normalise_depth and the CoC model: with aperture 1 and no clamp, coc(d) = 1/z(d) - 1/z(focus).
// Checks 1/z against the scene within `tol_inverse` (derived per file from its quantisation).
void expect_scene(const io::EmbeddedDepth& e, double tol_inverse) {
  ASSERT_EQ(e.depth.width, kDw);
  ASSERT_EQ(e.depth.height, kDh);
  Params p = io::fit_embedded_range(e, e.depth, Params{});
  p.aperture = 1, p.max_radius = 1e9f;
  const ImageF d = normalise_depth(e.depth);
  p.focus = d.at(0, 0);  // pixel (0, 0) is the nearest: z = 0.5
  const double inv_focus = 1 / scene_z(0, 0);
  double worst = 0;
  for (int y = 0; y < kDh; ++y)
    for (int x = 0; x < kDw; ++x) {
      const double inv = coc_from_depth(d.at(x, y), p) + inv_focus;
      worst = std::max(worst, std::fabs(inv - 1 / scene_z(x, y)));
      ASSERT_NEAR(inv, 1 / scene_z(x, y), tol_inverse) << "pixel " << x << "," << y;
    }
  std::printf("  worst |1/z - 1/z_scene| %.3g (bound %.3g)\n", worst, tol_inverse);
}

// d is quantised to `levels` steps; RangeInverse is linear in 1/z: 1/z moves (1/near - 1/far) per unit
// of d. Twice the half step: the error at the fitted end points (the map's min and max) adds to it.
double inverse_bound(double step_levels, int levels) {
  return 2 * step_levels / levels * (1 / kNear - 1 / kFar) + 1e-5;
}
// RangeLinear: z moves (far - near) per unit of d; 1/z by at most dz / z_min^2 (z >= 0.5 here).
double linear_bound(double step_levels, int levels) {
  return 2 * step_levels / levels * (kFar - kNear) / 0.25 + 1e-5;
}

// The embedded depth of the sample kDir + file, expected from `source`, a disparity map or not.
io::EmbeddedDepth load_expecting(const std::string& file, const std::string& source, bool disparity) {
  io::EmbeddedDepth e = io::load_embedded_depth(kDir + file);
  EXPECT_EQ(e.source, source) << file;
  EXPECT_EQ(e.disparity, disparity) << file;
  return e;
}

TEST(EmbeddedDepth, GDepthInStandardXmpIsRangeInverseFromAnEightBitPng) {
  const io::EmbeddedDepth e = load_expecting("gd_standard_xmp.jpg", "GDepth RangeInverse", true);
  ASSERT_TRUE(e.found());
  EXPECT_FLOAT_EQ(e.near_depth, 0.3f);
  EXPECT_FLOAT_EQ(e.far_depth, 4.1f);
  EXPECT_TRUE(e.ignored.empty());
  expect_scene(e, inverse_bound(0.5, 255));
  EXPECT_EQ(io::describe(e), "embedded GDepth RangeInverse near 0.3 far 4.1");
}

TEST(EmbeddedDepth, DepthTurnsWithThePhotosExifOrientation) {
  const io::EmbeddedDepth plain = io::load_embedded_depth(kDir + "gd_standard_xmp.jpg");
  const io::EmbeddedDepth turned = io::load_embedded_depth(kDir + "gd_rotated.jpg");  // Orientation 6
  ASSERT_EQ(turned.orientation, 6);
  ASSERT_EQ(turned.depth.width, kDh);
  ASSERT_EQ(turned.depth.height, kDw);
  // 90 degrees clockwise: the stored top-left pixel is shown top-right.
  for (int y = 0; y < kDw; ++y)
    for (int x = 0; x < kDh; ++x)
      ASSERT_EQ(turned.depth.at(x, y), plain.depth.at(y, kDh - 1 - x)) << x << "," << y;
  EXPECT_NE(io::describe(turned).find("EXIF orientation 6 applied"), std::string::npos);
}

TEST(EmbeddedDepth, OrientationsAreTheEightExifTransforms) {
  ImageF a(3, 2, 1);  // 0 1 2 / 3 4 5
  for (int i = 0; i < 6; ++i) a.data[size_t(i)] = float(i);
  const std::vector<std::vector<float>> want = {{0, 1, 2, 3, 4, 5}, {2, 1, 0, 5, 4, 3}, {5, 4, 3, 2, 1, 0},
                                                {3, 4, 5, 0, 1, 2}, {0, 3, 1, 4, 2, 5}, {3, 0, 4, 1, 5, 2},
                                                {5, 2, 4, 1, 3, 0}, {2, 5, 1, 4, 0, 3}};
  for (int o = 1; o <= 8; ++o) {
    const ImageF b = io::oriented(a, o);
    EXPECT_EQ(b.width, o >= 5 ? 2 : 3) << o;
    EXPECT_EQ(b.data, want[size_t(o - 1)]) << "orientation " << o;
  }
}

TEST(EmbeddedDepth, GDepthInExtendedXmpChunksOutOfOrderIsRangeLinearFromAJpeg) {
  const io::EmbeddedDepth e = load_expecting("gd_extended_xmp.jpg", "GDepth RangeLinear", false);
  ASSERT_TRUE(e.found());
  EXPECT_FLOAT_EQ(e.near_depth, 0.3f);
  // JPEG at quality 100 is not lossless: measured here within 1 level of 255 on this map.
  expect_scene(e, linear_bound(1.5, 255));
}

TEST(EmbeddedDepth, DynamicDepthContainerItemIsFoundByItsDataUri) {
  const io::EmbeddedDepth e = load_expecting("dd_container.jpg", "Dynamic Depth RangeInverse", true);
  ASSERT_TRUE(e.found());
  EXPECT_FLOAT_EQ(e.far_depth, 4.1f);
  // The confidence map and its item are reported as ignored.
  ASSERT_EQ(e.ignored.size(), 2u);
  EXPECT_EQ(e.ignored[0], "confidence map");
  EXPECT_EQ(e.ignored[1], "item android/confidencemap");
  expect_scene(e, inverse_bound(0.5, 65535));
}

TEST(EmbeddedDepth, HeicDepthAuxiliaryImageIsUniformInverseZ) {
  io::EmbeddedDepth e;
  try {
    e = io::load_embedded_depth(kDir + "heic_aux.heic");
  } catch (const Error& err) {
    if (std::string(err.what()).find("libheif.so.1 is not installed") != std::string::npos ||
        std::string(err.what()).find("no libheif headers") != std::string::npos)
      GTEST_SKIP() << err.what();
    throw;
  }
  ASSERT_TRUE(e.found());
  EXPECT_EQ(e.source, "HEIC uniform inverse Z");
  EXPECT_TRUE(e.disparity);
  EXPECT_EQ(e.near_depth, 0.f);  // the sample has no depth representation info
  // libheif 1.15 decodes the sample's depth (a derived image, as its encoder wrote it) to RGB.
  ASSERT_FALSE(e.ignored.empty());
  EXPECT_NE(e.ignored.back().find("no depth representation info"), std::string::npos);
  // Written losslessly as v = 255 (1/z - 1/far) / (1/near - 1/far): with the range supplied by hand the
  // pipeline gives the scene back.
  io::EmbeddedDepth ranged = e;
  ranged.near_depth = float(kNear), ranged.far_depth = float(kFar);
  expect_scene(ranged, inverse_bound(0.5, 255));
}

TEST(EmbeddedDepth, FitMapsTheNormalisedRangeOntoTheFileRange) {
  // A map covering d in [0.25, 0.75] of a linear file range 1..5: the normalised map spans z 2..4.
  io::EmbeddedDepth e;
  e.near_depth = 1, e.far_depth = 5;
  e.depth = ImageF(2, 1, 1);
  e.depth.data = {0.25f, 0.75f};
  Params p = io::fit_embedded_range(e, e.depth, Params{});
  EXPECT_FLOAT_EQ(p.near_depth, 2.f);
  EXPECT_FLOAT_EQ(p.far_depth, 4.f);
  EXPECT_FALSE(p.disparity);
  // Disparity: 1/z = 1/5 + d (1 - 1/5): d = 0.25 -> 1/z = 0.4, d = 0.75 -> 0.8.
  e.disparity = true;
  p = io::fit_embedded_range(e, e.depth, Params{});
  EXPECT_FLOAT_EQ(p.far_depth, 2.5f);
  EXPECT_FLOAT_EQ(p.near_depth, 1.25f);
  EXPECT_TRUE(p.disparity);
  // No range in the file: the caller's near/far stay.
  e.near_depth = e.far_depth = 0;
  p = io::fit_embedded_range(e, e.depth, Params{});
  EXPECT_EQ(p.near_depth, Params{}.near_depth);
}

TEST(EmbeddedDepth, FilesWithoutDepthFindNone) {
  EXPECT_FALSE(io::load_embedded_depth(std::string(SATLAB_SOURCE_DIR) + "/assets/default.png").found());
  const uint8_t bare[] = {0xFF, 0xD8, 0xFF, 0xD9};
  EXPECT_FALSE(io::parse_jpeg_depth(bare, sizeof(bare)).found());
}

// Replaces the first `from` in the file's bytes with `to` (same length keeps segment lengths valid).
std::vector<uint8_t> patched(std::vector<uint8_t> b, const std::string& from, const std::string& to) {
  const std::string s(b.begin(), b.end());
  const size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) std::copy(to.begin(), to.end(), b.begin() + long(at));
  return b;
}

// A broken embedded depth: one clear reason, the image still loads, and the hook falls back to none.
void expect_unusable(const std::vector<uint8_t>& bytes, const std::string& name, const std::string& reason) {
  const std::string path = write_tmp(bytes, name);
  try {
    io::load_embedded_depth(path);
    ADD_FAILURE() << "no error for " << name;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
  }
  const ImageRGBA8 img = io::load_image(path);
  EXPECT_EQ(img.width, 24);
  const io::DepthForImage d = io::embedded_depth_for(path, Params{});
  EXPECT_FALSE(d.used);
  EXPECT_TRUE(d.depth.empty());
  EXPECT_EQ(d.summary.rfind("embedded depth not used: ", 0), 0u) << d.summary;
  EXPECT_NE(d.summary.find(reason), std::string::npos) << d.summary;
}

TEST(EmbeddedDepth, CorruptXmpIsOneClearErrorAndTheImageStillLoads) {
  expect_unusable(patched(read(kDir + "gd_standard_xmp.jpg"), "</rdf:RDF>", "</rdf:RDX>"), "bad_xml.jpg",
                  "not well-formed XML");
  expect_unusable(patched(read(kDir + "gd_standard_xmp.jpg"), "GDepth:Data=\"iVBO", "GDepth:Data=\"*VBO"),
                  "bad_base64.jpg", "not base64");
  expect_unusable(
      patched(read(kDir + "gd_standard_xmp.jpg"), "GDepth:Data=\"iVBORw0K", "GDepth:Data=\"AAAAAAAA"),
      "bad_png.jpg", "embedded depth image");
}

TEST(EmbeddedDepth, TruncatedContainerIsOneClearErrorAndTheImageStillLoads) {
  // Cut inside the depth item (the first PNG after the primary image).
  std::vector<uint8_t> b = read(kDir + "dd_container.jpg");
  const size_t png = std::string(b.begin(), b.end()).find("\x89PNG");
  ASSERT_NE(png, std::string::npos);
  b.resize(png + 60);
  expect_unusable(b, "truncated_dd.jpg", "not where the container says");
}

TEST(EmbeddedDepth, MissingExtendedXmpChunkIsReported) {
  // Cut out the second extended-XMP APP1 segment.
  std::vector<uint8_t> b = read(kDir + "gd_extended_xmp.jpg");
  const std::string s(b.begin(), b.end()), sig = "http://ns.adobe.com/xmp/extension/";
  const size_t first = s.find(sig), second = s.find(sig, first + 1);
  ASSERT_NE(second, std::string::npos);
  const size_t seg = second - 4, len = size_t(b[seg + 2]) << 8 | b[seg + 3];
  b.erase(b.begin() + long(seg), b.begin() + long(seg + 2 + len));
  expect_unusable(b, "missing_chunk.jpg", "extended XMP is incomplete");
}

TEST(EmbeddedDepth, LenientWhereDevicesDifferAndSaysWhat) {
  // Bytes between the primary image and the items that no Padding declares: offsets from the file's end.
  std::vector<uint8_t> b = read(kDir + "dd_container.jpg");
  const size_t png = std::string(b.begin(), b.end()).find("\x89PNG");
  ASSERT_NE(png, std::string::npos);
  b.insert(b.begin() + long(png), 16, uint8_t(0));
  io::EmbeddedDepth e = io::load_embedded_depth(write_tmp(b, "padded_dd.jpg"));
  ASSERT_TRUE(e.found());
  EXPECT_NE(std::find(e.ignored.begin(), e.ignored.end(),
                      "container offsets counted from the end of the file (padding differs)"),
            e.ignored.end());
  expect_scene(e, inverse_bound(0.5, 65535));
  // An extended XMP whose GUID is not the one xmpNote:HasExtendedXMP names is still read, and said so.
  b = patched(read(kDir + "gd_extended_xmp.jpg"), "HasExtendedXMP=\"0123", "HasExtendedXMP=\"9999");
  e = io::load_embedded_depth(write_tmp(b, "guid.jpg"));
  ASSERT_TRUE(e.found());
  EXPECT_NE(
      std::find(e.ignored.begin(), e.ignored.end(), "extended XMP GUID differs from xmpNote:HasExtendedXMP"),
      e.ignored.end());
  expect_scene(e, linear_bound(1.5, 255));
}

TEST(Xmp, NamespacesAreResolvedByUriNotPrefix) {
  const io::xmp::Document d = io::xmp::parse(
      "<a xmlns:p=\"urn:x\" xmlns:q=\"urn:x\"><b p:k=\"1 &amp; 2\"><q:k2>&#x41;b</q:k2></b></a>");
  ASSERT_EQ(d.nodes.size(), 4u);
  EXPECT_EQ(*d.property(2, "urn:x", "k"), "1 & 2");
  EXPECT_EQ(*d.property(2, "urn:x", "k2"), "Ab");
  EXPECT_THROW(io::xmp::parse("<a><b></a>"), Error);
  EXPECT_THROW(io::xmp::parse("<!DOCTYPE x [<!ENTITY e \"e\">]><a/>"), Error);
  std::string deep;
  for (int i = 0; i <= io::xmp::kMaxDepth + 1; ++i) deep += "<a>";
  EXPECT_THROW(io::xmp::parse(deep), Error);
}

}  // namespace
}  // namespace satlab
