// The depth brush: strokes of a disc (radius, feathered edge) painted over a depth map in [0,1], with
// undo and redo. Rasterised on the CPU: each segment touches only its bounding box (plus the radius), so
// a stroke costs its area, fast enough while painting on the images the app edits live.
#pragma once
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/image.hpp"

namespace satlab {

struct BrushStroke {
  float radius = 16.f;   // pixels
  float value = 0.f;     // depth painted, [0,1] (0 near)
  float feather = 0.5f;  // fraction of the radius over which the coverage falls from 1 to 0
  std::vector<std::pair<float, float>> points;  // pixel centres, image coordinates
  // With the image given to paint_stroke: the stroke stops at the image's edges inside its footprint
  // (snap), or fills the region of the image its first point lies in (fill), whatever the radius.
  enum class Mode { Paint, Snap, Fill };
  Mode mode = Mode::Paint;
};

// Coverage at distance d from the stroke's path: 1 inside radius * (1 - feather), 0 beyond the radius,
// a smoothstep between.
float brush_coverage(float d, float radius, float feather);

// depth (1 channel) <- depth + (value - depth) * coverage, the coverage of a pixel the largest over the
// stroke's segments (so a stroke never paints over itself twice). `image` (the depth's size) makes Snap
// and Fill strokes follow its edges; without it (or in Paint mode) the stroke is the disc's sweep.
//  - Snap: core/select.hpp's geodesic distances on the stroke's footprint (its bounding box and a margin),
//    from the stroke's path and from the ring just outside the footprint: a footprint pixel the path
//    reaches only across an edge (edge_threshold of SelectParams), and that the ring reaches more cheaply,
//    is left unpainted. On a region without such an edge the stroke keeps its painted shape.
//  - Fill: the subject select of the whole image from a click at the first point (its alpha matte).
void paint_stroke(ImageF& depth, const BrushStroke& stroke, const ImageRGBA8* image = nullptr);
// paint_stroke in two steps, so that one coverage paints several depth maps of one size: the stroke's
// coverage over its box (Fill: the whole image), and depth <- depth + (value - depth) * coverage.
struct StrokeCover {
  int x0 = 0, y0 = 0, width = 0, height = 0;
  std::vector<float> c;  // width * height
};
StrokeCover stroke_cover(const BrushStroke& stroke, int width, int height, const ImageRGBA8* image = nullptr);
void apply_cover(ImageF& depth, const StrokeCover& cover, float value);
// A stroke's segments: the dab at its first point, then (p_k, p_{k+1}) for each later point. Its coverage is
// the largest of its segments', each segment's (Snap) cut by its own snap mask, so that painting a stroke
// segment by segment as it is drawn (LiveStroke) gives what painting it whole gives, bit for bit.
size_t stroke_segments(const BrushStroke& stroke);
// Which footprint pixels a Snap stroke keeps: 1 kept, 0 cut, over the box [x0, x1] x [y0, y1] (row-major).
std::vector<uint8_t> snap_mask(const ImageRGBA8& image, const BrushStroke& stroke, int x0, int y0, int x1, int y1);

// A stroke painted while it is drawn: each extend() covers only the segments added since the last call,
// so a frame costs its new segments, not the whole stroke (nor a copy of the image's depth). For each
// layer, target = base + (value - base) * coverage on the pixels the new segments touch; the targets must
// hold their bases when the stroke starts (reset()). The result equals apply_cover(base, stroke_cover).
class LiveStroke {
 public:
  void reset();  // a new stroke: clears only what the last one touched (the buffer is kept)
  // Makes the coverage buffer for a width x height image ahead of the first stroke (nothing if it has it).
  void prepare(int width, int height);
  struct Layer {
    const ImageF* base;
    ImageF* target;
  };
  // Returns the number of segments painted by this call.
  size_t extend(const BrushStroke& stroke, const ImageRGBA8* image, const std::vector<Layer>& layers);

 private:
  size_t painted_ = 0;
  int width_ = 0, height_ = 0;
  std::vector<float> cover_;  // the stroke's coverage so far, the image's size (allocated once per size)
  int tx0_ = 0, ty0_ = 0, tx1_ = -1, ty1_ = -1;  // the box the stroke has touched (tx0_ > tx1_: none)
};

// The strokes in order, undo moving the last to the redo list, a new stroke clearing that list.
class StrokeHistory {
 public:
  void push(BrushStroke s);
  bool undo();  // false when there is nothing to undo
  bool redo();
  void clear();
  const std::vector<BrushStroke>& strokes() const { return done_; }
  size_t redo_size() const { return undone_.size(); }
  // base with every stroke painted (Snap and Fill strokes following `image`'s edges where given).
  ImageF paint(const ImageF& base, const ImageRGBA8* image = nullptr) const;
  // Every stroke onto each of `depths` (one size), each stroke's coverage computed once.
  void paint_onto(const std::vector<ImageF*>& depths, const ImageRGBA8* image = nullptr) const;

 private:
  std::vector<BrushStroke> done_, undone_;
};

}  // namespace satlab
