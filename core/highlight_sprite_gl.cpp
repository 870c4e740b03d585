#include "core/highlight_sprite_gl.hpp"

#include <algorithm>

#include "core/dof_modes.hpp"
#include "core/error.hpp"
#include "core/highlights_pixel.hpp"

namespace satlab {

ApertureTable highlight_aperture(const Params& p) {
  Params shape = p;
  shape.aperture_shape = dof_mode_of(p).aperture(p);
  return aperture_table(shape, shaped_max_radius(p));
}

std::vector<hl::SpriteRecord> highlight_records(const ImageRGBA8& image, const ImageF& coc,
                                                const HighlightSprites& s, const Params& p) {
  if (coc.width != image.width || coc.height != image.height || s.key.size() != s.index.size())
    throw Error("highlight_records: CoC map, image or sprites do not match");
  const int w = image.width, h = image.height, max_r = shaped_max_radius(p);
  const ApertureTable ap = highlight_aperture(p);
  const uint16_t* lin = srgb_to_linear12(p.response_shoulder);
  const double clip_boost = highlight_clip_boost(p);
  std::vector<hl::SpriteRecord> out(1 + s.index.size());
  hl::draw_commands(uint32_t(s.index.size()), s.stats.far, reinterpret_cast<hl::DrawCommand*>(&out[0]));
  for (size_t k = 0; k < s.index.size(); ++k) {
    const uint32_t i = s.index[k];
    const int x = int(i % uint32_t(w)), y = int(i / uint32_t(w));
    const int r = dof::shaped_radius(coc.data[i], max_r);
    const uint32_t area =
        hl::clipped_area(ap.rects.data() + size_t(r) * dof::kMaxRects, ap.counts[size_t(r)], x, y, w, h);
    const uint8_t* px = image.data.data() + size_t(i) * 4;
    const double boost = (px[0] == 255 || px[1] == 255 || px[2] == 255) ? clip_boost : 1.0;
    hl::SpriteRecord& rec = out[1 + k];
    rec = {x, y, r, s.key[k] < hl::kNearKey ? 0 : 1, {0.f, 0.f, 0.f, 0.f}};
    for (int c = 0; c < 3; ++c) rec.e[c] = hl::energy(lin[px[c]], boost, area);
  }
  return out;
}

void highlight_splat_records(const std::vector<hl::SpriteRecord>& records, const ApertureTable& ap, int w,
                             int h, bool as_float, std::vector<double>& out) {
  const size_t n = size_t(w) * size_t(h);
  out.assign(2 * n * 4, 0.0);
  for (size_t k = 1; k < records.size(); ++k) {
    const hl::SpriteRecord& s = records[k];
    if (s.r < 0 || s.r > ap.max_r || s.slice < 0 || s.slice > 1)
      throw Error("highlight_splat_records: bad record");
    const dof::Rect* rects = ap.rects.data() + size_t(s.r) * dof::kMaxRects;
    for (int q = 0; q < ap.counts[size_t(s.r)]; ++q) {
      const dof::Rect rc = rects[q];
      for (int y = std::max(s.y + rc.y0, 0); y <= std::min(s.y + rc.y1, h - 1); ++y)
        for (int x = std::max(s.x + rc.x0, 0); x <= std::min(s.x + rc.x1, w - 1); ++x) {
          double* px = out.data() + (size_t(s.slice) * n + size_t(y) * size_t(w) + size_t(x)) * 4;
          for (int c = 0; c < 4; ++c) {
            const double v = c < 3 ? double(s.e[c]) : 1.0;
            px[c] = as_float ? double(float(px[c]) + float(v)) : px[c] + v;
          }
        }
    }
  }
}

}  // namespace satlab
