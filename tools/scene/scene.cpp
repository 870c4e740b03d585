#include "tools/scene/scene.hpp"

#include <algorithm>
#include <cstdint>

namespace satlab::scene {
namespace {

const V kColours[5] = {
    {1.0, 0.42, 0.1}, {1.0, 0.78, 0.28}, {0.28, 0.58, 1.0}, {1.0, 0.28, 0.48}, {0.4, 1.0, 0.45}};

Scene make_default() {
  Scene s;
  s.name = "default";
  s.spheres = {
      {{-1.55, 0.7, 3.3}, 0.7, {0.86, 0.24, 0.2}, 0, 40},     // near red
      {{0.55, 0.9, 6.2}, 0.9, {0.2, 0.52, 0.86}, 0, 60},      // middle blue (default focus)
      {{2.9, 0.6, 9.8}, 0.6, {0.95, 0.78, 0.3}, 0, 25},       // far gold
      {{-4.2, 1.2, 15.5}, 1.2, {0.3, 0.74, 0.42}, 0, 30},     // far green
      {{1.95, 0.35, 4.3}, 0.35, {0.92, 0.92, 0.94}, 0, 90},   // small near white
      {{-0.45, 0.22, 2.25}, 0.22, {0.55, 0.3, 0.75}, 0, 50},  // nearest: violet marble
  };
  s.boxes = {
      {{-3.7, 0.55, 7.2}, {0.55, 0.55, 0.55}, 0.5, {0.9, 0.55, 0.25}, 20},  // orange crate
      {{4.6, 1.6, 13.0}, {0.45, 1.6, 0.45}, -0.3, {0.75, 0.72, 0.68}, 0},   // stone pillar
      {{-1.3, 0.3, 11.5}, {0.8, 0.3, 0.4}, 0.25, {0.35, 0.4, 0.5}, 10},     // low slab
  };
  // Small bright lights: a string of them across the far backdrop, a few in the middle, two at the front.
  for (int i = 0; i < 15; ++i) {  // a sagging garland in front of the backdrop
    const double u = (i - 7) / 7.0;
    s.lights.push_back(
        {{u * 7.5, 3.4 - 1.0 * (1 - u * u) + 0.15 * std::sin(i * 2.1), 20.0}, 0.15, kColours[i % 5], 2.2, 0});
  }
  s.lights.push_back({{-0.9, 2.4, 10.5}, 0.08, kColours[1], 2.2, 0});
  s.lights.push_back({{3.4, 2.0, 8.0}, 0.08, kColours[2], 2.2, 0});
  s.lights.push_back({{0.35, 0.1, 2.0}, 0.05, kColours[0], 2.2, 0});
  s.lights.push_back({{-2.4, 0.12, 4.8}, 0.06, kColours[4], 2.2, 0});
  return s;
}

Scene make_occlusion() {
  Scene s;
  s.name = "occlusion";
  s.wall_z = 12.0;
  s.wall = Wall::Tiles;
  s.forward = norm({0, -0.04, 1});
  // Thin bright posts and a wire 2-4 units from the eye, a few objects in the middle distance.
  s.boxes = {
      {{-1.1, 1.2, 1.2}, {0.045, 1.2, 0.045}, 0.8, {0.95, 0.93, 0.88}, 30},  // white post, nearest
      {{0.9, 1.2, 1.9}, {0.035, 1.2, 0.035}, 0.7, {0.98, 0.82, 0.25}, 30},   // yellow post
      {{2.3, 1.2, 2.7}, {0.05, 1.2, 0.05}, 0.8, {0.3, 0.85, 0.95}, 30},      // cyan post
      {{0.2, 1.75, 1.6}, {2.6, 0.018, 0.018}, 0.08, {0.95, 0.4, 0.3}, 20},   // red wire across
      {{-0.25, 0.9, 2.2}, {0.025, 0.9, 0.025}, 0.8, {0.9, 0.9, 0.95}, 60},   // thin white rod
      {{-2.6, 0.5, 6.5}, {0.5, 0.5, 0.5}, 0.6, {0.55, 0.6, 0.7}, 10},        // grey crate, middle
  };
  s.spheres = {
      {{1.6, 0.45, 6.0}, 0.45, {0.25, 0.6, 0.35}, 0, 40},  // green ball, middle
      {{-1.5, 0.3, 3.0}, 0.3, {0.9, 0.3, 0.55}, 0, 60},    // pink marble behind the white post
  };
  // Small lights: a grid of them on the wall, two hanging in the middle, one close behind the posts.
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < 7; ++i)
      s.lights.push_back({{-4.5 + 1.5 * i + 0.4 * (j & 1), 0.9 + 1.25 * j, s.wall_z - 0.15},
                          0.09,
                          kColours[(i + 2 * j) % 5],
                          2.5,
                          0});
  s.lights.push_back({{-0.6, 2.3, 5.5}, 0.06, kColours[1], 2.5, 0});
  s.lights.push_back({{2.9, 1.6, 7.5}, 0.06, kColours[3], 2.5, 0});
  s.lights.push_back({{0.45, 0.9, 2.6}, 0.04, kColours[2], 2.5, 0});
  return s;
}

Scene make_points() {
  Scene s;
  s.name = "points";
  s.floor = false;
  s.wall = Wall::Black;
  s.wall_z = 100.0;
  s.eye = {0, 0, 0};
  s.forward = {0, 0, 1};
  // At 16:9 the frame spans x = +-1.026 z, y = +-0.577 z; the lights lie within 80% of it, each about
  // 2.6 px across at 384 x 216 whatever its depth (so the pinhole depth holds it: a light smaller than a
  // pixel would take the wall's depth, and the wall's blur).
  const double depths[4] = {1.5, 12.0, 2.5, 40.0}, t = std::tan(30.0 * M_PI / 180.0);
  for (int j = 0; j < 4; ++j)
    for (int i = 0; i < 7; ++i) {
      const double z = depths[j], u = -0.8 + 1.6 * i / 6.0, v = 0.8 - 1.6 * j / 3.0;
      s.lights.push_back({{u * t * 16.0 / 9.0 * z, v * t * z, z}, 0.007 * z, {1.0, 0.96, 0.9}, 2.5, 0});
    }
  return s;
}

void hit_sphere(const Sphere& s, V o, V d, Hit& h, Hit::Kind kind) {
  const V oc = o - s.c;
  const double b = dot(oc, d), c = dot(oc, oc) - s.r * s.r, disc = b * b - c;
  if (disc < 0) return;
  const double t = -b - std::sqrt(disc);
  if (t > 1e-4 && t < h.t) {
    h = Hit{};
    h.t = t;
    h.p = o + d * t;
    h.n = norm(h.p - s.c);
    h.albedo = s.albedo;
    h.emit = s.emit;
    h.shine = s.shine;
    h.kind = kind;
  }
}

void hit_box(const Box& b, V o, V d, Hit& h) {
  const double cs = std::cos(b.angle), sn = std::sin(b.angle);
  auto to_local = [&](V v) { return V{cs * v.x - sn * v.z, v.y, sn * v.x + cs * v.z}; };
  const V lo = to_local(o - b.c), ld = to_local(d);
  double tmin = -1e30, tmax = 1e30;
  int axis = 0;
  const double oo[3] = {lo.x, lo.y, lo.z}, dd[3] = {ld.x, ld.y, ld.z}, hh[3] = {b.half.x, b.half.y, b.half.z};
  for (int a = 0; a < 3; ++a) {
    if (std::fabs(dd[a]) < 1e-12) {
      if (std::fabs(oo[a]) > hh[a]) return;
      continue;
    }
    double t0 = (-hh[a] - oo[a]) / dd[a], t1 = (hh[a] - oo[a]) / dd[a];
    if (t0 > t1) std::swap(t0, t1);
    if (t0 > tmin) tmin = t0, axis = a;
    tmax = std::min(tmax, t1);
  }
  if (tmin > tmax || tmin <= 1e-4 || tmin >= h.t) return;
  V ln;
  const double s = dd[axis] > 0 ? -1 : 1;
  (axis == 0 ? ln.x : axis == 1 ? ln.y : ln.z) = s;
  h = Hit{};
  h.t = tmin;
  h.p = o + d * tmin;
  h.n = V{cs * ln.x + sn * ln.z, ln.y, -sn * ln.x + cs * ln.z};
  h.albedo = b.albedo;
  h.shine = b.shine;
  h.kind = Hit::Object;
}

// Fraction of the sun disk visible from p: 12 stratified rays over the disk (deterministic).
double sun_visibility(const Scene& s, V p) {
  const V u = norm(cross(s.sun, {0, 1, 0})), v = cross(u, s.sun);
  int lit = 0, n = 0;
  for (int ring = 1; ring <= 3; ++ring)
    for (int k = 0; k < 4; ++k, ++n) {
      const double a = (k + 0.5 * ring) * M_PI / 2, r = s.sun_radius * ring / 3.0;
      const V dir = norm(s.sun + u * (r * std::cos(a)) + v * (r * std::sin(a)));
      const Hit::Kind hit = trace(s, p, dir, false).kind;
      if (hit == Hit::None || hit == Hit::Wall) ++lit;
    }
  return double(lit) / n;
}

// Analytic occlusion of the sky by the spheres (soft contact shadows under them).
double occlusion(const Scene& s, V p, V n) {
  double vis = 1.0;
  for (const auto& sp : s.spheres) {
    const V l = sp.c - p;
    const double d2 = dot(l, l), cosine = dot(n, l) / std::sqrt(d2);
    if (cosine > 0) vis *= 1.0 - 0.9 * cosine * sp.r * sp.r / d2;
  }
  return vis;
}

double hash01(int64_t a, int64_t b) {
  uint64_t h = uint64_t(a) * 0x9E3779B97F4A7C15ull ^ (uint64_t(b) + 0x632BE59BD9B4E019ull);
  h ^= h >> 31;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 29;
  return double(h >> 11) * (1.0 / 9007199254740992.0);
}

V backdrop_dusk(V p) {
  const double h = std::min(std::max(p.y / 9.0, 0.0), 1.0);
  V col = mix(V{0.62, 0.45, 0.48}, V{0.16, 0.17, 0.33}, std::pow(h, 0.7));  // warm horizon to dusk blue
  const double waves = std::sin(p.x * 0.9 + 1.7 * std::sin(p.y * 0.6)) * std::sin(p.y * 1.4 - 0.3 * p.x);
  return col * (0.9 + 0.1 * waves);
}

// Staggered tiles of random hue and brightness with dark grout, each tile holding a finer pattern:
// detail at several scales, from a few pixels to a few dozen at the ground-truth resolution.
V backdrop_tiles(V p) {
  const double tw = 0.5, th = 0.25;
  const double row = std::floor(p.y / th);
  const double x = p.x / tw + 0.5 * (int64_t(row) & 1), col = std::floor(x);
  const double fx = x - col, fy = p.y / th - row;
  const double grout = 0.05;
  if (fx < grout || fy < grout * 2) return {0.05, 0.05, 0.06};
  const double a = hash01(int64_t(col), int64_t(row)), b = hash01(int64_t(row) + 77, int64_t(col) - 31);
  V base = mix(V{0.75, 0.32, 0.18}, V{0.2, 0.42, 0.7}, a);
  base = mix(base, V{0.85, 0.8, 0.62}, b * 0.6);
  const double stripes = 0.5 + 0.5 * std::sin((fx * 3 + fy * 5) * 2 * M_PI * (1 + int(a * 3)));
  const double large = 0.75 + 0.25 * std::sin(p.x * 0.7) * std::cos(p.y * 1.1);
  return base * ((0.55 + 0.45 * stripes) * large * 0.75);
}

V shade(const Scene& s, V d, const Hit& h, int bounce) {
  if (h.kind == Hit::None) return {0.16, 0.17, 0.33};
  if (h.kind == Hit::Light) return h.albedo * h.emit;
  if (h.kind == Hit::Wall)
    return s.wall == Wall::Dusk ? backdrop_dusk(h.p) : s.wall == Wall::Tiles ? backdrop_tiles(h.p) : V{};
  V albedo = h.albedo;
  double shine = h.shine, gloss = 0.15;
  if (h.kind == Hit::Floor) {
    // Checker contrast fades with distance, where the tiles get smaller than the pixel samples.
    const bool odd = (int(std::floor(h.p.x)) + int(std::floor(h.p.z))) & 1;
    const double fade = std::exp(-h.t / 14.0);
    const V a{0.84, 0.8, 0.72}, b{0.15, 0.17, 0.22}, avg = mix(a, b, 0.5);
    albedo = mix(avg, odd ? a : b, fade);
    shine = 12;
    gloss = 0.12;
  }
  const V p = h.p + h.n * 1e-4;
  const double sun = std::max(0.0, dot(h.n, s.sun)) * (dot(h.n, s.sun) > 0 ? sun_visibility(s, p) : 0.0);
  const double sky = (0.55 + 0.45 * h.n.y) * occlusion(s, h.p, h.n);
  V col = mul(albedo, V{1.0, 0.92, 0.8} * (1.1 * sun) + V{0.17, 0.18, 0.27} * sky);
  for (const auto& l : s.lights) {  // the small lights tint what is near them
    const V to = l.c - h.p;
    const double d2 = dot(to, to);
    col = col + mul(albedo, l.albedo) * (0.35 * std::max(0.0, dot(h.n, norm(to))) / (1.0 + 4.0 * d2));
  }
  const V r = d - h.n * (2 * dot(d, h.n));
  if (shine > 0) col = col + V{1, 0.95, 0.85} * (std::pow(std::max(0.0, dot(r, s.sun)), shine) * sun * 0.7);
  if (bounce == 0 && shine > 0) col = col * (1 - gloss) + shade(s, r, trace(s, p, r), 1) * gloss;
  return col;
}

}  // namespace

const Scene& default_scene() {
  static const Scene s = make_default();
  return s;
}

const Scene& occlusion_scene() {
  static const Scene s = make_occlusion();
  return s;
}

const Scene& points_scene() {
  static const Scene s = make_points();
  return s;
}

const std::vector<const Scene*>& scenes() {
  static const std::vector<const Scene*> all = {&default_scene(), &occlusion_scene()};
  return all;
}

const Scene* find_scene(const std::string& name) {
  for (const Scene* s : scenes())
    if (s->name == name) return s;
  return name == "points" ? &points_scene() : nullptr;
}

Hit trace(const Scene& s, V o, V d, bool with_lights) {
  Hit h;
  for (const auto& sp : s.spheres) hit_sphere(sp, o, d, h, Hit::Object);
  for (const auto& b : s.boxes) hit_box(b, o, d, h);
  if (with_lights)
    for (const auto& l : s.lights) hit_sphere(l, o, d, h, Hit::Light);
  if (s.floor && d.y < 0) {  // floor y = 0
    const double t = -o.y / d.y;
    if (t > 1e-4 && t < h.t) {
      h = Hit{};
      h.t = t;
      h.p = o + d * t;
      h.n = {0, 1, 0};
      h.kind = Hit::Floor;
    }
  }
  if (d.z > 0) {  // the far wall
    const double t = (s.wall_z - o.z) / d.z;
    if (t > 1e-4 && t < h.t) {
      h = Hit{};
      h.t = t;
      h.p = o + d * t;
      h.n = {0, 0, -1};
      h.kind = Hit::Wall;
    }
  }
  return h;
}

V radiance(const Scene& s, V o, V d) {
  return shade(s, d, trace(s, o, d), 0);
}

double tone(double v) {
  v = v / (1.0 + v * kToneShoulder);
  v = std::min(std::max(v, 0.0), 1.0);
  return v <= 0.0031308 ? 12.92 * v : 1.055 * std::pow(v, 1.0 / 2.4) - 0.055;
}

}  // namespace satlab::scene
