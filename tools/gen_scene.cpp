// Generates the bundled default scene: a small deterministic ray tracer renders a checker floor
// receding into the distance, spheres at several depths, a backdrop, and small bright lights whose
// blur shows the filter's shape. Writes assets/default.png (RGBA8) and assets/default_depth.png
// (16-bit, exact camera-space depth normalised from the nearest to the farthest visible point).
//   gen_scene [OUT_DIR] [WIDTH HEIGHT]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "app/io/image_io.hpp"

namespace {

struct V {
  double x = 0, y = 0, z = 0;
};
V operator+(V a, V b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
V operator-(V a, V b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
V operator*(V a, double s) { return {a.x * s, a.y * s, a.z * s}; }
V mul(V a, V b) { return {a.x * b.x, a.y * b.y, a.z * b.z}; }
double dot(V a, V b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
V norm(V a) { return a * (1.0 / std::sqrt(dot(a, a))); }

struct Sphere {
  V c;
  double r;
  V albedo;
  double emit;  // > 0: a light, drawn at this brightness
  double shine;
};

const std::vector<Sphere> kSpheres = {
    {{-1.6, 0.7, 3.2}, 0.7, {0.85, 0.25, 0.2}, 0, 40},   // near red
    {{0.6, 0.9, 6.0}, 0.9, {0.2, 0.55, 0.85}, 0, 60},    // middle blue (default focus)
    {{2.8, 0.6, 9.5}, 0.6, {0.95, 0.8, 0.3}, 0, 20},     // far gold
    {{-3.5, 1.2, 14.0}, 1.2, {0.3, 0.75, 0.4}, 0, 30},   // far green
    {{1.9, 0.35, 4.2}, 0.35, {0.9, 0.9, 0.92}, 0, 90},   // small near white
    {{-0.6, 2.6, 16.0}, 0.12, {1.0, 0.75, 0.45}, 6, 0},  // lights: small and bright
    {{3.6, 3.0, 18.0}, 0.12, {1.0, 0.9, 0.7}, 6, 0},
    {{-5.0, 2.2, 17.0}, 0.12, {0.7, 0.85, 1.0}, 6, 0},
    {{0.4, 0.15, 2.2}, 0.06, {1.0, 0.5, 0.3}, 6, 0},
    {{-2.6, 0.15, 5.0}, 0.07, {0.6, 1.0, 0.7}, 6, 0},
};
const double kWallZ = 20.0;
const V kSun = norm({-0.5, 0.8, -0.35});

struct Hit {
  double t = 1e30;
  V p, n, albedo;
  double emit = 0, shine = 0;
  bool floor = false, wall = false;
};

Hit trace(V o, V d) {
  Hit h;
  for (const auto& s : kSpheres) {
    V oc = o - s.c;
    double b = dot(oc, d), c = dot(oc, oc) - s.r * s.r, disc = b * b - c;
    if (disc < 0) continue;
    double t = -b - std::sqrt(disc);
    if (t > 1e-4 && t < h.t) {
      h = Hit{};
      h.t = t;
      h.p = o + d * t;
      h.n = norm(h.p - s.c);
      h.albedo = s.albedo;
      h.emit = s.emit;
      h.shine = s.shine;
    }
  }
  if (d.y < 0) {  // floor y = 0
    double t = -o.y / d.y;
    if (t > 1e-4 && t < h.t) {
      h = Hit{};
      h.t = t;
      h.p = o + d * t;
      h.n = {0, 1, 0};
      h.floor = true;
    }
  }
  if (d.z > 0) {  // backdrop wall
    double t = (kWallZ - o.z) / d.z;
    if (t > 1e-4 && t < h.t) {
      h = Hit{};
      h.t = t;
      h.p = o + d * t;
      h.n = {0, 0, -1};
      h.wall = true;
    }
  }
  return h;
}

V shade(V o, V d, const Hit& h, int depth = 0) {
  if (h.t >= 1e29) return {0.6, 0.7, 0.9};
  if (h.emit > 0) return h.albedo * h.emit;
  V albedo = h.albedo;
  if (h.floor) {
    bool odd = (int(std::floor(h.p.x)) + int(std::floor(h.p.z))) & 1;
    albedo = odd ? V{0.85, 0.82, 0.75} : V{0.18, 0.2, 0.24};
  } else if (h.wall) {
    double band = 0.5 + 0.5 * std::sin(h.p.x * 1.3) * std::sin(h.p.y * 1.3);
    albedo = V{0.35, 0.3, 0.45} * (0.7 + 0.3 * band);
  }
  Hit sh = trace(h.p + h.n * 1e-3, kSun);
  double lit = (sh.t < 1e29 && sh.emit == 0) ? 0.0 : 1.0;
  double diff = std::max(0.0, dot(h.n, kSun)) * lit;
  V col = albedo * (0.18 + 0.85 * diff);
  // Warm glow from the small lights.
  for (const auto& s : kSpheres)
    if (s.emit > 0) {
      V l = s.c - h.p;
      double dist2 = dot(l, l);
      col = col + mul(albedo, s.albedo) * (0.25 * std::max(0.0, dot(h.n, norm(l))) / (1.0 + dist2));
    }
  if (h.shine > 0) {
    V r = d - h.n * (2 * dot(d, h.n));
    col = col + V{1, 1, 1} * (std::pow(std::max(0.0, dot(r, kSun)), h.shine) * lit * 0.8);
    if (depth == 0) {  // a faint reflection makes the spheres read as glossy
      Hit rh = trace(h.p + h.n * 1e-3, r);
      col = col * 0.85 + shade(h.p, r, rh, 1) * 0.15;
    }
  }
  (void)o;
  return col;
}

double tonemap(double v) {
  v = v / (1.0 + v * 0.25);  // soft shoulder, keeps the lights white-hot
  return std::pow(std::min(std::max(v, 0.0), 1.0), 1.0 / 2.2);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string out = argc > 1 ? argv[1] : "assets";
  const int W = argc > 3 ? std::atoi(argv[2]) : 1280, H = argc > 3 ? std::atoi(argv[3]) : 720;
  const V eye{0, 1.4, -1.0};
  const V fwd = norm({0, -0.12, 1}), right = norm({1, 0, 0}), up = norm({0, fwd.z, -fwd.y});
  const double fov = std::tan(0.5 * 60.0 * M_PI / 180.0);
  satlab::ImageRGBA8 img(W, H);
  satlab::ImageF depth(W, H, 1);
  const int ss = 3;  // ss x ss supersampling for colour; depth from the pixel centre
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      V acc;
      for (int sy = 0; sy < ss; ++sy)
        for (int sx = 0; sx < ss; ++sx) {
          double u = (2 * (x + (sx + 0.5) / ss) / W - 1) * fov * W / H;
          double v = (1 - 2 * (y + (sy + 0.5) / ss) / H) * fov;
          V d = norm(fwd + right * u + up * v);
          acc = acc + shade(eye, d, trace(eye, d));
        }
      acc = acc * (1.0 / (ss * ss));
      uint8_t* p = img.px(x, y);
      p[0] = uint8_t(std::lround(255 * tonemap(acc.x)));
      p[1] = uint8_t(std::lround(255 * tonemap(acc.y)));
      p[2] = uint8_t(std::lround(255 * tonemap(acc.z)));
      p[3] = 255;
      double u = (2 * (x + 0.5) / W - 1) * fov * W / H, v = (1 - 2 * (y + 0.5) / H) * fov;
      V d = norm(fwd + right * u + up * v);
      Hit h = trace(eye, d);
      depth.at(x, y) = float(std::min(h.t, 1e3) * dot(d, fwd));  // camera-space z
    }
  float lo = *std::min_element(depth.data.begin(), depth.data.end());
  float hi = *std::max_element(depth.data.begin(), depth.data.end());
  for (auto& v : depth.data) v = (v - lo) / (hi - lo);
  satlab::io::save_png(out + "/default.png", img);
  satlab::io::save_png16(out + "/default_depth.png", depth);
  std::printf("wrote %s/default.png and %s/default_depth.png (%dx%d, depth %.2f..%.2f)\n", out.c_str(),
              out.c_str(), W, H, lo, hi);
  return 0;
}
