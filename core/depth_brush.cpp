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
  std::vector<float>& cover = out.c;
  cover.assign(size_t(cw) * size_t(out.height), 0.f);
  const size_t segments = s.points.size() == 1 ? 1 : s.points.size() - 1;
  for (size_t k = 0; k < segments; ++k) {
    const auto [ax, ay] = s.points[k];
    const auto [qx, qy] = s.points[std::min(k + 1, s.points.size() - 1)];
    const float dx = qx - ax, dy = qy - ay, len2 = dx * dx + dy * dy;
    const int sx0 = std::max(bx0, int(std::floor(std::min(ax, qx) - s.radius)));
    const int sx1 = std::min(bx1, int(std::ceil(std::max(ax, qx) + s.radius)));
    const int sy0 = std::max(by0, int(std::floor(std::min(ay, qy) - s.radius)));
    const int sy1 = std::min(by1, int(std::ceil(std::max(ay, qy) + s.radius)));
    for (int y = sy0; y <= sy1; ++y)
      for (int x = sx0; x <= sx1; ++x) {
        const float px = float(x) - ax, py = float(y) - ay;
        const float t = len2 > 0.f ? std::clamp((px * dx + py * dy) / len2, 0.f, 1.f) : 0.f;
        const float ex = px - t * dx, ey = py - t * dy;
        float& c = cover[size_t(y - by0) * size_t(cw) + size_t(x - bx0)];
        c = std::max(c, brush_coverage(std::sqrt(ex * ex + ey * ey), s.radius, s.feather));
      }
  }
  if (follow && s.mode == BrushStroke::Mode::Snap) {
    const std::vector<uint8_t> keep = snap_mask(*image, s, bx0, by0, bx1, by1);
    for (size_t i = 0; i < cover.size(); ++i) cover[i] *= float(keep[i]);
  }
  return out;
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
