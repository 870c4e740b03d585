// The depth brush (core/depth_brush): coverage, strokes, undo and redo.
#include "core/depth_brush.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace {

using namespace satlab;

TEST(DepthBrush, CoverageIsOneInsideZeroOutsideAndFallsSmoothlyOverTheFeather) {
  EXPECT_EQ(brush_coverage(0.f, 10.f, 0.5f), 1.f);
  EXPECT_EQ(brush_coverage(5.f, 10.f, 0.5f), 1.f);
  EXPECT_EQ(brush_coverage(10.f, 10.f, 0.5f), 0.f);
  EXPECT_NEAR(brush_coverage(7.5f, 10.f, 0.5f), 0.5f, 1e-6f);
  EXPECT_EQ(brush_coverage(9.99f, 10.f, 0.f), 1.f);  // no feather: a hard edge
  EXPECT_GT(brush_coverage(6.f, 10.f, 0.5f), brush_coverage(8.f, 10.f, 0.5f));
}

TEST(DepthBrush, AStrokePaintsItsValueAlongThePathAndNothingBeyondTheRadius) {
  ImageF d(40, 20, 1);
  for (float& v : d.data) v = 0.25f;
  BrushStroke s;
  s.radius = 4.f, s.value = 1.f, s.feather = 0.f;
  s.points = {{5.f, 10.f}, {30.f, 10.f}};
  paint_stroke(d, s);
  for (int x = 5; x <= 30; ++x) EXPECT_EQ(d.at(x, 10), 1.f) << x;
  EXPECT_EQ(d.at(17, 13), 1.f);
  EXPECT_EQ(d.at(17, 14), 0.25f);  // distance 4 = the radius: outside
  EXPECT_EQ(d.at(35, 10), 0.25f);
  EXPECT_EQ(d.at(0, 0), 0.25f);
}

TEST(DepthBrush, OverlappingSegmentsOfOneStrokeBlendOnce) {
  ImageF d(20, 20, 1);
  BrushStroke s;
  s.radius = 6.f, s.value = 1.f, s.feather = 1.f;
  s.points = {{10.f, 10.f}, {10.5f, 10.f}, {10.f, 10.f}};
  paint_stroke(d, s);
  ImageF once(20, 20, 1);
  BrushStroke dot = s;
  dot.points = {{10.f, 10.f}};
  paint_stroke(once, dot);
  EXPECT_NEAR(d.at(14, 10), once.at(14, 10), 0.2f);  // max coverage, not summed
  EXPECT_LE(d.at(15, 10), 1.f);
}

TEST(DepthBrush, UndoAndRedoRestoreTheDepth) {
  ImageF base(16, 16, 1);
  StrokeHistory h;
  BrushStroke a, b;
  a.radius = 3, a.value = 1, a.points = {{4, 4}};
  b.radius = 3, b.value = 0.5f, b.points = {{10, 10}};
  h.push(a);
  const ImageF after_a = h.paint(base);
  h.push(b);
  const ImageF after_b = h.paint(base);
  EXPECT_NE(after_a.data, after_b.data);
  EXPECT_TRUE(h.undo());
  EXPECT_EQ(h.paint(base).data, after_a.data);
  EXPECT_TRUE(h.redo());
  EXPECT_EQ(h.paint(base).data, after_b.data);
  EXPECT_FALSE(h.redo());
  EXPECT_TRUE(h.undo());
  h.push(a);  // a new stroke drops what was undone
  EXPECT_FALSE(h.redo());
  EXPECT_TRUE(h.undo() && h.undo());
  EXPECT_FALSE(h.undo());
  EXPECT_EQ(h.paint(base).data, base.data);
}

}  // namespace

namespace {

using namespace satlab;

// Dark left of x = 30, bright from it on, with a little noise: a sharp vertical edge of known geometry.
ImageRGBA8 edge_image(int w, int h) {
  ImageRGBA8 img(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const uint8_t n = uint8_t((x * 7 + y * 13) % 5);
      const uint8_t v = uint8_t(x < 30 ? 40 + n : 210 + n);
      img.px(x, y)[0] = v, img.px(x, y)[1] = v, img.px(x, y)[2] = uint8_t(v / 2), img.px(x, y)[3] = 255;
    }
  return img;
}

TEST(DepthBrush, ASnappedStrokeStopsAtASharpColourEdge) {
  const ImageRGBA8 img = edge_image(60, 40);
  ImageF d(60, 40, 1);
  for (float& v : d.data) v = 1.f;
  BrushStroke s;
  s.radius = 12.f, s.value = 0.f, s.feather = 0.f, s.mode = BrushStroke::Mode::Snap;
  s.points = {{24.f, 8.f}, {24.f, 32.f}};  // 6 px left of the edge: the footprint reaches 6 px past it
  paint_stroke(d, s, &img);
  for (int y = 10; y <= 30; ++y) {
    for (int x = 13; x < 30; ++x) ASSERT_EQ(d.at(x, y), 0.f) << x << "," << y;   // painted up to the edge
    for (int x = 30; x < 40; ++x) ASSERT_EQ(d.at(x, y), 1.f) << x << "," << y;   // nothing past it
  }
  // Without the image (or in Paint mode) the disc's sweep crosses the edge.
  ImageF plain(60, 40, 1);
  for (float& v : plain.data) v = 1.f;
  BrushStroke p = s;
  p.mode = BrushStroke::Mode::Paint;
  paint_stroke(plain, p, &img);
  EXPECT_EQ(plain.at(33, 20), 0.f);
}

TEST(DepthBrush, ASnappedStrokeOnAFlatRegionKeepsItsPaintedShape) {
  ImageRGBA8 img(50, 50);
  for (size_t i = 0; i < img.data.size(); ++i) img.data[i] = uint8_t(i % 4 == 3 ? 255 : 120 + (i / 4) % 7);
  ImageF snapped(50, 50, 1), plain(50, 50, 1);
  BrushStroke s;
  s.radius = 9.f, s.value = 1.f, s.feather = 0.5f, s.mode = BrushStroke::Mode::Snap;
  s.points = {{10.f, 10.f}, {40.f, 35.f}};
  paint_stroke(snapped, s, &img);
  BrushStroke p = s;
  p.mode = BrushStroke::Mode::Paint;
  paint_stroke(plain, p, &img);
  EXPECT_EQ(snapped.data, plain.data);
}

TEST(DepthBrush, AFillPaintsTheRegionUnderItsPoint) {
  const ImageRGBA8 img = edge_image(60, 40);
  ImageF d(60, 40, 1);
  BrushStroke s;
  s.radius = 2.f, s.value = 0.75f, s.mode = BrushStroke::Mode::Fill;
  s.points = {{45.f, 20.f}};
  paint_stroke(d, s, &img);
  EXPECT_EQ(d.at(59, 0), 0.75f);  // the whole bright half, far from the point
  EXPECT_EQ(d.at(31, 39), 0.75f);
  EXPECT_EQ(d.at(28, 20), 0.f);   // the dark half untouched
  EXPECT_EQ(d.at(0, 0), 0.f);
}

// What the app shows while a stroke is drawn (LiveStroke, a segment per frame) is what the stroke paints
// once finished, bit for bit: on two layers at once, in Snap and Paint modes, with points off the image.
TEST(DepthBrush, ALiveStrokePaintedSegmentBySegmentEqualsTheWholeStroke) {
  std::mt19937 rng(43);
  const ImageRGBA8 edges = edge_image(73, 41);
  ImageRGBA8 img = edges;
  for (size_t i = 0; i < img.data.size(); ++i)
    if (i % 4 != 3) img.data[i] = uint8_t(std::clamp(int(img.data[i]) + int(rng() % 9) - 4, 0, 255));
  LiveStroke painter;  // one painter for every stroke: reset() clears what the last one touched
  for (const BrushStroke::Mode mode : {BrushStroke::Mode::Snap, BrushStroke::Mode::Paint, BrushStroke::Mode::Snap}) {
    ImageF base(73, 41, 1), raw(73, 41, 1);
    for (float& v : base.data) v = float(rng() % 1000) / 999.f;
    for (float& v : raw.data) v = float(rng() % 1000) / 999.f;
    BrushStroke s;
    s.radius = 6.5f, s.value = 0.3f, s.feather = 0.4f, s.mode = mode;
    ImageF live = base, live_raw = raw;
    painter.reset();
    size_t painted = 0;
    for (int k = 0; k < 25; ++k) {
      s.points.emplace_back(float(int(rng() % 90) - 8), float(int(rng() % 56) - 7));
      painted += painter.extend(s, &img, {{&base, &live}, {&raw, &live_raw}});
    }
    EXPECT_EQ(painted, stroke_segments(s));
    EXPECT_EQ(painter.extend(s, &img, {{&base, &live}}), 0u);  // nothing new
    ImageF whole = base, whole_raw = raw;
    const StrokeCover c = stroke_cover(s, 73, 41, &img);
    apply_cover(whole, c, s.value);
    apply_cover(whole_raw, c, s.value);
    EXPECT_EQ(live.data, whole.data) << int(mode);
    EXPECT_EQ(live_raw.data, whole_raw.data) << int(mode);
    EXPECT_NE(live.data, base.data);  // the stroke painted something
  }
}

}  // namespace
