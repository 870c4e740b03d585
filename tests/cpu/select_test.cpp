// Subject selection (core/select.hpp): the geodesic passes against Dijkstra, and selections of known
// geometry.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <queue>
#include <random>

#include "core/error.hpp"
#include "core/select.hpp"
#include "core/select_pixel.hpp"

namespace satlab {
namespace {

struct Disc {
  float cx, cy, r;
  bool inside(int x, int y) const { return std::hypot(x + 0.5f - cx, y + 0.5f - cy) <= r; }
};

// Flat colour `fg` inside the discs, `bg` elsewhere, with uniform noise of +-noise per channel.
ImageRGBA8 discs_image(int w, int h, const std::vector<Disc>& discs, int noise = 0, uint32_t seed = 1) {
  ImageRGBA8 img(w, h);
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> n(-noise, noise);
  const int fg[3] = {200, 60, 40}, bg[3] = {40, 110, 180};
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      bool in = false;
      for (const Disc& d : discs) in = in || d.inside(x, y);
      for (int c = 0; c < 3; ++c) img.px(x, y)[c] = uint8_t(std::clamp((in ? fg[c] : bg[c]) + n(rng), 0, 255));
      img.px(x, y)[3] = 255;
    }
  return img;
}

double iou(const ImageF& alpha, const std::function<bool(int, int)>& truth) {
  size_t both = 0, either = 0;
  for (int y = 0; y < alpha.height; ++y)
    for (int x = 0; x < alpha.width; ++x) {
      const bool a = alpha.at(x, y) >= 0.5f, t = truth(x, y);
      both += a && t, either += a || t;
    }
  return either ? double(both) / double(either) : 1.0;
}

std::vector<uint32_t> dijkstra(int w, int h, const std::vector<uint32_t>& init, const std::vector<uint32_t>& ch,
                               const std::vector<uint32_t>& cv) {
  std::vector<uint32_t> d = init;
  using Item = std::pair<uint32_t, size_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<Item>> q;
  for (size_t k = 0; k < d.size(); ++k)
    if (d[k] != select::kGeoInf) q.push({d[k], k});
  while (!q.empty()) {
    const auto [dk, k] = q.top();
    q.pop();
    if (dk != d[k]) continue;
    const int i = int(k % size_t(w)), j = int(k / size_t(w));
    auto visit = [&](size_t kk, uint32_t step) {
      const uint32_t v = select::sat_add(dk, step);
      if (v < d[kk]) d[kk] = v, q.push({v, kk});
    };
    if (i > 0) visit(k - 1, ch[k]);
    if (i + 1 < w) visit(k + 1, ch[k + 1]);
    if (j > 0) visit(k - size_t(w), cv[k]);
    if (j + 1 < h) visit(k + size_t(w), cv[k + size_t(w)]);
  }
  return d;
}

TEST(Select, GeodesicPassesConvergeToDijkstraOnRandomImages) {
  std::mt19937 rng(7);
  for (auto [w, h] : std::vector<std::pair<int, int>>{{1, 1}, {1, 17}, {23, 1}, {13, 29}, {37, 31}}) {
    SelectWork work;
    work.width = w, work.height = h;
    work.rgb.resize(size_t(w) * size_t(h) * 3);
    for (uint8_t& v : work.rgb) v = uint8_t(rng() % 256);
    std::vector<uint32_t> ch, cv;
    select_edge_costs(work, 24, ch, cv);
    std::vector<uint32_t> init(size_t(w) * size_t(h), select::kGeoInf);
    init[rng() % init.size()] = 0;
    init[rng() % init.size()] = 5;
    const std::vector<uint32_t> want = dijkstra(w, h, init, ch, cv);
    std::vector<uint32_t> got = init;
    geodesic_passes(got.data(), w, h, ch.data(), cv.data(), 64, 2);
    EXPECT_EQ(got, want) << w << "x" << h;
  }
}

TEST(Select, ClickInsideAFlatDiscGivesTheDisc) {
  const Disc d{61.3f, 47.8f, 23.5f};
  const ImageRGBA8 img = discs_image(131, 97, {d});
  const Selection s = select_subject_cpu(img, {{61.f, 47.f, false}});
  EXPECT_FALSE(s.flood);
  EXPECT_GE(iou(s.alpha, [&](int x, int y) { return d.inside(x, y); }), 0.99);
  for (float a : s.alpha.data) ASSERT_TRUE(a >= 0.f && a <= 1.f);
}

TEST(Select, ClickOnTheBackgroundGivesItsComplement) {
  const Disc d{61.3f, 47.8f, 23.5f};
  const ImageRGBA8 img = discs_image(131, 97, {d});
  const Selection s = select_subject_cpu(img, {{5.f, 90.f, false}});
  EXPECT_TRUE(s.flood);
  EXPECT_GE(iou(s.alpha, [&](int x, int y) { return !d.inside(x, y); }), 0.99);
}

TEST(Select, AnImageOfOneColourIsSelectedWholeWithANote) {
  const ImageRGBA8 img = discs_image(40, 30, {});
  const Selection s = select_subject_cpu(img, {{10.f, 10.f, false}});
  for (float a : s.alpha.data) ASSERT_EQ(a, 1.f);
  EXPECT_NE(s.note.find("whole image"), std::string::npos) << s.note;
}

TEST(Select, NoisyDiscAtAReducedWorkingResolutionStaysWithinOnePercent) {
  const Disc d{301.f, 203.f, 120.f};
  const ImageRGBA8 img = discs_image(613, 421, {d}, 6, 3);
  SelectParams p;
  p.work_side = 160;  // scale 4: the matte brings the staircase back onto the disc's edge
  const Selection s = select_subject_cpu(img, {{300.f, 200.f, false}}, p);
  EXPECT_EQ(s.scale, 4);
  EXPECT_GE(iou(s.alpha, [&](int x, int y) { return d.inside(x, y); }), 0.99);
}

TEST(Select, SeveralSubjectsAndABackgroundClickThatRemovesOne) {
  const Disc a{40.f, 40.f, 18.f}, b{120.f, 60.f, 22.f};
  const ImageRGBA8 img = discs_image(171, 113, {a, b});
  const Selection both = select_subject_cpu(img, {{40.f, 40.f, false}, {120.f, 60.f, false}});
  EXPECT_GE(iou(both.alpha, [&](int x, int y) { return a.inside(x, y) || b.inside(x, y); }), 0.99);
  // A click on the first disc only selects it (the second is not connected to the click).
  const Selection one = select_subject_cpu(img, {{40.f, 40.f, false}});
  EXPECT_GE(iou(one.alpha, [&](int x, int y) { return a.inside(x, y); }), 0.99);
  // Both clicked, then the second subtracted by a background click on it.
  const Selection minus = select_subject_cpu(img, {{40.f, 40.f, false}, {120.f, 60.f, false}, {121.f, 61.f, true}});
  EXPECT_GE(iou(minus.alpha, [&](int x, int y) { return a.inside(x, y); }), 0.99);
}

TEST(Select, OddSizesGiveAMatteInRange) {
  std::mt19937 rng(11);
  for (auto [w, h] : std::vector<std::pair<int, int>>{{1, 1}, {1, 61}, {67, 1}, {2, 3}, {127, 131}}) {
    ImageRGBA8 img(w, h);
    for (uint8_t& v : img.data) v = uint8_t(rng() % 256);
    const Selection s = select_subject_cpu(img, {{float(w) / 2, float(h) / 2, false}});
    ASSERT_EQ(s.alpha.width, w);
    ASSERT_EQ(s.alpha.height, h);
    for (float v : s.alpha.data) ASSERT_TRUE(v >= 0.f && v <= 1.f);
  }
}

TEST(Select, AllWhiteImageOfManyCellsDoesNotOverflow) {
  ImageRGBA8 img(2049, 7);
  std::fill(img.data.begin(), img.data.end(), uint8_t(255));
  SelectParams p;
  p.work_side = 16;  // 129-pixel cells of all 255: the cell sums stay exact
  const Selection s = select_subject_cpu(img, {{3.f, 3.f, false}}, p);
  EXPECT_TRUE(s.flood);
  for (float v : s.alpha.data) ASSERT_EQ(v, 1.f);
}

TEST(Select, RefusesNoSubjectClickAndBadParameters) {
  const ImageRGBA8 img = discs_image(20, 20, {});
  EXPECT_THROW(select_subject_cpu(img, {{3.f, 3.f, true}}), Error);
  EXPECT_THROW(select_subject_cpu(img, {}), Error);
  SelectParams p;
  p.work_side = 4;
  EXPECT_THROW(select_subject_cpu(img, {{3.f, 3.f, false}}, p), Error);
  EXPECT_THROW(parse_select_params("work=9000"), Error);
  EXPECT_THROW(parse_select_params("bogus=1"), Error);
  EXPECT_EQ(parse_select_params("floor=10,likelihood=0").edge_floor, 10);
  EXPECT_THROW(parse_clicks("3;4", false), Error);
  EXPECT_THROW(parse_clicks("", false), Error);
  const auto c = parse_clicks("3,4;5.5,6", true);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_TRUE(c[1].background);
  EXPECT_FLOAT_EQ(c[1].x, 5.5f);
}

TEST(Select, OpenLayoutPutsTheSubjectNearAndTheRestFar) {
  const Disc d{50.f, 40.f, 20.f};
  const ImageRGBA8 img = discs_image(101, 81, {d});
  const std::vector<SelectClick> clicks = {{50.f, 40.f, false}};
  const Selection s = select_subject_cpu(img, clicks);
  float focus = -1;
  const ImageF depth = depth_from_selection(s, clicks, SubjectLayout::Open, &focus);
  EXPECT_EQ(focus, 0.f);
  EXPECT_EQ(depth.at(50, 40), 0.f);
  EXPECT_EQ(depth.at(2, 2), 1.f);
  const ImageF wall = depth_from_selection(s, clicks, SubjectLayout::Wall);
  EXPECT_EQ(wall.at(2, 2), kWallDepth);
  const ImageF floor = depth_from_selection(s, clicks, SubjectLayout::Floor, &focus);
  EXPECT_EQ(floor.at(2, 80), 0.f);                         // the bottom row: the nearest ground
  EXPECT_EQ(floor.at(2, 2), 1.f);                          // above the subject: the horizon
  EXPECT_NEAR(focus, float(80 - 59) / float(80 - 20), 0.03f);  // the ground at the disc's base
  EXPECT_EQ(floor.at(50, 40), focus);
}

}  // namespace
}  // namespace satlab
