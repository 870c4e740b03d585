// Thin-lens ground truth of photographs as planes and cut-outs (issue 43's truth set), for `satlab
// quality --cases DIR/cases.json`: each scene is a photograph as the background plane and cut-outs at
// nearer depths (discs, rounded boxes, stars, a furry blob, a head of hair, leaves, grass blades, a thin
// pole), textured with other photographs or stripes, with soft edges where fur, hair and blades have them. Every plane faces the camera, so
// a thin lens shows each through a lens point u as the pinhole view shifted by its CoC c = K (1/z - 1/z_f)
// times u: the reference averages those composites (front to back, by alpha) over lens samples, in linear
// light, then applies the camera response of the other cases (tone(), shoulder 0.4). Exact depth: the
// nearest plane whose alpha is at least 1/2.
//
//   gen_cutouts PHOTO_DIR OUT_DIR --set tuning|heldout [--lens N] [--sequence]
//
// --sequence: instead, a clip of the set's photographs (issue 45's truth sequences): kFrames frames at
// kFps in which the nearest cut-out crosses the frame by kStep px a frame over a still scene, one focus;
// each frame a case with "sequence", "frame", "fps" and (after the first) "motion", for `satlab quality --video`.
//
// PHOTO_DIR holds the photographs (Debian's python3-skimage data: rocket.jpg, astronaut.png, gravel.png,
// brick.png, ihc.png, camera.png, motorcycle_left.png for the tuning set; hubble_deep_field.jpg, chelsea.png, grass.png, coffee.png for the held-out
// set; all public domain or CC0). No photograph and no shape generator is in both sets. Writes SCENE.png,
// SCENE_depth.png, SCENE_objects.png (0 background, k object k), CASE.png and cases.json, whose cases also
// give one click inside each object ("clicks") for subject select.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/io/image_io.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "tools/scene/scene.hpp"

namespace {

using namespace satlab;

constexpr int kW = 384, kH = 256;
constexpr double kShoulder = satlab::scene::kToneShoulder;

double srgb_to_linear(double s) { return s <= 0.04045 ? s / 12.92 : std::pow((s + 0.055) / 1.055, 2.4); }
// The radiance whose tone() is the stored value (below the shoulder's ceiling).
double radiance_of(uint8_t v) {
  const double l = std::min(srgb_to_linear(v / 255.0), 0.97);
  return l / (1.0 - kShoulder * l);
}

struct Layer {
  std::vector<float> rgb, alpha;  // linear radiance, coverage; kW x kH
  double z = 1;
  bool extend = false;  // the background plane: sampled clamped (a lens sees past the frame)
  int dx = 0;           // moved right by this many pixels (a sequence's frame)
};

constexpr int kFrames = 10, kStep = 14;
constexpr double kDisparity = 60;  // a sequence's right view: disparity kDisparity / z px (24 px at z 2.5)
constexpr double kFps = 24;

// The photograph centre-cropped to the frame's aspect and resampled to it, as radiance; `tint` scales a
// grey texture's channels.
std::vector<float> photo(const std::string& path, const double tint[3]) {
  const ImageRGBA8 img = io::load_image(path);
  const double aspect = double(kW) / kH;
  int cw = img.width, ch = int(std::lround(cw / aspect));
  if (ch > img.height) ch = img.height, cw = int(std::lround(ch * aspect));
  const int x0 = (img.width - cw) / 2, y0 = (img.height - ch) / 2;
  std::vector<float> out(size_t(kW) * kH * 3);
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x) {
      const int sx = x0 + std::min(cw - 1, x * cw / kW), sy = y0 + std::min(ch - 1, y * ch / kH);
      const uint8_t* p = img.px(sx, sy);
      for (int c = 0; c < 3; ++c) out[(size_t(y) * kW + x) * 3 + c] = float(radiance_of(p[c]) * tint[c]);
    }
  return out;
}

// Coverage of a shape given as inside(x, y) (sub-pixel), 4 x 4 samples a pixel.
std::vector<float> coverage(const std::function<double(double, double)>& inside) {
  std::vector<float> a(size_t(kW) * kH);
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x) {
      double s = 0;
      for (int j = 0; j < 4; ++j)
        for (int i = 0; i < 4; ++i) s += inside(x + (i + 0.5) / 4, y + (j + 0.5) / 4);
      a[size_t(y) * kW + x] = float(s / 16);
    }
  return a;
}

double hash(int i) {
  uint32_t h = uint32_t(i) * 2654435761u;
  h ^= h >> 15, h *= 2246822519u, h ^= h >> 13;
  return (h & 0xffffff) / double(0x1000000);
}

// Shape generators: each returns the coverage of a point (0..1; soft ones between).
auto disc(double cx, double cy, double r) {
  return [=](double x, double y) { return (x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r ? 1.0 : 0.0; };
}
auto rounded_box(double x0, double y0, double x1, double y1, double r) {
  return [=](double x, double y) {
    const double dx = std::max({x0 + r - x, 0.0, x - (x1 - r)}), dy = std::max({y0 + r - y, 0.0, y - (y1 - r)});
    return dx * dx + dy * dy <= r * r ? 1.0 : 0.0;
  };
}
auto star(double cx, double cy, double r_out, double r_in, double turn) {
  return [=](double x, double y) {
    const double a = std::atan2(y - cy, x - cx) - turn, d = std::hypot(x - cx, y - cy);
    const double k = std::fmod(std::fmod(a / (2 * M_PI / 5), 1.0) + 1.0, 1.0);  // position within a point
    const double t = std::fabs(k - 0.5) * 2;                                      // 1 at a tip, 0 between
    return d <= r_in + (r_out - r_in) * t ? 1.0 : 0.0;
  };
}
// A blob whose edge is fur: the radius wanders with the angle, and past the skin hairs thin out.
auto fur(double cx, double cy, double rx, double ry) {
  return [=](double x, double y) {
    const double a = std::atan2((y - cy) / ry, (x - cx) / rx);
    const double d = std::hypot((x - cx) / rx, (y - cy) / ry);
    double wobble = 0;
    for (int k = 1; k <= 4; ++k) wobble += 0.04 / k * std::sin(k * 3 * a + 7 * hash(k));
    const double skin = 0.9 + wobble;
    if (d <= skin) return 1.0;
    const int strand = int((a + M_PI) / (2 * M_PI) * 900);
    const double length = 0.05 + 0.12 * hash(strand);
    return d <= skin + length ? 0.35 + 0.5 * hash(strand + 7919) : 0.0;
  };
}
// Grass blades from the bottom edge, each a thin tapering line.
auto blades(double x0, double x1, int n, double height) {
  return [=](double x, double y) {
    double c = 0;
    for (int i = 0; i < n; ++i) {
      const double bx = x0 + (x1 - x0) * (i + 0.5) / n, lean = (hash(i) - 0.5) * 0.6, top = kH - height * (0.6 + 0.4 * hash(i + 99));
      if (y < top) continue;
      const double t = (kH - y) / (kH - top);  // 0 at the root, 1 at the tip
      const double cxl = bx + lean * (kH - y), w = 1.6 * (1 - t) + 0.3;
      c = std::max(c, std::clamp(w - std::fabs(x - cxl), 0.0, 1.0));
    }
    return c;
  };
}
// A head of long hair (tuning set; fur is held out): an ellipse from whose upper half n strands fall,
// each a sub-pixel-wide curve (0.35-0.8 px) that sways as it hangs, with an opacity of its own (0.5-1), so
// the silhouette is strands over the background with gaps between them, up to `length` px below the head.
auto hair(double cx, double cy, double rx, double ry, int n, double length) {
  return [=](double x, double y) {
    const double d = std::hypot((x - cx) / rx, (y - cy) / ry);
    if (d <= 1) return 1.0;
    double c = 0;
    for (int i = 0; i < n; ++i) {
      const double a = M_PI * (1.05 + 0.9 * (i + hash(i + 31)) / n);  // roots across the upper half
      const double x0 = cx + rx * std::cos(a), y0 = cy + ry * std::sin(a) * 0.2;  // root, near the head's middle
      const double side = x0 < cx ? -1 : 1;
      const double t = (y - y0) / length;  // 0 at the root, 1 at the tip
      if (t < 0 || t > 0.4 + 0.6 * hash(i + 5)) continue;
      // The strand leaves the head sideways, then hangs, swaying.
      const double sx = x0 + side * rx * 0.35 * std::sqrt(t) + 6 * std::sin(9 * t + 6.3 * hash(i + 77)) * t;
      const double w = 0.35 + 0.45 * hash(i + 13);
      const double cov = std::clamp(w / 2 + 0.5 - std::fabs(x - sx), 0.0, 1.0);
      c = std::max(c, cov * (0.5 + 0.5 * hash(i + 211)));
    }
    return c;
  };
}
// A cluster of leaves (tuning set): n small ellipses around (cx, cy) at random turns, so the silhouette is
// ragged, with background between the leaves.
auto leaves(double cx, double cy, double r, int n, double leaf) {
  return [=](double x, double y) {
    for (int i = 0; i < n; ++i) {
      const double a = 2 * M_PI * hash(i + 401), q = r * std::sqrt(hash(i + 809));
      const double lx = cx + q * std::cos(a), ly = cy + q * std::sin(a), turn = M_PI * hash(i + 1201);
      const double u = (x - lx) * std::cos(turn) + (y - ly) * std::sin(turn);
      const double v = -(x - lx) * std::sin(turn) + (y - ly) * std::cos(turn);
      const double len = leaf * (0.7 + 0.6 * hash(i + 1601));
      if (u * u / (len * len) + v * v / (0.16 * len * len) <= 1) return 1.0;
    }
    return 0.0;
  };
}
auto pole(double cx, double w) {
  return [=](double x, double) { return std::fabs(x - cx) <= w / 2 ? 1.0 : 0.0; };
}

// Stripes of two radiances across the frame (a texture, not a photograph).
std::vector<float> stripes(double period, double angle, const double a[3], const double b[3]) {
  std::vector<float> out(size_t(kW) * kH * 3);
  for (int y = 0; y < kH; ++y)
    for (int x = 0; x < kW; ++x) {
      const double u = (x * std::cos(angle) + y * std::sin(angle)) / period;
      const bool first = std::fmod(std::fmod(u, 1.0) + 1.0, 1.0) < 0.5;
      for (int c = 0; c < 3; ++c) out[(size_t(y) * kW + x) * 3 + c] = float(first ? a[c] : b[c]);
    }
  return out;
}

// Bilinear sample of layer L at (x, y) (pixel centres at +0.5): premultiplied radiance and alpha.
void sample(const Layer& L, double x, double y, double out[4]) {
  x -= 0.5 + L.dx, y -= 0.5;
  const int ix = int(std::floor(x)), iy = int(std::floor(y));
  const double fx = x - ix, fy = y - iy;
  for (int k = 0; k < 4; ++k) out[k] = 0;
  for (int j = 0; j < 2; ++j)
    for (int i = 0; i < 2; ++i) {
      int sx = ix + i, sy = iy + j;
      const double w = (i ? fx : 1 - fx) * (j ? fy : 1 - fy);
      if (L.extend) {
        sx = std::clamp(sx, 0, kW - 1), sy = std::clamp(sy, 0, kH - 1);
      } else if (sx < 0 || sy < 0 || sx >= kW || sy >= kH) {
        continue;
      }
      const size_t k = size_t(sy) * kW + sx;
      const double a = L.alpha[k];
      for (int c = 0; c < 3; ++c) out[c] += w * a * L.rgb[k * 3 + c];
      out[3] += w * a;
    }
}

// The view through lens point (ux, uy) of the unit disc, K the aperture in px and zf the focus depth,
// accumulated into acc (linear radiance).
void composite(const std::vector<Layer>& layers, double K, double zf, double ux, double uy, std::vector<double>& acc,
               int y0, int y1) {
  for (int y = y0; y < y1; ++y)
    for (int x = 0; x < kW; ++x) {
      double col[3] = {0, 0, 0}, T = 1;
      for (const Layer& L : layers) {  // nearest first
        const double c = K * (1 / L.z - 1 / zf);
        double s[4];
        sample(L, x + 0.5 + c * ux, y + 0.5 + c * uy, s);
        for (int k = 0; k < 3; ++k) col[k] += T * s[k];
        T *= 1 - s[3];
        if (T <= 0) break;
      }
      for (int k = 0; k < 3; ++k) acc[(size_t(y) * kW + x) * 3 + k] += col[k];
    }
}

ImageRGBA8 toned(const std::vector<double>& acc, double n) {
  ImageRGBA8 img(kW, kH);
  for (size_t i = 0; i < size_t(kW) * kH; ++i) {
    for (int c = 0; c < 3; ++c) img.data[i * 4 + c] = uint8_t(std::lround(255 * satlab::scene::tone(acc[i * 3 + c] / n)));
    img.data[i * 4 + 3] = 255;
  }
  return img;
}

struct Scene {
  std::string name;
  std::vector<Layer> layers;  // nearest first; the last the background
  std::vector<double> focus;  // focus depths of its cases
  double K;                   // aperture, px
  std::vector<std::string> photographs;  // the files its planes are made of
};

Layer layer(std::vector<float> rgb, std::vector<float> alpha, double z) {
  Layer L;
  L.rgb = std::move(rgb), L.alpha = std::move(alpha), L.z = z;
  return L;
}
Layer background(std::vector<float> rgb, double z) {
  Layer L = layer(std::move(rgb), std::vector<float>(size_t(kW) * kH, 1.f), z);
  L.extend = true;
  return L;
}

std::vector<Scene> scenes(const std::string& dir, bool heldout) {
  const double one[3] = {1, 1, 1}, warm[3] = {1.0, 0.8, 0.6}, cool[3] = {0.6, 0.8, 1.0}, green[3] = {0.5, 1.0, 0.4};
  const double red[3] = {0.8, 0.08, 0.05}, cream[3] = {0.9, 0.85, 0.6};
  std::vector<Scene> out;
  if (!heldout) {  // photographs rocket, astronaut, gravel, brick, ihc, camera, motorcycle_left; discs,
                   // rounded boxes, a pole, hair, leaves
    Scene a{"rocket_discs", {}, {2.5, 10.0, 4.0}, 30, {"astronaut.png", "gravel.png", "rocket.jpg"}};
    a.layers.push_back(layer(photo(dir + "/astronaut.png", one), coverage(disc(150, 130, 70)), 2.5));
    a.layers.push_back(layer(photo(dir + "/gravel.png", warm), coverage(rounded_box(200, 60, 340, 200, 18)), 4.0));
    a.layers.push_back(background(photo(dir + "/rocket.jpg", one), 10.0));
    out.push_back(std::move(a));
    Scene b{"brick_boxes", {}, {2.0, 8.0, 3.5}, 26, {"gravel.png", "astronaut.png", "brick.png"}};
    b.layers.push_back(layer(photo(dir + "/gravel.png", cool), coverage(pole(60, 4)), 1.5));
    b.layers.push_back(layer(photo(dir + "/astronaut.png", one), coverage(rounded_box(90, 70, 220, 220, 10)), 2.0));
    b.layers.push_back(layer(photo(dir + "/gravel.png", green), coverage(disc(280, 110, 60)), 3.5));
    b.layers.push_back(background(photo(dir + "/brick.png", warm), 8.0));
    out.push_back(std::move(b));
    Scene e{"motorcycle_hair", {}, {2.4, 9.0, 4.0}, 28, {"ihc.png", "camera.png", "motorcycle_left.png"}};
    e.layers.push_back(layer(photo(dir + "/ihc.png", warm), coverage(hair(120, 105, 60, 58, 260, 120)), 2.4));
    e.layers.push_back(layer(photo(dir + "/camera.png", green), coverage(leaves(290, 120, 58, 70, 16)), 4.0));
    e.layers.push_back(background(photo(dir + "/motorcycle_left.png", one), 9.0));
    out.push_back(std::move(e));
  } else {  // photographs hubble, chelsea, grass, coffee; a furry blob, stars, grass blades, stripes
    Scene c{"hubble_cat", {}, {2.2, 12.0, 4.0}, 30, {"grass.png", "chelsea.png", "hubble_deep_field.jpg"}};
    c.layers.push_back(layer(photo(dir + "/grass.png", green), coverage(blades(250, 380, 14, 110)), 1.6));
    c.layers.push_back(layer(photo(dir + "/chelsea.png", one), coverage(fur(170, 120, 95, 80)), 2.2));
    c.layers.push_back(background(photo(dir + "/hubble_deep_field.jpg", one), 12.0));
    out.push_back(std::move(c));
    Scene d{"coffee_stars", {}, {2.8, 9.0, 4.5}, 28, {"grass.png", "coffee.png"}};
    d.layers.push_back(layer(stripes(9, 0.6, red, cream), coverage(star(130, 125, 85, 40, 0.3)), 2.8));
    d.layers.push_back(layer(photo(dir + "/grass.png", green), coverage(star(290, 110, 70, 45, 1.1)), 4.5));
    d.layers.push_back(background(photo(dir + "/coffee.png", one), 9.0));
    out.push_back(std::move(d));
  }
  return out;
}

// The clip of a set: its first scene's photographs, the nearest cut-out crossing (dx per frame).
std::vector<Scene> sequence_frames(const std::string& dir, bool heldout) {
  const double one[3] = {1, 1, 1}, warm[3] = {1.0, 0.8, 0.6}, green[3] = {0.5, 1.0, 0.4};
  const double red[3] = {0.8, 0.08, 0.05}, cream[3] = {0.9, 0.85, 0.6};
  std::vector<Scene> out;
  Scene base;
  if (!heldout) {
    base = Scene{"rocket_cross", {}, {4.0}, 60, {"astronaut.png", "gravel.png", "rocket.jpg"}};
    base.layers.push_back(layer(photo(dir + "/astronaut.png", one), coverage(disc(70, 140, 55)), 2.5));
    base.layers.push_back(layer(photo(dir + "/gravel.png", warm), coverage(rounded_box(220, 40, 350, 150, 18)), 4.0));
    base.layers.push_back(background(photo(dir + "/rocket.jpg", one), 10.0));
  } else {
    base = Scene{"coffee_cross", {}, {4.5}, 56, {"grass.png", "coffee.png"}};
    base.layers.push_back(layer(stripes(9, 0.6, red, cream), coverage(star(70, 150, 60, 28, 0.3)), 2.8));
    base.layers.push_back(layer(photo(dir + "/grass.png", green), coverage(star(290, 90, 60, 38, 1.1)), 4.5));
    base.layers.push_back(background(photo(dir + "/coffee.png", one), 9.0));
  }
  for (int k = 0; k < kFrames; ++k) {
    Scene f = base;
    f.layers.front().dx = k * kStep;
    char name[64];
    std::snprintf(name, sizeof(name), "%s_f%02d", base.name.c_str(), k);
    f.name = name;
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc < 5 || std::string(argv[3]) != "--set")
      throw Error("usage: gen_cutouts PHOTO_DIR OUT_DIR --set tuning|heldout [--lens N]");
    const std::string dir = argv[1], out = argv[2], set = argv[4];
    if (set != "tuning" && set != "heldout") throw Error("--set is tuning or heldout");
    int lens = 24;
    bool sequence = false;
    for (int a = 5; a < argc; ++a) {
      if (std::string(argv[a]) == "--lens" && a + 1 < argc) lens = std::max(2, std::atoi(argv[++a]));
      else if (std::string(argv[a]) == "--sequence") sequence = true;
      else throw Error(std::string("unknown option ") + argv[a]);
    }
    nlohmann::json cases = nlohmann::json::array();
    const std::vector<Scene> all = sequence ? sequence_frames(dir, set == "heldout") : scenes(dir, set == "heldout");
    for (size_t si = 0; si < all.size(); ++si) {
      const Scene& s = all[si];
      const double znear = s.layers.front().z, zfar = s.layers.back().z;
      // Pinhole view, exact depth and object labels.
      std::vector<double> pin(size_t(kW) * kH * 3, 0.0);
      composite(s.layers, 0, 1, 0, 0, pin, 0, kH);
      ImageF depth(kW, kH, 1), objects(kW, kH, 1);
      std::vector<std::vector<std::pair<int, int>>> pixels(s.layers.size());
      for (int y = 0; y < kH; ++y)
        for (int x = 0; x < kW; ++x) {
          size_t i = 0;
          auto alpha_at = [&](const Layer& L) {
            const int sx = x - L.dx;
            return sx >= 0 && sx < kW ? L.alpha[size_t(y) * kW + size_t(sx)] : (L.extend ? 1.f : 0.f);
          };
          while (i + 1 < s.layers.size() && alpha_at(s.layers[i]) < 0.5f) ++i;
          depth.at(x, y) = float((s.layers[i].z - znear) / (zfar - znear));
          const bool object = i + 1 < s.layers.size();
          objects.at(x, y) = object ? float(i + 1) / 255.f : 0.f;
          if (object) pixels[i].emplace_back(x, y);
        }
      io::save_png(out + "/" + s.name + ".png", toned(pin, 1));
      if (sequence) {  // a right view for stereo: the pinhole camera moved right, disparity kDisparity / z px
        std::vector<double> right(size_t(kW) * kH * 3, 0.0);
        composite(s.layers, kDisparity, 1e30, 1, 0, right, 0, kH);
        io::save_png(out + "/" + s.name + "_right.png", toned(right, 1));
      }
      io::save_png16(out + "/" + s.name + "_depth.png", depth);
      io::save_png16(out + "/" + s.name + "_objects.png", objects);
      // One click an object: its pixel farthest from the object's edge (of its visible part).
      nlohmann::json clicks = nlohmann::json::array();
      for (size_t i = 0; i + 1 < s.layers.size(); ++i) {
        const auto& px = pixels[i];
        if (px.size() < size_t(kW) * kH / 50) continue;  // under 2% of the frame
        int best = -1, bx = 0, by = 0;
        for (const auto& [x, y] : px) {
          int r = 0;
          const auto inside = [&](int xx, int yy) {
            return xx >= 0 && yy >= 0 && xx < kW && yy < kH &&
                   objects.at(xx, yy) == float(i + 1) / 255.f;
          };
          while (r < 64 && inside(x - r, y) && inside(x + r, y) && inside(x, y - r) && inside(x, y + r)) ++r;
          if (r > best) best = r, bx = x, by = y;
        }
        clicks.push_back({{"x", bx}, {"y", by}, {"object", int(i + 1)}, {"pixels", px.size()}});
      }
      for (double zf : s.focus) {
        std::vector<double> acc(size_t(kW) * kH * 3, 0.0);
        int n = 0;
        std::vector<std::pair<double, double>> us;
        for (int j = 0; j < lens; ++j)
          for (int i = 0; i < lens; ++i) {  // stratified, kept within the unit disc
            const double ux = 2 * (i + 0.5) / lens - 1, uy = 2 * (j + 0.5) / lens - 1;
            if (ux * ux + uy * uy <= 1) us.emplace_back(ux, uy);
          }
        for (const auto& [ux, uy] : us) {
          parallel_for(0, kH, [&](long y0, long y1) { composite(s.layers, s.K, zf, ux, uy, acc, int(y0), int(y1)); });
          ++n;
        }
        char name[96];
        if (sequence)
          std::snprintf(name, sizeof(name), "%s_ref", s.name.c_str());
        else
          std::snprintf(name, sizeof(name), "%s_focus%.1f", s.name.c_str(), zf);
        io::save_png(out + "/" + name + ".png", toned(acc, n));
        float largest = 0;
        for (const Layer& L : s.layers) largest = std::max(largest, float(std::fabs(s.K * (1 / L.z - 1 / zf))));
        cases.push_back({{"name", name},
                         {"scene", s.name},
                         {"width", kW},
                         {"height", kH},
                         {"image", s.name + ".png"},
                         {"depth", s.name + "_depth.png"},
                         {"objects", s.name + "_objects.png"},
                         {"reference", std::string(name) + ".png"},
                         {"focus", (zf - znear) / (zfar - znear)},
                         {"aperture", s.K},
                         {"max_radius", std::ceil(largest)},
                         {"near_depth", znear},
                         {"far_depth", zfar},
                         {"response_shoulder", kShoulder},
                         {"focus_depth", zf},
                         {"lens_samples", n},
                         {"holdout", set == "heldout"},
                         {"set", set},
                         {"photographs", s.photographs},
                         {"clicks", clicks}});
        if (sequence) {
          cases.back()["sequence"] = s.name.substr(0, s.name.rfind("_f"));
          cases.back()["frame"] = int(si);
          cases.back()["fps"] = kFps;
          cases.back()["right"] = s.name + "_right.png";
          cases.back()["disparity_scale"] = kDisparity;
          // How far each object moved since the frame before, in pixels (the front cut-out alone moves): the
          // known motion of the warping error.
          if (si > 0) cases.back()["motion"] = nlohmann::json::array({{{"object", 1}, {"dx", kStep}, {"dy", 0}}});
        }
        std::printf("%-28s focus z %.1f  K %.0f px  largest CoC %.1f px  %d lens samples\n", name, zf, s.K,
                    largest, n);
      }
    }
    nlohmann::json manifest = {
        {"about",
         "thin-lens ground truth of photographs as planes and cut-outs, made by tools/gen_cutouts (the " + set +
             " set): paths are relative to this file; focus, aperture, near_depth and far_depth are satlab Params "
             "(CoC = aperture * |1/z - 1/z_focus| px, z = near + d (far - near)); clicks: one inside each object "
             "of at least 2% of the frame, for subject select"},
        {"cases", cases}};
    io::save_text(out + "/cases.json", manifest.dump(1) + "\n");
    return 0;
  } catch (const Error& e) {
    std::fprintf(stderr, "gen_cutouts: %s\n", e.what());
    return 1;
  }
}
