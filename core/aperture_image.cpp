// Aperture images (core/aperture_image.hpp).
#include "core/aperture_image.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>

#include "core/dof.hpp"
#include "core/error.hpp"
#include "core/params.hpp"

namespace satlab {

float ApertureImage::at(double ax, double ay) const {
  const double fx = (ax + 1) * 0.5 * size, fy = (ay + 1) * 0.5 * size;
  if (!(fx >= 0 && fy >= 0 && fx < size && fy < size)) return 0.f;
  return v[size_t(int(fy)) * size_t(size) + size_t(int(fx))];
}

ApertureImage aperture_image_from_pixels(const ImageRGBA8& img, const std::string& what) {
  const auto bad = [&](const std::string& why) { throw Error("aperture image " + what + ": " + why); };
  if (img.width < 1 || img.height < 1) bad("empty");
  if (img.width > kMaxApertureImageSide || img.height > kMaxApertureImageSide)
    bad(std::to_string(img.width) + "x" + std::to_string(img.height) + " is larger than " +
        std::to_string(kMaxApertureImageSide) + " on a side");
  const int W = img.width, H = img.height;
  std::vector<float> w(size_t(W) * size_t(H));
  float top = 0.f;
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      const uint8_t* p = img.px(x, y);
      const int lo = std::min({p[0], p[1], p[2]}), hi = std::max({p[0], p[1], p[2]});
      if (hi - lo > 2)
        bad("not greyscale (pixel " + std::to_string(x) + "," + std::to_string(y) + " is " + std::to_string(p[0]) +
            "," + std::to_string(p[1]) + "," + std::to_string(p[2]) + "): the aperture's weight is its grey level");
      const float g = float(int(p[0]) + p[1] + p[2]) / (3.f * 255.f) * (float(p[3]) / 255.f);
      w[size_t(y) * size_t(W) + size_t(x)] = g;
      top = std::max(top, g);
    }
  if (!(top > 0.f)) bad("all black: no part of the aperture lets light through");
  int x0 = W, x1 = -1, y0 = H, y1 = -1;
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x)
      if (w[size_t(y) * size_t(W) + size_t(x)] > top / 20)
        x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
  ApertureImage im;
  im.size = std::max(x1 - x0 + 1, y1 - y0 + 1);
  const int ox = x0 - (im.size - (x1 - x0 + 1)) / 2, oy = y0 - (im.size - (y1 - y0 + 1)) / 2;
  im.v.assign(size_t(im.size) * size_t(im.size), 0.f);
  uint64_t h = 1469598103934665603ull;
  const auto mix = [&](uint64_t b) { h = (h ^ b) * 1099511628211ull; };
  mix(uint64_t(im.size));
  for (int y = 0; y < im.size; ++y)
    for (int x = 0; x < im.size; ++x) {
      const int sx = ox + x, sy = oy + y;
      const float g = sx >= 0 && sy >= 0 && sx < W && sy < H ? w[size_t(sy) * size_t(W) + size_t(sx)] / top : 0.f;
      im.v[size_t(y) * size_t(im.size) + size_t(x)] = g;
      mix(uint64_t(std::lround(g * 65535.f)));
    }
  char d[24];
  std::snprintf(d, sizeof d, "%016llx", static_cast<unsigned long long>(h));
  im.digest = d;
  size_t lit = 0, mid = 0;
  for (const float g : im.v) lit += g > 0.05f, mid += g >= 0.2f && g <= 0.8f;
  im.grey = double(mid) >= kGreyShare * double(lit);
  return im;
}

namespace {

constexpr int kBuiltinSide = 256;

// A built-in picture: inside(ax, ay) over [-1, 1]^2 (y down), 4 x 4 samples a pixel.
template <class Inside>
ApertureImage render_builtin(const std::string& name, const Inside& inside) {
  ImageRGBA8 img(kBuiltinSide, kBuiltinSide);
  for (int y = 0; y < kBuiltinSide; ++y)
    for (int x = 0; x < kBuiltinSide; ++x) {
      int n = 0;
      for (int j = 0; j < 4; ++j)
        for (int i = 0; i < 4; ++i)
          n += inside((x + (i + 0.5) / 4) / kBuiltinSide * 2 - 1, (y + (j + 0.5) / 4) / kBuiltinSide * 2 - 1);
      uint8_t* p = img.px(x, y);
      p[0] = p[1] = p[2] = uint8_t((n * 255 + 8) / 16);
      p[3] = 255;
    }
  return aperture_image_from_pixels(img, name);
}

bool in_polygon(const double* vx, const double* vy, int n, double x, double y) {
  bool in = false;
  for (int i = 0, j = n - 1; i < n; j = i++)
    if ((vy[i] > y) != (vy[j] > y) && x < (vx[j] - vx[i]) * (y - vy[i]) / (vy[j] - vy[i]) + vx[i]) in = !in;
  return in;
}

// Rounded iris blades: the n-gon (a vertex up) bowed halfway out to its circumscribed circle.
ApertureImage blades(int n) {
  return render_builtin("blades" + std::to_string(n), [n](double x, double y) {
    const double rho = std::sqrt(x * x + y * y);
    double t = std::atan2(x, -y);  // from the top vertex, clockwise
    const double seg = 2 * M_PI / n;
    t = std::fmod(std::fmod(t, seg) + seg, seg);
    const double edge = std::cos(M_PI / n) / std::cos(t - M_PI / n);
    return rho <= 0.5 * edge + 0.5;
  });
}

struct Builtin {
  const char* name;
  ApertureImage (*make)();
};
const Builtin kBuiltins[] = {
    {"star",
     [] {
       double vx[10], vy[10];
       for (int i = 0; i < 10; ++i) {
         const double a = -M_PI / 2 + i * M_PI / 5, rr = i % 2 ? 0.45 : 1.0;
         vx[i] = rr * std::cos(a), vy[i] = rr * std::sin(a);
       }
       return render_builtin("star", [&](double x, double y) { return in_polygon(vx, vy, 10, x, y); });
     }},
    {"heart",
     [] {
       return render_builtin("heart", [](double x, double y) {
         const double X = 1.25 * x, Y = -1.25 * y + 0.15;  // the curve (x^2 + y^2 - 1)^3 = x^2 y^3, y up
         const double q = X * X + Y * Y - 1;
         return q * q * q - X * X * Y * Y * Y <= 0;
       });
     }},
    {"ring",
     [] {
       return render_builtin("ring", [](double x, double y) {
         const double q = x * x + y * y;
         return q <= 1 && q >= 0.25;
       });
     }},
    {"bubble",
     [] {
       ImageRGBA8 img(kBuiltinSide, kBuiltinSide);
       for (int y = 0; y < kBuiltinSide; ++y)
         for (int x = 0; x < kBuiltinSide; ++x) {
           double s = 0;
           for (int j = 0; j < 4; ++j)
             for (int i = 0; i < 4; ++i) {
               const double ax = (x + (i + 0.5) / 4) / kBuiltinSide * 2 - 1,
                            ay = (y + (j + 0.5) / 4) / kBuiltinSide * 2 - 1, q = ax * ax + ay * ay;
               s += q > 1 ? 0 : q >= 0.64 ? 1 : 0.45;
             }
           uint8_t* px = img.px(x, y);
           px[0] = px[1] = px[2] = uint8_t(std::lround(s / 16 * 255));
           px[3] = 255;
         }
       return aperture_image_from_pixels(img, "bubble");
     }},
    {"blades5", [] { return blades(5); }},
    {"blades6", [] { return blades(6); }},
    {"blades7", [] { return blades(7); }},
    {"blades8", [] { return blades(8); }},
};

std::mutex g_mutex;
std::map<std::string, std::shared_ptr<const ApertureImage>>& registry() {
  static std::map<std::string, std::shared_ptr<const ApertureImage>> r;
  return r;
}

}  // namespace

bool is_builtin_aperture(const std::string& name) {
  for (const Builtin& b : kBuiltins)
    if (name == b.name) return true;
  return false;
}

std::string builtin_aperture_list() {
  std::string s;
  for (const Builtin& b : kBuiltins) s += (s.empty() ? "" : ", ") + std::string(b.name);
  return s;
}

std::vector<std::string> builtin_aperture_names() {
  std::vector<std::string> n;
  for (const Builtin& b : kBuiltins) n.push_back(b.name);
  return n;
}

std::shared_ptr<const ApertureImage> builtin_aperture_image(const std::string& name) {
  if (!is_builtin_aperture(name)) return nullptr;
  const std::lock_guard<std::mutex> lock(g_mutex);
  auto& r = registry();
  const std::string key = "builtin:" + name;
  auto it = r.find(key);
  if (it != r.end()) return it->second;
  ApertureImage im;
  for (const Builtin& b : kBuiltins)
    if (name == b.name) im = b.make();
  auto p = std::make_shared<const ApertureImage>(std::move(im));
  r[key] = p;
  return p;
}

void register_aperture_image(const std::string& key, const ApertureImage& image) {
  const std::lock_guard<std::mutex> lock(g_mutex);
  registry()[key] = std::make_shared<const ApertureImage>(image);
}

std::shared_ptr<const ApertureImage> find_aperture_image(const std::string& key) {
  if (is_builtin_aperture(key)) return builtin_aperture_image(key);
  const std::lock_guard<std::mutex> lock(g_mutex);
  auto it = registry().find(key);
  return it == registry().end() ? nullptr : it->second;
}

double aperture_image_moment(const ApertureImage& im, double squeeze) {
  const double sx = squeeze >= 1 ? 1 : squeeze, sy = squeeze >= 1 ? 1 / squeeze : 1;
  double m = 0, s = 0;
  for (int y = 0; y < im.size; ++y)
    for (int x = 0; x < im.size; ++x) {
      const double w = im.v[size_t(y) * size_t(im.size) + size_t(x)];
      const double u = sx * ((x + 0.5) / im.size * 2 - 1), v = sy * ((y + 0.5) / im.size * 2 - 1);
      m += w * (u * u + v * v), s += w;
    }
  return s > 0 ? m / s : 0;
}

namespace {

using Spans = std::vector<std::pair<int, int>>;  // inclusive [x0, x1], sorted, disjoint

long span_pixels(const Spans& s) {
  long n = 0;
  for (const auto& q : s) n += q.second - q.first + 1;
  return n;
}
long overlap(const Spans& a, const Spans& b) {
  long n = 0;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const int lo = std::max(a[i].first, b[j].first), hi = std::min(a[i].second, b[j].second);
    if (hi >= lo) n += hi - lo + 1;
    (a[i].second < b[j].second ? i : j)++;
  }
  return n;
}
// s with its narrowest gaps filled until k spans are left (k = 0: none).
Spans reduced(Spans s, size_t k) {
  if (k == 0) return {};
  while (s.size() > k) {
    size_t best = 0;
    for (size_t i = 1; i + 1 < s.size(); ++i)
      if (s[i + 1].first - s[i].second < s[best + 1].first - s[best].second) best = i;
    s[best].second = s[best + 1].second;
    s.erase(s.begin() + long(best) + 1);
  }
  return s;
}

struct Band {
  int y0, y1;  // row indices
  size_t k;    // spans
  Spans spans;
  long loss;  // pixels of the band's rows it gets wrong
};

// Rows y0..y1 as one band of k spans (k at most each row's count): each row reduced to k, each span's
// ends the medians of the rows'.
Band fit(const std::vector<Spans>& rows, int y0, int y1, size_t k) {
  Band b{y0, y1, k, {}, 0};
  std::vector<Spans> red;
  for (int y = y0; y <= y1; ++y) red.push_back(reduced(rows[size_t(y)], k));
  std::vector<int> lo, hi;
  for (size_t i = 0; i < k; ++i) {
    lo.clear(), hi.clear();
    for (const Spans& s : red) lo.push_back(s[i].first), hi.push_back(s[i].second);
    std::nth_element(lo.begin(), lo.begin() + long(lo.size() / 2), lo.end());
    std::nth_element(hi.begin(), hi.begin() + long(hi.size() / 2), hi.end());
    b.spans.push_back({lo[lo.size() / 2], hi[hi.size() / 2]});
  }
  const long fitted = span_pixels(b.spans);
  for (int y = y0; y <= y1; ++y) {
    const Spans& s = rows[size_t(y)];
    b.loss += span_pixels(s) + fitted - 2 * overlap(s, b.spans);
  }
  return b;
}

}  // namespace

namespace {

// The picture's cells at radius R (the square of radius r): each the mean of S x S samples, row-major.
std::vector<float> image_cells(const ApertureImage& im, const Params& p, int r, double R) {
  const double q = double(p.anamorphic), sx = q >= 1 ? 1 : q, sy = q >= 1 ? 1 / q : 1;
  const double rot = double(p.blade_rotation) * M_PI / 180.0, cr = std::cos(rot), sr = std::sin(rot);
  const int S = std::clamp(int(std::ceil(double(im.size) / (2 * R + 1))), 2, 8);
  const int side = 2 * r + 1;
  std::vector<float> cov(size_t(side) * size_t(side));
  for (int y = -r; y <= r; ++y)
    for (int x = -r; x <= r; ++x) {
      double c = 0;
      for (int j = 0; j < S; ++j)
        for (int i = 0; i < S; ++i) {
          const double ox = x + (i + 0.5) / S - 0.5, oy = y + (j + 0.5) / S - 0.5;
          const double a = cr * ox + sr * oy, b = -sr * ox + cr * oy;
          c += im.at(a / (sx * R), b / (sy * R));
        }
      cov[size_t(y + r) * size_t(side) + size_t(x + r)] = float(c / (S * S));
    }
  return cov;
}

// The cells of at least `threshold` as at most `most` rectangles (the band merging of the header).
int rects_of_cells(const std::vector<float>& cov, int r, float threshold, int most, dof::Rect* out) {
  const int side = 2 * r + 1;
  std::vector<Spans> rows(static_cast<size_t>(side));
  for (int y = 0; y < side; ++y) {
    Spans& s = rows[size_t(y)];
    for (int x = -r; x <= r; ++x) {
      if (cov[size_t(y) * size_t(side) + size_t(x + r)] < threshold) continue;
      if (!s.empty() && s.back().second == x - 1)
        s.back().second = x;
      else
        s.push_back({x, x});
    }
  }
  // Equal rows as one band, then the cheapest merges (or span reductions) until `most` rectangles.
  std::vector<Band> bands;
  for (int y = 0; y < side; ++y) {
    if (!bands.empty() && rows[size_t(y)] == bands.back().spans)
      bands.back().y1 = y;
    else
      bands.push_back(Band{y, y, rows[size_t(y)].size(), rows[size_t(y)], 0});
  }
  const auto rect_count = [&] {
    size_t n = 0;
    for (const Band& b : bands) n += b.k;
    return n;
  };
  // The candidates, kept between steps (a step changes only its neighbours'): merge[i] joins bands i and
  // i + 1, reduce[i] takes band i one span less (none where it has none). The first cheapest merge wins,
  // then a strictly cheaper reduction.
  struct Candidate {
    bool valid = false;
    long delta = 0;
    Band band{};
  };
  const auto merge_of = [&](size_t i) {
    Candidate c;
    c.band = fit(rows, bands[i].y0, bands[i + 1].y1, std::min(bands[i].k, bands[i + 1].k));
    c.delta = c.band.loss - bands[i].loss - bands[i + 1].loss, c.valid = true;
    return c;
  };
  const auto reduce_of = [&](size_t i) {
    Candidate c;
    if (bands[i].k == 0) return c;
    c.band = fit(rows, bands[i].y0, bands[i].y1, bands[i].k - 1);
    c.delta = c.band.loss - bands[i].loss, c.valid = true;
    return c;
  };
  std::vector<Candidate> merges, reductions;
  for (size_t i = 0; i + 1 < bands.size(); ++i) merges.push_back(merge_of(i));
  for (size_t i = 0; i < bands.size(); ++i) reductions.push_back(reduce_of(i));
  size_t count = rect_count();
  while (count > size_t(most)) {
    bool found = false, merge = false;
    long best = 0;
    size_t at = 0;
    for (size_t i = 0; i < merges.size(); ++i)
      if (!found || merges[i].delta < best) found = true, best = merges[i].delta, at = i, merge = true;
    for (size_t i = 0; i < reductions.size(); ++i)
      if (reductions[i].valid && (!found || reductions[i].delta < best))
        found = true, best = reductions[i].delta, at = i, merge = false;
    if (!found) break;
    if (merge) {
      count -= bands[at].k + bands[at + 1].k - merges[at].band.k;
      bands[at] = merges[at].band;
      bands.erase(bands.begin() + long(at) + 1);
      merges.erase(merges.begin() + long(at));
      reductions.erase(reductions.begin() + long(at) + 1);
    } else {
      count -= 1;
      bands[at] = reductions[at].band;
    }
    reductions[at] = reduce_of(at);
    if (at > 0) merges[at - 1] = merge_of(at - 1);
    if (at + 1 < bands.size()) merges[at] = merge_of(at);
  }
  int n = 0;
  for (const Band& b : bands)
    for (const auto& s : b.spans)
      if (n < most) out[n++] = {int16_t(s.first), int16_t(s.second), int16_t(b.y0 - r), int16_t(b.y1 - r)};
  return n;
}

}  // namespace

int image_rects_at(const ApertureImage& im, const Params& p, int r, double R, int most, dof::Rect* out) {
  return rects_of_cells(image_cells(im, p, r, R), r, 0.5f, most, out);
}

void image_grey_levels(const ApertureImage& im, const Params& p, int r, int most, dof::Rect* out, int* counts,
                       int* mults) {
  if (most < 2 || most > 64) throw Error("image_grey_levels: a budget of 2 to 64 rectangles");
  std::vector<float> cov = image_cells(im, p, r, double(r));
  // The centre cell reaches level 0 at least, so level 0 holds the pixel itself.
  float& centre = cov[size_t(r) * size_t(2 * r + 1) + size_t(r)];
  centre = std::max(centre, kGreyThreshold[0]);
  double sum[kGreyLevels] = {}, n[kGreyLevels] = {};
  for (const float c : cov) {
    int l = -1;
    while (l + 1 < kGreyLevels && c >= kGreyThreshold[l + 1]) ++l;
    if (l >= 0) sum[l] += c, n[l] += 1;
  }
  int below = 0;  // the 32nds reached so far
  for (int l = 0; l < kGreyLevels; ++l) {
    mults[l] = 0;
    counts[l] = 0;
    if (n[l] == 0) continue;
    const int level = std::clamp(int(std::lround(32.0 * sum[l] / n[l])), below + 1, 32);
    mults[l] = level - below, below = level;
    counts[l] = rects_of_cells(cov, r, kGreyThreshold[l], most, out + l * most);
  }
}

int image_aperture(const ApertureImage& im, const Params& p, int r, dof::Rect* out, int most) {
  if (most < 2 || most > 64) throw Error("image_aperture: a budget of 2 to 64 rectangles");
  if (r == 0) {
    out[0] = {0, 0, 0, 0};
    return 1;
  }
  const double target = aperture_image_moment(im, double(p.anamorphic)) * (double(r) * r - 1.0 / 6);
  const auto covers_centre = [](const dof::Rect* q, int n) {
    for (int i = 0; i < n; ++i)
      if (q[i].x0 <= 0 && 0 <= q[i].x1 && q[i].y0 <= 0 && 0 <= q[i].y1) return true;
    return false;
  };
  // Rectangles at radius R with the centre pixel in (a rectangle of their budget kept for it if needed).
  const auto draw = [&](double R, dof::Rect* q) {
    int n = image_rects_at(im, p, r, R, most, q);
    if (!covers_centre(q, n)) {
      n = image_rects_at(im, p, r, R, most - 1, q);
      if (!covers_centre(q, n)) q[n++] = {0, 0, 0, 0};
    }
    return n;
  };
  if (r > kImageMomentSearch) return draw(r, out);
  double best = 1e300;
  int n = 0;
  for (int i = 0; i <= 24; ++i) {
    dof::Rect cand[64];
    const int cn = draw(r - 0.5 + i / 16.0, cand);
    const double err = std::fabs(aperture_second_moment(cand, cn) - target);
    if (err < best) best = err, n = cn, std::copy(cand, cand + cn, out);
  }
  return n;
}

}  // namespace satlab
