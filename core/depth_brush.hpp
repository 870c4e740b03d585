// The depth brush: strokes of a disc (radius, feathered edge) painted over a depth map in [0,1], with
// undo and redo. Rasterised on the CPU: each segment touches only its bounding box (plus the radius), so
// a stroke costs its area, fast enough while painting on the images the app edits live.
#pragma once
#include <cstddef>
#include <utility>
#include <vector>

#include "core/image.hpp"

namespace satlab {

struct BrushStroke {
  float radius = 16.f;   // pixels
  float value = 0.f;     // depth painted, [0,1] (0 near)
  float feather = 0.5f;  // fraction of the radius over which the coverage falls from 1 to 0
  std::vector<std::pair<float, float>> points;  // pixel centres, image coordinates
};

// Coverage at distance d from the stroke's path: 1 inside radius * (1 - feather), 0 beyond the radius,
// a smoothstep between.
float brush_coverage(float d, float radius, float feather);

// depth (1 channel) <- depth + (value - depth) * coverage, the coverage of a pixel the largest over the
// stroke's segments (so a stroke never paints over itself twice).
void paint_stroke(ImageF& depth, const BrushStroke& stroke);

// The strokes in order, undo moving the last to the redo list, a new stroke clearing that list.
class StrokeHistory {
 public:
  void push(BrushStroke s);
  bool undo();  // false when there is nothing to undo
  bool redo();
  void clear();
  const std::vector<BrushStroke>& strokes() const { return done_; }
  size_t redo_size() const { return undone_.size(); }
  // base with every stroke painted.
  ImageF paint(const ImageF& base) const;

 private:
  std::vector<BrushStroke> done_, undone_;
};

}  // namespace satlab
