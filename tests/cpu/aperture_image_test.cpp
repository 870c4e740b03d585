// Aperture images (core/aperture_image.hpp): the pictures' rectangles (disjoint, inside the square, the
// centre in, near the picture), a disc picture against the built-in disc, a point light's bokeh upright
// behind the focus plane and turned in front, and bad pictures refused with one clear line.
#include "core/aperture_image.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "core/dof.hpp"
#include "core/dof_spread.hpp"
#include "core/error.hpp"
#include "core/params.hpp"
#include "test_util.hpp"

using namespace satlab;

namespace {

ImageRGBA8 grey_picture(int side, bool (*inside)(double, double)) {
  ImageRGBA8 img(side, side);
  for (int y = 0; y < side; ++y)
    for (int x = 0; x < side; ++x) {
      uint8_t* p = img.px(x, y);
      p[0] = p[1] = p[2] = inside((x + 0.5) / side * 2 - 1, (y + 0.5) / side * 2 - 1) ? 255 : 0;
      p[3] = 255;
    }
  return img;
}
bool disc(double x, double y) { return x * x + y * y <= 1; }
// A triangle, apex up (y down): its weight lies below its centre.
bool apex_up(double x, double y) { return y >= -1 && y <= 1 && std::fabs(x) <= (y + 1) / 2; }

Params picture_params(const std::string& key, float R) {
  Params p;
  p.dof_mode = "spread";
  p.max_radius = R;
  p.aperture_image = key;
  return p;
}

bool covers(const dof::Rect* q, int n, int x, int y) {
  for (int i = 0; i < n; ++i)
    if (x >= q[i].x0 && x <= q[i].x1 && y >= q[i].y0 && y <= q[i].y1) return true;
  return false;
}


}  // namespace

TEST(ApertureImage, BuiltinsAreNamedNormalisedAndKeyed) {
  EXPECT_EQ(builtin_aperture_list(), "star, heart, ring, bubble, blades5, blades6, blades7, blades8");
  for (const char* name : {"star", "heart", "ring", "bubble", "blades5", "blades6", "blades7", "blades8"}) {
    const auto im = find_aperture_image(name);
    ASSERT_NE(im, nullptr) << name;
    EXPECT_GT(im->size, 200) << name;
    EXPECT_EQ(*std::max_element(im->v.begin(), im->v.end()), 1.f) << name;
    EXPECT_EQ(im->digest.size(), 16u) << name;
  }
  EXPECT_NE(find_aperture_image("star")->digest, find_aperture_image("heart")->digest);
  EXPECT_EQ(find_aperture_image("no such picture"), nullptr);
}

TEST(ApertureImage, RectanglesAreDisjointInsideTheSquareWithTheCentre) {
  for (const char* name : {"star", "heart", "ring", "blades5", "blades8"})
    for (int most : {8, 16})
      for (int r : {1, 2, 3, 5, 8, 13, 24, 40, 70}) {
        Params p = picture_params(name, float(r));
        if (r == 13) p.blade_rotation = 20.f, p.anamorphic = 0.6f;
        dof::Rect q[64];
        const int n = image_aperture(*find_aperture_image(name), p, r, q, most);
        const std::string what = std::string(name) + " r " + std::to_string(r) + " most " + std::to_string(most);
        ASSERT_GE(n, 1) << what;
        ASSERT_LE(n, most) << what;
        EXPECT_TRUE(covers(q, n, 0, 0)) << what;
        for (int i = 0; i < n; ++i) {
          EXPECT_TRUE(q[i].x0 <= q[i].x1 && q[i].y0 <= q[i].y1) << what;
          EXPECT_TRUE(q[i].x0 >= -r && q[i].x1 <= r && q[i].y0 >= -r && q[i].y1 <= r) << what;
          for (int j = 0; j < i; ++j)
            EXPECT_FALSE(q[i].x0 <= q[j].x1 && q[j].x0 <= q[i].x1 && q[i].y0 <= q[j].y1 && q[j].y0 <= q[i].y1)
                << what << ": rectangles " << j << " and " << i << " overlap";
        }
      }
}

// The rectangles against the picture's own cells at the same radius: a star's points and notches survive.
TEST(ApertureImage, RectanglesFollowThePicture) {
  const auto star = find_aperture_image("star");
  for (const auto& [most, r, least] : {std::tuple{16, 24, 0.91}, std::tuple{8, 24, 0.85}, std::tuple{16, 60, 0.91}}) {
    const Params p = picture_params("star", float(r));
    dof::Rect q[64];
    const int n = image_rects_at(*star, p, r, double(r), most, q);
    long both = 0, either = 0;
    for (int y = -r; y <= r; ++y)
      for (int x = -r; x <= r; ++x) {
        const bool in = star->at(double(x) / r, double(y) / r) >= 0.5f, drawn = covers(q, n, x, y);
        both += in && drawn, either += in || drawn;
      }
    EXPECT_GE(double(both) / double(either), least) << "most " << most << " r " << r;
  }
}

// A disc drawn as a picture gives the built-in disc's bokeh: the same area and second moment per radius
// (within a few percent), and a frame within a stated bound of the built-in disc's.
TEST(ApertureImage, ADiscPictureMatchesTheBuiltInDisc) {
  register_aperture_image("test:disc", aperture_image_from_pixels(grey_picture(200, disc), "test disc"));
  const int R = 20;
  const ApertureTable a = aperture_table(picture_params("test:disc", float(R)), R);
  Params plain;
  plain.dof_mode = "spread", plain.max_radius = float(R);
  const ApertureTable b = aperture_table(plain, R);
  for (int r = 3; r <= R; ++r) {
    const dof::Rect* qa = a.rects.data() + size_t(r) * dof::kMaxRects;
    const dof::Rect* qb = b.rects.data() + size_t(r) * dof::kMaxRects;
    const double ma = aperture_second_moment(qa, a.counts[size_t(r)]);
    const double mb = aperture_second_moment(qb, b.counts[size_t(r)]);
    EXPECT_NEAR(ma / mb, 1.0, 0.04) << "radius " << r;
  }
  // A frame: random colours and CoCs in both directions.
  const ImageRGBA8 img = test::random_image(97, 61, 7);
  ImageF depth(97, 61, 1);
  for (int y = 0; y < 61; ++y)
    for (int x = 0; x < 97; ++x) depth.at(x, y) = float(x) / 96.f;
  Params pp = picture_params("test:disc", float(R));
  pp.focus = 0.5f, pp.aperture = 60.f, pp.near_depth = 1.f, pp.far_depth = 10.f;
  Params pb = pp;
  pb.aperture_image.clear();
  const ImageRGBA8 oa = test::ran_cpu_pipeline(img, depth, pp)->result();
  const ImageRGBA8 ob = test::ran_cpu_pipeline(img, depth, pb)->result();
  double se = 0;
  for (size_t i = 0; i < oa.data.size(); ++i)
    if (i % 4 != 3) se += (double(oa.data[i]) - ob.data[i]) * (double(oa.data[i]) - ob.data[i]);
  const double psnr = 10 * std::log10(255.0 * 255.0 / (se / double(oa.pixels() * 3)));
  EXPECT_GT(psnr, 45.0);  // 49.8 dB at this commit
}

// Upright behind the focus plane, turned by 180 degrees in front: an apex-up triangle's weight lies below
// the light behind focus and above it in front, and the two bokehs are each other's turn exactly.
TEST(ApertureImage, APointLightShowsThePictureUprightBehindAndTurnedInFront) {
  register_aperture_image("test:apex", aperture_image_from_pixels(grey_picture(128, apex_up), "test apex"));
  const int w = 41, h = 41, R = 14;
  const Params p = picture_params("test:apex", float(R));
  const std::vector<double> behind = test::spread_point_psf(p, w, h, -float(R)), front = test::spread_point_psf(p, w, h, float(R));
  double cy_b = 0, sb = 0, cy_f = 0, sf = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const double vb = behind[size_t(y) * size_t(w) + size_t(x)], vf = front[size_t(y) * size_t(w) + size_t(x)];
      cy_b += vb * (y - h / 2), sb += vb, cy_f += vf * (y - h / 2), sf += vf;
      EXPECT_EQ(vf, behind[size_t(h - 1 - y) * size_t(w) + size_t(w - 1 - x)]) << x << "," << y;
    }
  EXPECT_GT(cy_b / sb, 3.0);
  EXPECT_LT(cy_f / sf, -3.0);
  // The built-in disc is not turned (its table does not flip): its two bokehs are equal.
  Params d = p;
  d.aperture_image.clear();
  EXPECT_EQ(test::spread_point_psf(d, w, h, -float(R)), test::spread_point_psf(d, w, h, float(R)));
}

TEST(ApertureImage, BadPicturesAreRefusedWithOneLine) {
  const auto message = [](const ImageRGBA8& img) {
    try {
      aperture_image_from_pixels(img, "'x.png'");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(message(ImageRGBA8(0, 0)), "aperture image 'x.png': empty");
  ImageRGBA8 black(8, 8);
  for (size_t i = 0; i < black.pixels(); ++i) black.data[i * 4 + 3] = 255;
  EXPECT_NE(message(black).find("all black"), std::string::npos) << message(black);
  ImageRGBA8 colour = grey_picture(16, disc);
  colour.px(8, 8)[1] = 0;
  EXPECT_NE(message(colour).find("not greyscale (pixel 8,8"), std::string::npos) << message(colour);
  EXPECT_NE(message(ImageRGBA8(kMaxApertureImageSide + 1, 1)).find("larger than 4096"), std::string::npos);
  for (const std::string& m : {message(black), message(colour)}) EXPECT_EQ(m.find('\n'), std::string::npos);
}

// Only the modes that carry aperture profiles (spread) take a picture; an unknown one is named.
TEST(ApertureImage, ValidateRefusesGatherModesAndUnknownPictures) {
  Params p = picture_params("star", 16.f);
  EXPECT_NO_THROW(validate(p));
  p.dof_mode = "gather_shape";
  try {
    validate(p);
    ADD_FAILURE() << "gather_shape took a picture";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("(spread)"), std::string::npos) << e.what();
  }
  p.dof_mode = "spread", p.aperture_image = "nowhere.png";
  EXPECT_THROW(validate(p), Error);
  const LensPreset* star = find_lens_preset("star-card");
  ASSERT_NE(star, nullptr);
  Params q;
  star->apply(q);
  EXPECT_EQ(q.aperture_image, "star");
  find_lens_preset("modern-prime")->apply(q);
  EXPECT_EQ(q.aperture_image, "");
}

// Grey levels (ApertureImage::grey, image_grey_levels): the built-in bubble is grey and the binary pictures
// are not; spread draws the bubble in levels, its rim at least twice as bright as its middle, the centre
// pixel in, the weighted area the components' (times the budget factor), and the spread's weight budget
// (as for the profiles, tests/cpu/dof_spread_test.cpp) below 100 over every radius.
TEST(ApertureImage, AGreyPictureIsDrawnInLevels) {
  for (const std::string& name : builtin_aperture_names())
    EXPECT_EQ(find_aperture_image(name)->grey, name == "bubble") << name;
  Params p;
  p.aperture_image = "bubble";
  ASSERT_TRUE(spread_grey_image(p));
  ASSERT_TRUE(spread_components(p));
  const int R = 96;
  const SpreadApertures ap = spread_apertures(p, R);
  ASSERT_EQ(ap.one, dof::kSpreadOne / kProfileBudget);
  double most = 0;
  std::vector<double> m(size_t(R) + 1, 0.0);
  for (int r = 0; r <= R; ++r) {
    const dof::SpreadInfo& in = ap.info[size_t(r)];
    const dof::Rect* q = ap.rects.data() + size_t(r) * dof::kMaxSpreadRects;
    ASSERT_GE(in.comps, 1);
    ASSERT_TRUE(in.flip) << "a picture turns in front of the focus plane";
    const int n = 2 * r + 1;
    std::vector<int> weight(size_t(n) * size_t(n), 0);
    int64_t total = 0, peak = 0, run = 0;
    for (int c = 0, i = 0; c < in.comps; ++c) {
      ASSERT_GT(in.mult[c], 0);
      run += in.mult[c], peak = std::max(peak, run);
      for (; i < in.end[c]; ++i)
        for (int y = q[i].y0; y <= q[i].y1; ++y)
          for (int x = q[i].x0; x <= q[i].x1; ++x) {
            ASSERT_LE(std::abs(x), r);
            ASSERT_LE(std::abs(y), r);
            weight[size_t(y + r) * size_t(n) + size_t(x + r)] += in.mult[c], total += in.mult[c];
          }
    }
    ASSERT_EQ(total * int64_t(kProfileBudget), int64_t(in.area)) << "radius " << r;
    ASSERT_GT(weight[size_t(r) * size_t(n) + size_t(r)], 0) << "radius " << r << ": the centre pixel left out";
    m[size_t(r)] = double(peak) / double(in.area);
    if (r >= 12) {  // the rim (0.9 of the radius) against the middle (0.4)
      const int rim = weight[size_t(r) * size_t(n) + size_t(r + int(0.9 * r))];
      const int mid = weight[size_t(r) * size_t(n) + size_t(r + int(0.4 * r))];
      EXPECT_GE(rim, 2 * mid) << "radius " << r;
      EXPECT_GT(mid, 0) << "radius " << r;
    }
  }
  for (int r = 0; r <= R; ++r) most = std::max(most, m[size_t(r)]);
  double sum = most, beyond = 0;
  for (int d = R; d >= 1; --d) beyond = std::max(beyond, m[size_t(d)]), sum += 8.0 * d * beyond;
  EXPECT_LT(sum, 100.0);
}
