// The spread mode's CPU reference (core/dof_spread.hpp).
#include "core/dof_spread.hpp"

#include <algorithm>
#include <cmath>

#include "core/dof.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/reference.hpp"

namespace satlab {

void spread_deltas(const ImageRGBA8& image, const ImageF& coc, const dof::Layers& layers,
                   const ApertureTable& ap, float shoulder, std::vector<std::vector<uint32_t>>& deltas,
                   int threads) {
  const int w = image.width, h = image.height, max_r = ap.max_r;
  const size_t n = image.pixels();
  deltas.resize(size_t(layers.count));
  const uint16_t* lin = srgb_to_linear12(shoulder);
  // Points of the plane, the frame's edges extended.
  const auto coc_at = [&](int x, int y) {
    const float c = coc.data[size_t(dof::clamp_to(y, h)) * size_t(w) + size_t(dof::clamp_to(x, w))];
    return c == c ? c : 0.f;
  };
  const auto lin_at = [&](int x, int y, uint32_t l[3]) {
    const uint8_t* px =
        image.data.data() + (size_t(dof::clamp_to(y, h)) * size_t(w) + size_t(dof::clamp_to(x, w))) * 4;
    for (int k = 0; k < 3; ++k) l[k] = lin[px[k]];
  };
  // Each point's split (dof::mixed_of) and hidden background (dof::hidden_of), once for all layers.
  const int pw = w + 2 * max_r, ph = h + 2 * max_r;
  std::vector<uint32_t> split(size_t(pw) * size_t(ph));
  std::vector<uint16_t> hidden(size_t(pw) * size_t(ph));
  parallel_for(
      0, ph,
      [&](long y0, long y1) {
        for (long py = y0; py < y1; ++py)
          for (int px = 0; px < pw; ++px) {
            const size_t i = size_t(py) * size_t(pw) + size_t(px);
            split[i] = dof::mixed_of(coc_at, lin_at, px - max_r, int(py) - max_r);
            hidden[i] = uint16_t(dof::hidden_of(coc_at, px - max_r, int(py) - max_r));
          }
      },
      threads);
  // One task per layer: each writes only its own layer's deltas.
  parallel_for(
      0, layers.count,
      [&](long j0, long j1) {
        for (long j = j0; j < j1; ++j) {
          std::vector<uint32_t>& d = deltas[size_t(j)];
          d.assign(n * 4, 0u);
          // The frame's pixels and the virtual ones around it (dof::outside; each the frame's pixel at the
          // clamped position) within max_r of it: no farther one reaches the frame. Each splats its
          // fragments of layer j: the pixel, or its two shares where it is a mixed pixel (dof::mixed_of),
          // and where it is a thin near object's, the background hidden behind it (dof::hidden_of, whole).
          for (int vy = -max_r; vy < h + max_r; ++vy)
            for (int vx = -max_r; vx < w + max_r; ++vx) {
              const uint32_t m = split[size_t(vy + max_r) * size_t(pw) + size_t(vx + max_r)],
                             s = dof::mixed_share(m),
                             hb = hidden[size_t(vy + max_r) * size_t(pw) + size_t(vx + max_r)];
              for (int f = 0; f < 3; ++f) {
                const uint32_t share = f == 2 ? (hb ? 256u : 0u) : f ? s : 256u - s;
                if (!share) continue;
                const float c =
                    f == 2 ? dof::hidden_coc(coc_at, hb, vx, vy)
                    : f ? coc_at(vx + dof::mixed_dx(dof::mixed_dir(m)), vy + dof::mixed_dy(dof::mixed_dir(m)))
                        : coc_at(vx, vy);
                if (dof::layer_of(c, layers) != int(j)) continue;
                const dof::Splat sp = dof::splat_of(c, max_r);
                if (dof::outside(vx, vy, w, h) > dof::splat_reach(sp)) continue;
                uint32_t l[3];
                if (f < 2)
                  dof::fragment_colour(f, m, lin_at, vx, vy, l);
                else
                  dof::hidden_colour(lin_at, hb, vx, vy, l);
                dof::splat_fragment(
                    [&](int X, int Y, int k, uint32_t v) {
                      d[(size_t(Y) * size_t(w) + size_t(X)) * 4 + size_t(k)] += v;
                    },
                    l, sp, share, ap.rects.data(), ap.counts.data(), vx, vy, w, h);
              }
            }
        }
      },
      threads);
}

ApertureTable merge_bands(const ApertureTable& t) {
  ApertureTable m = t;
  for (int r = 0; r <= t.max_r; ++r) {
    const dof::Rect* in = t.rects.data() + size_t(r) * dof::kMaxRects;
    dof::Rect* out = m.rects.data() + size_t(r) * dof::kMaxRects;
    int n = 0;
    for (int i = 0; i < t.counts[size_t(r)]; ++i) {
      if (n > 0 && out[n - 1].x0 == in[i].x0 && out[n - 1].x1 == in[i].x1 && out[n - 1].y1 + 1 == in[i].y0)
        out[n - 1].y1 = in[i].y1;
      else
        out[n++] = in[i];
    }
    for (int i = n; i < dof::kMaxRects; ++i) out[i] = dof::Rect{0, 0, 0, 0};
    m.counts[size_t(r)] = uint8_t(n);
  }
  return m;
}

namespace {

// Inclusive 2D prefix sums in place, uint32 with wrap-around.
void sat_u32_inplace(uint32_t* d, int w, int h, int channels) {
  for (int y = 0; y < h; ++y) {
    uint32_t* row = d + size_t(y) * size_t(w) * size_t(channels);
    for (int x = 1; x < w; ++x)
      for (int k = 0; k < channels; ++k) row[size_t(x) * channels + k] += row[size_t(x - 1) * channels + k];
    if (y > 0) {
      const uint32_t* above = row - size_t(w) * size_t(channels);
      for (size_t i = 0; i < size_t(w) * size_t(channels); ++i) row[i] += above[i];
    }
  }
}

}  // namespace

void dof_spread_blur(const ImageRGBA8& image, const ImageF& coc, const Params& p, ImageRGBA8& out,
                     int threads, const DepthHistogram* depth,
                     const std::function<void(const char*)>& phase) {
  if (coc.width != image.width || coc.height != image.height || coc.channels != 1)
    throw Error("dof_spread_blur: CoC map size does not match the image");
  const auto to = [&](const char* name) {
    if (phase) phase(name);
  };
  to("spread");
  const int w = image.width, h = image.height, max_r = shaped_max_radius(p);
  const dof::Layers layers = frame_layers(p, p.dof_layers, depth);
  const ApertureTable ap = aperture_table(p, max_r);
  std::vector<std::vector<uint32_t>> spread;
  spread_deltas(image, coc, layers, ap, p.response_shoulder, spread, threads);
  to("sat");
  parallel_for(
      0, layers.count,
      [&](long j0, long j1) {
        for (long j = j0; j < j1; ++j) sat_u32_inplace(spread[size_t(j)].data(), w, h, 4);
      },
      threads);
  // The fill tables: table t = (12-bit linear colour, 1) over the pixels of layers 0..t, t < count - 1, each
  // element a block of kFillBlock x kFillBlock pixels (dof::spread_pixel).
  if (layers.count > 1) to("fill");
  const uint16_t* lin = srgb_to_linear12(p.response_shoulder);
  std::vector<std::vector<uint32_t>> tables(size_t(std::max(layers.count - 1, 0)));
  const int bw = dof::fill_blocks(w), bh = dof::fill_blocks(h);
  std::vector<uint16_t> src(size_t(bw) * size_t(bh) * 4);
  for (int t = 0; t + 1 < layers.count; ++t) {
    std::fill(src.begin(), src.end(), uint16_t(0));
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const size_t i = size_t(y) * size_t(w) + size_t(x);
        const float c = coc.data[i];
        if (dof::layer_of(c == c ? c : 0.f, layers) > t) continue;
        uint16_t* b =
            src.data() + (size_t(y / dof::kFillBlock) * size_t(bw) + size_t(x / dof::kFillBlock)) * 4;
        const uint8_t* px = image.data.data() + i * 4;
        for (int k = 0; k < 3; ++k) b[k] = uint16_t(b[k] + lin[px[k]]);
        b[3] = uint16_t(b[3] + 1);
      }
    sat_u16(src.data(), bw, bh, 4, tables[size_t(t)], threads);
  }
  const auto tap = [&](int t, int x, int y) {
    dof::Sum4 s = {{0u, 0u, 0u, 0u}};
    if (x < 0 || y < 0) return s;
    const uint32_t* v = tables[size_t(t)].data() + (size_t(y) * size_t(bw) + size_t(x)) * 4;
    for (int k = 0; k < 4; ++k) s.c[k] = v[k];
    return s;
  };
  to("composite");
  if (out.width != w || out.height != h) out = ImageRGBA8(w, h);
  const uint8_t* enc = linear12_to_srgb(p.response_shoulder);
  const int reach = dof::fill_reach(shaped_max_radius(p));
  parallel_for(
      0, h,
      [&](long y0, long y1) {
        for (int y = int(y0); y < int(y1); ++y)
          for (int x = 0; x < w; ++x) {
            const size_t i = size_t(y) * size_t(w) + size_t(x);
            const auto at = [&](int j) {
              dof::Sum4 s;
              for (int k = 0; k < 4; ++k) s.c[k] = spread[size_t(j)][i * 4 + size_t(k)];
              return s;
            };
            float v[3];
            dof::spread_pixel(at, tap, layers.count, layers.edge, reach, x, y, w, h, v);
            uint8_t* o = out.px(x, y);
            for (int k = 0; k < 3; ++k) o[k] = dof::encode(v[k], true, enc);
            o[3] = image.px(x, y)[3];
          }
      },
      threads);
}

int dof_spread_halo(const DofMode&, const Params& p) {
  const int max_r = shaped_max_radius(p);
  return std::max(max_r + dof::kHiddenGap, dof::fill_reach(max_r) + dof::kFillBlock - 1);
}

void dof_spread_cpu(const DofMode&, const DofCpuArgs& a) {
  dof_spread_blur(*a.image, *a.coc, *a.params, *a.out, a.threads, a.depth, a.phase);
}

}  // namespace satlab
