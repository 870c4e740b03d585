#include "core/depth_brush.hpp"

#include <algorithm>
#include <cmath>

namespace satlab {

float brush_coverage(float d, float radius, float feather) {
  if (!(d < radius)) return 0.f;
  const float inner = radius * (1.f - std::clamp(feather, 0.f, 1.f));
  if (d <= inner) return 1.f;
  const float t = (radius - d) / (radius - inner);  // 1 at the inner edge, 0 at the radius
  return t * t * (3.f - 2.f * t);
}

void paint_stroke(ImageF& depth, const BrushStroke& s) {
  if (depth.empty() || s.points.empty() || !(s.radius > 0.f)) return;
  const int w = depth.width, h = depth.height;
  float x0 = s.points[0].first, x1 = x0, y0 = s.points[0].second, y1 = y0;
  for (const auto& [x, y] : s.points)
    x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
  const int bx0 = std::max(0, int(std::floor(x0 - s.radius))),
            by0 = std::max(0, int(std::floor(y0 - s.radius)));
  const int bx1 = std::min(w - 1, int(std::ceil(x1 + s.radius))),
            by1 = std::min(h - 1, int(std::ceil(y1 + s.radius)));
  if (bx0 > bx1 || by0 > by1) return;
  const int cw = bx1 - bx0 + 1;
  std::vector<float> cover(size_t(cw) * size_t(by1 - by0 + 1), 0.f);
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
  for (int y = by0; y <= by1; ++y)
    for (int x = bx0; x <= bx1; ++x) {
      const float c = cover[size_t(y - by0) * size_t(cw) + size_t(x - bx0)];
      if (c > 0.f) depth.at(x, y) += (s.value - depth.at(x, y)) * c;
    }
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

ImageF StrokeHistory::paint(const ImageF& base) const {
  ImageF d = base;
  for (const BrushStroke& s : done_) paint_stroke(d, s);
  return d;
}

}  // namespace satlab
