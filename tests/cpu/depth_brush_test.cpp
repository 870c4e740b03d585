// The depth brush (core/depth_brush): coverage, strokes, undo and redo.
#include "core/depth_brush.hpp"

#include <gtest/gtest.h>

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
