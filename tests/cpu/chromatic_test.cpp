// Axial chromatic aberration (core/chromatic.hpp): red and blue's CoC is green's plus the offset at every
// depth, the frame is two passes (green the plain frame's, red and blue those of the offset pass), the
// fringes' colour order reverses between an object in front of the focus and one behind, and bad values
// are refused with one line (tiles: tests/cpu/tiled_test.cpp).
#include "core/chromatic.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "core/error.hpp"
#include "core/params.hpp"
#include "core/reference.hpp"
#include "test_util.hpp"

using namespace satlab;

namespace {

// A white square of side s at the centre of a black w x w image.
ImageRGBA8 white_square(int w, int s) {
  ImageRGBA8 img(w, w);
  for (int y = 0; y < w; ++y)
    for (int x = 0; x < w; ++x) {
      const bool in = std::abs(2 * x + 1 - w) < s && std::abs(2 * y + 1 - w) < s;
      uint8_t* p = img.px(x, y);
      p[0] = p[1] = p[2] = in ? 255 : 0;
      p[3] = 255;
    }
  return img;
}

// Pixels whose channel c is above 8.
int lit(const ImageRGBA8& img, int c) {
  int n = 0;
  for (size_t i = 0; i < img.pixels(); ++i) n += img.data[i * 4 + size_t(c)] > 8;
  return n;
}

}  // namespace

TEST(Chromatic, RedAndBlueCocIsGreensPlusTheOffset) {
  Params p;
  p.aperture = 30.f, p.max_radius = 2047.f, p.focus = 0.3f, p.chromatic = 0.1f;
  const float off = chromatic_offset(p);
  EXPECT_NEAR(off, 0.1 * 30.0 / (1.0 + 0.3 * 9.0), 1e-5);
  const Params q = chromatic_pass(p);
  EXPECT_EQ(q.chromatic, 0.f);
  EXPECT_EQ(q.coc_offset, off);
  for (float d = 0.f; d <= 1.f; d += 1.f / 64.f)
    EXPECT_NEAR(coc_from_depth(d, q), coc_from_depth(d, p) + off, 1e-4f) << d;
  // At the focus plane green is sharp and red and blue are blurred by the offset; the clamp still binds.
  EXPECT_EQ(coc_from_depth(p.focus, p), 0.f);
  EXPECT_EQ(coc_from_depth(p.focus, q), off);
  Params c = q;
  c.max_radius = 2.f;
  EXPECT_EQ(coc_from_depth(0.f, c), 2.f);
  // In disparity mode too: the offset is chromatic K / z_focus.
  p.disparity = true;
  const float inv = 1.f / p.far_depth + p.focus * (1.f / p.near_depth - 1.f / p.far_depth);
  EXPECT_NEAR(chromatic_offset(p), 0.1f * 30.f * inv, 1e-5f);
}

// Every mode: green is the plain frame's, red and blue the offset pass's, byte for byte; 0 is the plain
// frame itself.
TEST(Chromatic, TheFrameIsGreensPassWithRedAndBlueFromTheirs) {
  const int w = 97, h = 61;
  const ImageRGBA8 img = test::random_image(w, h, test::fresh_seed());
  ImageF depth(w, h, 1);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) depth.at(x, y) = float((x * 7 + y * 3) % 50) / 49.f;
  for (const DofMode& m : dof_modes())
    for (const bool highlights : {false, true}) {
      Params p;
      p.dof_mode = m.name, p.aperture = 40.f, p.max_radius = 9.f, p.focus = 0.45f, p.highlights = highlights;
      p.highlight_threshold = 0.5f;
      const auto plain = test::ran_cpu_pipeline(img, depth, p);
      p.chromatic = 0.15f;
      const auto both = test::ran_cpu_pipeline(img, depth, p);
      const auto rb = test::ran_cpu_pipeline(img, depth, chromatic_pass(p));
      const ImageRGBA8 &a = plain->result(), &b = both->result(), &c = rb->result();
      ASSERT_EQ(b.data.size(), a.data.size());
      int differ = 0;
      for (size_t i = 0; i < a.pixels(); ++i) {
        ASSERT_EQ(b.data[i * 4 + 1], a.data[i * 4 + 1]) << m.name << " green at " << i;
        ASSERT_EQ(b.data[i * 4 + 3], a.data[i * 4 + 3]) << m.name << " alpha at " << i;
        ASSERT_EQ(b.data[i * 4], c.data[i * 4]) << m.name << " red at " << i;
        ASSERT_EQ(b.data[i * 4 + 2], c.data[i * 4 + 2]) << m.name << " blue at " << i;
        differ += b.data[i * 4] != a.data[i * 4];
      }
      EXPECT_GT(differ, int(a.pixels() / 10)) << m.name << ": red and blue did not change";
      EXPECT_EQ(both->coc().data, plain->coc().data) << m.name << ": the CoC shown is green's";
      bool named = false;
      for (const StageTiming& t : both->timings()) named |= t.name == "chromatic";
      EXPECT_TRUE(named) << m.name << ": no chromatic stage";
      p.chromatic = 0.f;
      EXPECT_EQ(test::ran_cpu_pipeline(img, depth, p)->result().data, a.data) << m.name;
    }
}

// A white square in front of the focus plane gets a purple rim (red and blue reach further than green),
// behind it a green rim; a negative amount swaps them.
TEST(Chromatic, TheFringesColourOrderReversesAcrossTheFocusPlane) {
  const int w = 96;
  const ImageRGBA8 img = white_square(w, 20);
  for (const float sign : {1.f, -1.f})
    for (const bool front : {true, false}) {
      // The square's depth everywhere but one black corner pixel at the other end, so that the depth
      // normalises to 0 (in front) or 1 (behind).
      ImageF depth(w, w, 1);
      for (float& d : depth.data) d = front ? 0.f : 1.f;
      depth.at(0, 0) = front ? 1.f : 0.f;
      Params p;
      p.focus = front ? 1.f : 0.f, p.aperture = 12.f, p.max_radius = 24.f, p.chromatic = 0.4f * sign;
      p.dof_mode = "spread";
      auto pipe = make_cpu_pipeline(2);
      pipe->set_image(img);
      pipe->set_depth(depth);
      pipe->set_params(p);
      pipe->run();
      const ImageRGBA8& out = pipe->result();
      const int r = lit(out, 0), g = lit(out, 1), b = lit(out, 2);
      const bool purple = (front ? 1.f : -1.f) * sign > 0.f;
      if (purple) {
        EXPECT_GT(r, g + 20) << (front ? "front" : "behind") << " sign " << sign;
        EXPECT_GT(b, g + 20);
      } else {
        EXPECT_GT(g, r + 20) << (front ? "front" : "behind") << " sign " << sign;
        EXPECT_GT(g, b + 20);
      }
      EXPECT_EQ(r, b);
    }
}

TEST(Chromatic, BadValuesAreRefused) {
  Params p;
  p.chromatic = 0.6f;
  try {
    validate(p);
    FAIL() << "0.6 accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("chromatic (--chromatic) must be in [-0.5, 0.5]"), std::string::npos);
  }
  p.chromatic = std::nanf("");
  EXPECT_THROW(validate(p), Error);
  p.chromatic = -0.5f;
  EXPECT_NO_THROW(validate(p));
}
