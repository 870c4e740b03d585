// Generates the bundled default scene with a small deterministic ray tracer: a checker floor receding
// to a dusk backdrop, spheres and boxes at several depths, and small coloured lights (near, middle and
// far) whose blur shows the filter's square shape. Soft shadows from an area sun, contact occlusion
// and glossy reflections keep it pleasant to look at. Writes OUT_DIR/default.png (RGBA8) and
// OUT_DIR/default_depth.png (16-bit, exact camera-space depth of the pixel centre, normalised from the
// nearest to the farthest visible point).
//   gen_scene [OUT_DIR] [WIDTH HEIGHT]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "app/io/image_io.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"

namespace {

struct V {
  double x = 0, y = 0, z = 0;
};
V operator+(V a, V b) {
  return {a.x + b.x, a.y + b.y, a.z + b.z};
}
V operator-(V a, V b) {
  return {a.x - b.x, a.y - b.y, a.z - b.z};
}
V operator*(V a, double s) {
  return {a.x * s, a.y * s, a.z * s};
}
V mul(V a, V b) {
  return {a.x * b.x, a.y * b.y, a.z * b.z};
}
double dot(V a, V b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
V cross(V a, V b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
V norm(V a) {
  return a * (1.0 / std::sqrt(dot(a, a)));
}
V mix(V a, V b, double t) {
  return a * (1 - t) + b * t;
}

struct Sphere {
  V c;
  double r;
  V albedo;
  double emit;   // > 0: a light of colour albedo * emit
  double shine;  // Phong exponent of the sun highlight; 0: matte
};

// Boxes rotate about their vertical axis.
struct Box {
  V c, half;
  double angle;
  V albedo;
  double shine;
};

const std::vector<Sphere> kSpheres = {
    {{-1.55, 0.7, 3.3}, 0.7, {0.86, 0.24, 0.2}, 0, 40},     // near red
    {{0.55, 0.9, 6.2}, 0.9, {0.2, 0.52, 0.86}, 0, 60},      // middle blue (default focus)
    {{2.9, 0.6, 9.8}, 0.6, {0.95, 0.78, 0.3}, 0, 25},       // far gold
    {{-4.2, 1.2, 15.5}, 1.2, {0.3, 0.74, 0.42}, 0, 30},     // far green
    {{1.95, 0.35, 4.3}, 0.35, {0.92, 0.92, 0.94}, 0, 90},   // small near white
    {{-0.45, 0.22, 2.25}, 0.22, {0.55, 0.3, 0.75}, 0, 50},  // nearest: violet marble
};
const std::vector<Box> kBoxes = {
    {{-3.7, 0.55, 7.2}, {0.55, 0.55, 0.55}, 0.5, {0.9, 0.55, 0.25}, 20},  // orange crate
    {{4.6, 1.6, 13.0}, {0.45, 1.6, 0.45}, -0.3, {0.75, 0.72, 0.68}, 0},   // stone pillar
    {{-1.3, 0.3, 11.5}, {0.8, 0.3, 0.4}, 0.25, {0.35, 0.4, 0.5}, 10},     // low slab
};

// Small bright lights: a string of them across the far backdrop, a few in the middle, two at the front.
std::vector<Sphere> make_lights() {
  const V colours[5] = {
      {1.0, 0.42, 0.1}, {1.0, 0.78, 0.28}, {0.28, 0.58, 1.0}, {1.0, 0.28, 0.48}, {0.4, 1.0, 0.45}};
  std::vector<Sphere> l;
  for (int i = 0; i < 15; ++i) {  // a sagging garland in front of the backdrop
    const double u = (i - 7) / 7.0;
    l.push_back(
        {{u * 7.5, 3.4 - 1.0 * (1 - u * u) + 0.15 * std::sin(i * 2.1), 20.0}, 0.15, colours[i % 5], 2.2, 0});
  }
  l.push_back({{-0.9, 2.4, 10.5}, 0.08, colours[1], 2.2, 0});
  l.push_back({{3.4, 2.0, 8.0}, 0.08, colours[2], 2.2, 0});
  l.push_back({{0.35, 0.1, 2.0}, 0.05, colours[0], 2.2, 0});
  l.push_back({{-2.4, 0.12, 4.8}, 0.06, colours[4], 2.2, 0});
  return l;
}
const std::vector<Sphere> kLights = make_lights();

const double kWallZ = 26.0;
const V kSun = norm({-0.65, 0.62, -0.2});
const double kSunRadius = 0.06;  // angular radius: soft shadows

struct Hit {
  double t = 1e30;
  V p, n, albedo;
  double emit = 0, shine = 0;
  enum Kind { None, Object, Light, Floor, Wall } kind = None;
};

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

Hit trace(V o, V d, bool with_lights = true) {
  Hit h;
  for (const auto& s : kSpheres) hit_sphere(s, o, d, h, Hit::Object);
  for (const auto& b : kBoxes) hit_box(b, o, d, h);
  if (with_lights)
    for (const auto& s : kLights) hit_sphere(s, o, d, h, Hit::Light);
  if (d.y < 0) {  // floor y = 0
    const double t = -o.y / d.y;
    if (t > 1e-4 && t < h.t) {
      h = Hit{};
      h.t = t;
      h.p = o + d * t;
      h.n = {0, 1, 0};
      h.kind = Hit::Floor;
    }
  }
  if (d.z > 0) {  // backdrop
    const double t = (kWallZ - o.z) / d.z;
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

// Fraction of the sun disk visible from p: 12 stratified rays over the disk (deterministic).
double sun_visibility(V p) {
  const V u = norm(cross(kSun, {0, 1, 0})), v = cross(u, kSun);
  int lit = 0, n = 0;
  for (int ring = 1; ring <= 3; ++ring)
    for (int k = 0; k < 4; ++k, ++n) {
      const double a = (k + 0.5 * ring) * M_PI / 2, r = kSunRadius * ring / 3.0;
      const V dir = norm(kSun + u * (r * std::cos(a)) + v * (r * std::sin(a)));
      const Hit::Kind hit = trace(p, dir, false).kind;
      if (hit == Hit::None || hit == Hit::Wall) ++lit;
    }
  return double(lit) / n;
}

// Analytic occlusion of the sky by the spheres (soft contact shadows under them).
double occlusion(V p, V n) {
  double vis = 1.0;
  for (const auto& s : kSpheres) {
    const V l = s.c - p;
    const double d2 = dot(l, l), cosine = dot(n, l) / std::sqrt(d2);
    if (cosine > 0) vis *= 1.0 - 0.9 * cosine * s.r * s.r / d2;
  }
  return vis;
}

V backdrop(V p) {
  const double h = std::min(std::max(p.y / 9.0, 0.0), 1.0);
  V col = mix(V{0.62, 0.45, 0.48}, V{0.16, 0.17, 0.33}, std::pow(h, 0.7));  // warm horizon to dusk blue
  const double waves = std::sin(p.x * 0.9 + 1.7 * std::sin(p.y * 0.6)) * std::sin(p.y * 1.4 - 0.3 * p.x);
  return col * (0.9 + 0.1 * waves);
}

V shade(V o, V d, const Hit& h, int bounce = 0) {
  if (h.kind == Hit::None) return {0.16, 0.17, 0.33};
  if (h.kind == Hit::Light) return h.albedo * h.emit;
  if (h.kind == Hit::Wall) return backdrop(h.p);
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
  const double sun = std::max(0.0, dot(h.n, kSun)) * (dot(h.n, kSun) > 0 ? sun_visibility(p) : 0.0);
  const double sky = (0.55 + 0.45 * h.n.y) * occlusion(h.p, h.n);
  V col = mul(albedo, V{1.0, 0.92, 0.8} * (1.1 * sun) + V{0.17, 0.18, 0.27} * sky);
  for (const auto& l : kLights) {  // the small lights tint what is near them
    const V to = l.c - h.p;
    const double d2 = dot(to, to);
    col = col + mul(albedo, l.albedo) * (0.35 * std::max(0.0, dot(h.n, norm(to))) / (1.0 + 4.0 * d2));
  }
  const V r = d - h.n * (2 * dot(d, h.n));
  if (shine > 0) col = col + V{1, 0.95, 0.85} * (std::pow(std::max(0.0, dot(r, kSun)), shine) * sun * 0.7);
  if (bounce == 0 && shine > 0) col = col * (1 - gloss) + shade(p, r, trace(p, r), 1) * gloss;
  (void)o;
  return col;
}

double tonemap(double v) {
  v = v / (1.0 + v * 0.4);  // soft shoulder: lights saturate in their dominant channel, keep their hue
  return std::pow(std::min(std::max(v, 0.0), 1.0), 1.0 / 2.2);
}

}  // namespace

int main(int argc, char** argv) try {
  const std::string out = argc > 1 ? argv[1] : "assets";
  const int W = argc > 3 ? std::atoi(argv[2]) : 1280, H = argc > 3 ? std::atoi(argv[3]) : 720;
  if (W <= 0 || H <= 0) throw satlab::Error("usage: gen_scene [OUT_DIR] [WIDTH HEIGHT]");
  const V eye{0, 1.35, -1.0};
  const V fwd = norm({0, -0.1, 1}), right{1, 0, 0}, up = cross(fwd, right);
  const double fov = std::tan(0.5 * 60.0 * M_PI / 180.0);
  satlab::ImageRGBA8 img(W, H);
  satlab::ImageF depth(W, H, 1);
  auto ray = [&](double px, double py) {
    const double u = (2 * px / W - 1) * fov * W / H, v = (1 - 2 * py / H) * fov;
    return norm(fwd + right * u + up * v);
  };
  const int ss = 4;  // ss x ss supersampling for colour; depth from the pixel centre
  satlab::parallel_for(0, H, [&](long y0, long y1) {
    for (int y = int(y0); y < int(y1); ++y)
      for (int x = 0; x < W; ++x) {
        V acc;
        for (int sy = 0; sy < ss; ++sy)
          for (int sx = 0; sx < ss; ++sx) {
            const V d = ray(x + (sx + 0.5) / ss, y + (sy + 0.5) / ss);
            acc = acc + shade(eye, d, trace(eye, d));
          }
        acc = acc * (1.0 / (ss * ss));
        uint8_t* p = img.px(x, y);
        p[0] = uint8_t(std::lround(255 * tonemap(acc.x)));
        p[1] = uint8_t(std::lround(255 * tonemap(acc.y)));
        p[2] = uint8_t(std::lround(255 * tonemap(acc.z)));
        p[3] = 255;
        const V d = ray(x + 0.5, y + 0.5);
        depth.at(x, y) = float(std::min(trace(eye, d).t, 1e3) * dot(d, fwd));  // camera-space z
      }
  });
  const float lo = *std::min_element(depth.data.begin(), depth.data.end());
  const float hi = *std::max_element(depth.data.begin(), depth.data.end());
  for (auto& v : depth.data) v = (v - lo) / (hi - lo);
  satlab::io::save_png(out + "/default.png", img);
  satlab::io::save_png16(out + "/default_depth.png", depth);
  std::printf("wrote %s/default.png and %s/default_depth.png (%dx%d, camera depth %.2f..%.2f)\n", out.c_str(),
              out.c_str(), W, H, lo, hi);
  return 0;
} catch (const satlab::Error& e) {
  std::fprintf(stderr, "gen_scene: %s\n", e.what());
  return 1;
}
