// The generated scenes: a small deterministic ray tracer (spheres, boxes turned about their vertical
// axis, small emissive spheres as lights, an optional floor and a far wall) shared by the scene
// generator, the thin-lens ground truth and stereo pairs. Radiance is linear; tone() encodes it.
#pragma once
#include <cmath>
#include <string>
#include <vector>

namespace satlab::scene {

struct V {
  double x = 0, y = 0, z = 0;
};
inline V operator+(V a, V b) {
  return {a.x + b.x, a.y + b.y, a.z + b.z};
}
inline V operator-(V a, V b) {
  return {a.x - b.x, a.y - b.y, a.z - b.z};
}
inline V operator*(V a, double s) {
  return {a.x * s, a.y * s, a.z * s};
}
inline V mul(V a, V b) {
  return {a.x * b.x, a.y * b.y, a.z * b.z};
}
inline double dot(V a, V b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
inline V cross(V a, V b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
inline V norm(V a) {
  return a * (1.0 / std::sqrt(dot(a, a)));
}
inline V mix(V a, V b, double t) {
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

// The far wall's pattern: soft dusk gradient, fine detailed tiles, or black (the point lights' scene).
enum class Wall { Dusk, Tiles, Black };

struct Scene {
  std::string name;
  std::vector<Sphere> spheres;
  std::vector<Box> boxes;
  std::vector<Sphere> lights;
  bool floor = true;  // a checker floor at y = 0
  double wall_z = 26.0;
  Wall wall = Wall::Dusk;
  V sun = norm({-0.65, 0.62, -0.2});
  double sun_radius = 0.06;  // angular radius: soft shadows
  // The camera every view of this scene starts from (stereo views move its eye sideways).
  V eye{0, 1.35, -1.0};
  V forward = norm({0, -0.1, 1});
  double fov_deg = 60.0;  // vertical
};

// "default": spheres and boxes over a checker floor, a dusk backdrop, small lights near, middle and far.
// "occlusion": thin bright posts and a wire close to the camera in front of a finely tiled far wall
// with small lights on it: silhouettes and halos at every depth edge.
// "points": a grid of small white lights on black, 7 x 4 across the frame, each row at its own depth
// (1.5, 2.5, 12 and 40 units: in front of and behind the truth's focus at 6), for the bokeh's shapes.
const Scene& default_scene();
const Scene& occlusion_scene();
const Scene& points_scene();
const std::vector<const Scene*>& scenes();          // default and occlusion (points only by name)
const Scene* find_scene(const std::string& name);  // nullptr if unknown

struct Hit {
  double t = 1e30;
  V p, n, albedo;
  double emit = 0, shine = 0;
  enum Kind { None, Object, Light, Floor, Wall } kind = None;
};

Hit trace(const Scene& s, V o, V d, bool with_lights = true);
// Linear radiance arriving at o from direction d (d unit length).
V radiance(const Scene& s, V o, V d);

// Display encoding of linear radiance: a soft shoulder v / (1 + kToneShoulder v) (lights saturate in their
// dominant channel and keep their hue), clamped to [0, 1], then the exact sRGB transfer function: the
// camera response of Params::response_shoulder = kToneShoulder, which the ground truth's manifest records.
constexpr double kToneShoulder = 0.4;
double tone(double linear);

}  // namespace satlab::scene
