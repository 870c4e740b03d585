#include "tools/scene/render.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/parallel.hpp"

namespace satlab::scene {
namespace {

void store(uint8_t* p, V linear) {
  p[0] = uint8_t(std::lround(255 * tone(linear.x)));
  p[1] = uint8_t(std::lround(255 * tone(linear.y)));
  p[2] = uint8_t(std::lround(255 * tone(linear.z)));
  p[3] = 255;
}

// A deterministic value in [0, 1) from three integers.
double hash01(uint64_t a, uint64_t b, uint64_t c) {
  uint64_t h = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull) * 0xD6E8FEB86659FD93ull ^ c;
  h ^= h >> 32;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 29;
  h *= 0x94D049BB133111EBull;
  h ^= h >> 32;
  return double(h >> 11) * (1.0 / 9007199254740992.0);
}

// Calls row(y) for every y in [0, H) on the default threads, rows interleaved (thread t takes t, t + T, ...):
// the frame's rows cost very different amounts (sky against objects), so contiguous chunks leave most
// threads idle. Every pixel's value is independent of the thread that computes it.
template <typename Row>
void for_rows(int H, const Row& row) {
  const long T = std::min<long>(default_threads(), H);
  parallel_for(0, T, [&](long t0, long t1) {
    for (long t = t0; t < t1; ++t)
      for (long y = t; y < H; y += T) row(int(y));
  });
}

// Shirley and Chiu's concentric map of [0,1)^2 onto the unit disc (area-preserving, low distortion).
void concentric(double a, double b, double& x, double& y) {
  const double u = 2 * a - 1, v = 2 * b - 1;
  if (u == 0 && v == 0) {
    x = y = 0;
    return;
  }
  double r, phi;
  if (std::fabs(u) > std::fabs(v)) {
    r = u;
    phi = M_PI / 4 * (v / u);
  } else {
    r = v;
    phi = M_PI / 2 - M_PI / 4 * (u / v);
  }
  x = r * std::cos(phi);
  y = r * std::sin(phi);
}

}  // namespace

PinholeView render_pinhole(const Scene& s, const Camera& cam, int ss) {
  const int W = cam.width, H = cam.height;
  PinholeView v;
  v.image = ImageRGBA8(W, H);
  v.depth = ImageF(W, H, 1);
  for_rows(H, [&](int y) {
    for (int x = 0; x < W; ++x) {
      V acc;
      for (int sy = 0; sy < ss; ++sy)
        for (int sx = 0; sx < ss; ++sx) {
          const Ray r = cam.pinhole(x + (sx + 0.5) / ss, y + (sy + 0.5) / ss);
          acc = acc + radiance(s, r.o, r.d);
        }
      store(v.image.px(x, y), acc * (1.0 / (ss * ss)));
      const Ray r = cam.pinhole(x + 0.5, y + 0.5);
      v.depth.at(x, y) = float(std::min(trace(s, r.o, r.d).t, 1e3) * dot(r.d, cam.forward));
    }
  });
  v.lo = *std::min_element(v.depth.data.begin(), v.depth.data.end());
  v.hi = *std::max_element(v.depth.data.begin(), v.depth.data.end());
  if (!(v.hi > v.lo)) v.hi = v.lo + 1;
  for (auto& d : v.depth.data) d = float((d - v.lo) / (v.hi - v.lo));
  return v;
}

ImageRGBA8 render_thin_lens(const Scene& s, const Camera& cam, double lens_radius, double focus_z, int n,
                            const LensShape& shape) {
  const int W = cam.width, H = cam.height;
  const double q = shape.squeeze, sx = q >= 1 ? 1 : q, sy = q >= 1 ? 1 / q : 1;
  const double rot = shape.rotation_deg * M_PI / 180, cr = std::cos(rot), sr = std::sin(rot);
  const double h2 = shape.hole * shape.hole;
  const double focus_rb = focus_z / (1 - shape.chromatic);
  ImageRGBA8 img(W, H);
  for_rows(H, [&](int y) {
    std::vector<int> perm(size_t(n) * size_t(n));
    for (int x = 0; x < W; ++x) {
      const uint64_t pixel = uint64_t(y) * uint64_t(W) + uint64_t(x);
      // Each lens sample gets its own sub-pixel stratum through a per-pixel shuffle (Fisher-Yates
      // from the hash): lens and pixel positions are each stratified and independent of each other.
      for (int k = 0; k < n * n; ++k) perm[size_t(k)] = k;
      for (int k = n * n - 1; k > 0; --k)
        std::swap(perm[size_t(k)], perm[size_t(std::min(k, int(hash01(pixel, uint64_t(k), 5) * (k + 1))))]);
      // The cat-eye stop's centre for this pixel (as drawn behind focus): -A rho u.
      const double ox = x + 0.5 - 0.5 * W, oy = y + 0.5 - 0.5 * H, half = 0.5 * std::sqrt(double(W) * W + double(H) * H);
      const double stop_x = -shape.cat_eye * ox / half, stop_y = -shape.cat_eye * oy / half;
      const double stop_r2 = shape.cat_eye_scale * shape.cat_eye_scale;
      V acc;
      double weights = 0;
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
          const uint64_t k = uint64_t(i * n + j);
          double lu, lv, wt;
          if (shape.image) {  // the square, weighted by the picture
            lu = 2 * (i + hash01(pixel, k, 1)) / n - 1, lv = 2 * (j + hash01(pixel, k, 2)) / n - 1;
            wt = shape.image->at(lu, -lv);
            if (!(wt > 0)) continue;
          } else {
            concentric((i + hash01(pixel, k, 1)) / n, (j + hash01(pixel, k, 2)) / n, lu, lv);
            const double u1 = lu * lu + lv * lv;  // u' (uniform over the disc's area)
            wt = 1 + shape.profile * (2 * u1 - 1);
            if (shape.hole > 0 && u1 > 0) {  // onto the ring: u = h^2 + (1 - h^2) u'
              const double g = std::sqrt((h2 + (1 - h2) * u1) / u1);
              lu *= g, lv *= g;
            }
          }
          if (q != 1 || (shape.image && shape.rotation_deg != 0)) {  // the lens point as image coordinates (u, v), squeezed, turned, back to right/up
            const double u = sx * lu, v = sy * -lv;
            lu = cr * u - sr * v, lv = -(sr * u + cr * v);
          }
          if (shape.cat_eye > 0) {
            const double ex = lu - stop_x, ey = -lv - stop_y;
            if (ex * ex + ey * ey > stop_r2) continue;
          }
          const int si = perm[k] % n, sj = perm[k] / n;
          const double px = x + (si + hash01(pixel, k, 3)) / n, py = y + (sj + hash01(pixel, k, 4)) / n;
          const Ray r = cam.thin_lens(px, py, lu, lv, lens_radius, focus_z);
          V c = radiance(s, r.o, r.d);
          if (shape.chromatic != 0) {  // red and blue through their own focus
            const Ray rb = cam.thin_lens(px, py, lu, lv, lens_radius, focus_rb);
            const V q = radiance(s, rb.o, rb.d);
            c.x = q.x, c.z = q.z;
          }
          acc = acc + c * wt;
          weights += wt;
        }
      store(img.px(x, y), weights > 0 ? acc * (1.0 / weights) : V{});  // a picture missed by every sample: none
    }
  });
  return img;
}

}  // namespace satlab::scene
