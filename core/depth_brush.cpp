#include "core/depth_brush.hpp"

#include <algorithm>
#include <cmath>

#include "core/select.hpp"
#include "core/select_pixel.hpp"

namespace satlab {

float brush_coverage(float d, float radius, float feather) {
  if (!(d < radius)) return 0.f;
  const float inner = radius * (1.f - std::clamp(feather, 0.f, 1.f));
  if (d <= inner) return 1.f;
  const float t = (radius - d) / (radius - inner);  // 1 at the inner edge, 0 at the radius
  return t * t * (3.f - 2.f * t);
}

namespace {

// Distance from (x, y) to the stroke's path (its segments; one point: that point).
float path_distance(const BrushStroke& s, float x, float y) {
  float best = INFINITY;
  const size_t segments = s.points.size() == 1 ? 1 : s.points.size() - 1;
  for (size_t k = 0; k < segments; ++k) {
    const auto [ax, ay] = s.points[k];
    const auto [qx, qy] = s.points[std::min(k + 1, s.points.size() - 1)];
    const float dx = qx - ax, dy = qy - ay, len2 = dx * dx + dy * dy;
    const float px = x - ax, py = y - ay;
    const float t = len2 > 0.f ? std::clamp((px * dx + py * dy) / len2, 0.f, 1.f) : 0.f;
    const float ex = px - t * dx, ey = py - t * dy;
    best = std::min(best, ex * ex + ey * ey);
  }
  return std::sqrt(best);
}

}  // namespace

std::vector<uint8_t> snap_mask(const ImageRGBA8& image, const BrushStroke& s, int x0, int y0, int x1, int y1) {
  // The footprint and a margin of two pixels: the ring the outside distances start from.
  const int m = 2;
  const int ax = std::max(0, x0 - m), ay = std::max(0, y0 - m);
  const int bx = std::min(image.width - 1, x1 + m), by = std::min(image.height - 1, y1 + m);
  const int w = bx - ax + 1, h = by - ay + 1;
  SelectWork work;
  work.width = w, work.height = h;
  work.rgb.resize(size_t(w) * size_t(h) * 3);
  std::vector<float> dist(size_t(w) * size_t(h));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const size_t k = size_t(y) * size_t(w) + size_t(x);
      for (int c = 0; c < 3; ++c) work.rgb[k * 3 + size_t(c)] = image.px(ax + x, ay + y)[c];
      dist[k] = path_distance(s, float(ax + x), float(ay + y));
    }
  const SelectParams p;
  std::vector<uint32_t> ch, cv;
  select_edge_costs(work, p.edge_floor, ch, cv);
  std::vector<uint32_t> in(dist.size(), select::kGeoInf), out(dist.size(), select::kGeoInf);
  for (size_t k = 0; k < dist.size(); ++k) {
    if (dist[k] <= 0.75f) in[k] = 0;  // the path
    if (dist[k] >= s.radius && dist[k] < s.radius + float(m)) out[k] = 0;  // the ring outside the footprint
  }
  geodesic_passes(in.data(), w, h, ch.data(), cv.data(), p.iterations, 1);
  geodesic_passes(out.data(), w, h, ch.data(), cv.data(), p.iterations, 1);
  const uint32_t edge = uint32_t(p.edge_threshold) * select::kEdgeWeight;
  std::vector<uint8_t> keep(size_t(x1 - x0 + 1) * size_t(y1 - y0 + 1), 1);
  for (int y = y0; y <= y1; ++y)
    for (int x = x0; x <= x1; ++x) {
      const size_t k = size_t(y - ay) * size_t(w) + size_t(x - ax);
      keep[size_t(y - y0) * size_t(x1 - x0 + 1) + size_t(x - x0)] = !(in[k] >= edge && out[k] < in[k]);
    }
  return keep;
}

size_t stroke_segments(const BrushStroke& s) { return s.points.empty() ? 0 : s.points.size(); }

namespace {

// Segment k of s (0: the dab at the first point) as a stroke of its own.
BrushStroke segment_of(const BrushStroke& s, size_t k) {
  BrushStroke g = s;
  g.points = k == 0 ? std::vector<std::pair<float, float>>{s.points[0]}
                    : std::vector<std::pair<float, float>>{s.points[k - 1], s.points[k]};
  return g;
}

// The pixels segment g (one point or two) can touch, clipped to the w x h image (x0 > x1: none).
struct Box {
  int x0, y0, x1, y1;
};
Box segment_box(const BrushStroke& g, int w, int h) {
  const auto [ax, ay] = g.points.front();
  const auto [qx, qy] = g.points.back();
  return {std::max(0, int(std::floor(std::min(ax, qx) - g.radius))),
          std::max(0, int(std::floor(std::min(ay, qy) - g.radius))),
          std::min(w - 1, int(std::ceil(std::max(ax, qx) + g.radius))),
          std::min(h - 1, int(std::ceil(std::max(ay, qy) + g.radius)))};
}

// Segment g's coverage (g: one point or two), snapped to `image`'s edges in Snap mode, max-combined into
// cover (the box x0, y0 of width cw, covering g's box).
void cover_segment(const BrushStroke& g, const ImageRGBA8* image, int w, int h, std::vector<float>& cover, int x0,
                   int y0, int cw) {
  const auto [ax, ay] = g.points.front();
  const auto [qx, qy] = g.points.back();
  const Box b = segment_box(g, w, h);
  const int sx0 = b.x0, sx1 = b.x1, sy0 = b.y0, sy1 = b.y1;
  if (sx0 > sx1 || sy0 > sy1) return;
  std::vector<uint8_t> keep;
  if (image && g.mode == BrushStroke::Mode::Snap) keep = snap_mask(*image, g, sx0, sy0, sx1, sy1);
  const float dx = qx - ax, dy = qy - ay, len2 = dx * dx + dy * dy;
  for (int y = sy0; y <= sy1; ++y)
    for (int x = sx0; x <= sx1; ++x) {
      if (!keep.empty() && !keep[size_t(y - sy0) * size_t(sx1 - sx0 + 1) + size_t(x - sx0)]) continue;
      const float px = float(x) - ax, py = float(y) - ay;
      const float t = len2 > 0.f ? std::clamp((px * dx + py * dy) / len2, 0.f, 1.f) : 0.f;
      const float ex = px - t * dx, ey = py - t * dy;
      float& c = cover[size_t(y - y0) * size_t(cw) + size_t(x - x0)];
      c = std::max(c, brush_coverage(std::sqrt(ex * ex + ey * ey), g.radius, g.feather));
    }
}

}  // namespace

StrokeCover stroke_cover(const BrushStroke& s, int w, int h, const ImageRGBA8* image) {
  StrokeCover out;
  if (w < 1 || h < 1 || s.points.empty() || !(s.radius > 0.f)) return out;
  const bool follow = image && image->width == w && image->height == h;
  if (follow && s.mode == BrushStroke::Mode::Fill) {  // the region under the first point: the selection's matte
    const Selection sel = select_subject_cpu(*image, {{s.points[0].first, s.points[0].second, false}});
    out.x0 = out.y0 = 0, out.width = w, out.height = h, out.c = sel.alpha.data;
    return out;
  }
  float x0 = s.points[0].first, x1 = x0, y0 = s.points[0].second, y1 = y0;
  for (const auto& [x, y] : s.points)
    x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
  const int bx0 = std::max(0, int(std::floor(x0 - s.radius))),
            by0 = std::max(0, int(std::floor(y0 - s.radius)));
  const int bx1 = std::min(w - 1, int(std::ceil(x1 + s.radius))),
            by1 = std::min(h - 1, int(std::ceil(y1 + s.radius)));
  if (bx0 > bx1 || by0 > by1) return out;
  const int cw = bx1 - bx0 + 1;
  out.x0 = bx0, out.y0 = by0, out.width = cw, out.height = by1 - by0 + 1;
  out.c.assign(size_t(cw) * size_t(out.height), 0.f);
  for (size_t k = 0; k < stroke_segments(s); ++k)
    cover_segment(segment_of(s, k), follow ? image : nullptr, w, h, out.c, bx0, by0, cw);
  return out;
}

void LiveStroke::reset() {
  painted_ = 0;
  for (int y = ty0_; y <= ty1_; ++y)
    std::fill(cover_.begin() + ptrdiff_t(size_t(y) * size_t(width_) + size_t(tx0_)),
              cover_.begin() + ptrdiff_t(size_t(y) * size_t(width_) + size_t(tx1_) + 1), 0.f);
  tx0_ = ty0_ = 0, tx1_ = ty1_ = -1;
}

void LiveStroke::prepare(int w, int h) {
  if (!cover_.empty() && width_ == w && height_ == h) return;
  cover_.assign(size_t(w) * size_t(h), 0.f), width_ = w, height_ = h;
  tx0_ = ty0_ = 0, tx1_ = ty1_ = -1;
}

size_t LiveStroke::extend(const BrushStroke& s, const ImageRGBA8* image, const std::vector<Layer>& layers) {
  if (layers.empty() || layers[0].base->empty() || !(s.radius > 0.f)) return 0;
  const int w = layers[0].base->width, h = layers[0].base->height;
  const bool follow = image && image->width == w && image->height == h;
  prepare(w, h);
  size_t n = 0;
  if (follow && s.mode == BrushStroke::Mode::Fill) {  // one region, whatever the path: painted once
    if (painted_ > 0 || s.points.empty()) return 0;
    const StrokeCover c = stroke_cover(s, w, h, image);
    for (const Layer& l : layers) *l.target = *l.base, apply_cover(*l.target, c, s.value);
    painted_ = 1;
    return 1;
  }
  for (; painted_ < stroke_segments(s); ++painted_, ++n) {
    const BrushStroke g = segment_of(s, painted_);
    cover_segment(g, follow ? image : nullptr, w, h, cover_, 0, 0, w);
    const Box b = segment_box(g, w, h);
    if (b.x0 > b.x1 || b.y0 > b.y1) continue;
    if (tx0_ > tx1_) tx0_ = b.x0, ty0_ = b.y0, tx1_ = b.x1, ty1_ = b.y1;
    tx0_ = std::min(tx0_, b.x0), ty0_ = std::min(ty0_, b.y0), tx1_ = std::max(tx1_, b.x1), ty1_ = std::max(ty1_, b.y1);
    for (const Layer& l : layers)
      for (int y = b.y0; y <= b.y1; ++y)
        for (int x = b.x0; x <= b.x1; ++x) {
          const float c = cover_[size_t(y) * size_t(w) + size_t(x)];
          const float b = l.base->at(x, y);
          l.target->at(x, y) = c > 0.f ? b + (s.value - b) * c : b;
        }
  }
  return n;
}

void apply_cover(ImageF& depth, const StrokeCover& cover, float value) {
  for (int y = 0; y < cover.height; ++y)
    for (int x = 0; x < cover.width; ++x) {
      const float c = cover.c[size_t(y) * size_t(cover.width) + size_t(x)];
      float& d = depth.at(cover.x0 + x, cover.y0 + y);
      if (c > 0.f) d += (value - d) * c;
    }
}

void paint_stroke(ImageF& depth, const BrushStroke& s, const ImageRGBA8* image) {
  if (depth.empty()) return;
  apply_cover(depth, stroke_cover(s, depth.width, depth.height, image), s.value);
}

void StrokeHistory::push(BrushStroke s) {
  done_.push_back(std::move(s));
  undone_.clear();
}

bool StrokeHistory::undo() {
  if (done_.empty()) return false;
  undone_.push_back(std::move(done_.back()));
  done_.pop_back();
  return true;
}

bool StrokeHistory::redo() {
  if (undone_.empty()) return false;
  done_.push_back(std::move(undone_.back()));
  undone_.pop_back();
  return true;
}

void StrokeHistory::clear() {
  done_.clear();
  undone_.clear();
}

ImageF StrokeHistory::paint(const ImageF& base, const ImageRGBA8* image) const {
  ImageF d = base;
  paint_onto({&d}, image);
  return d;
}

void StrokeHistory::paint_onto(const std::vector<ImageF*>& depths, const ImageRGBA8* image) const {
  if (depths.empty() || depths[0]->empty()) return;
  for (const BrushStroke& s : done_) {
    const StrokeCover c = stroke_cover(s, depths[0]->width, depths[0]->height, image);
    for (ImageF* d : depths) apply_cover(*d, c, s.value);
  }
}

}  // namespace satlab
