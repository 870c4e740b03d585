// Subject selection's CPU reference (core/select.hpp).
#include "core/select.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "core/error.hpp"
#include "core/guided_filter.hpp"
#include "core/parallel.hpp"
#include "core/select_pixel.hpp"

namespace satlab {

using select::kBins;
using select::kGeoInf;

constexpr int kSoftSeedBase = 4;  // contrast units a soft seed costs at least

void validate(const SelectParams& p) {
  auto bad = [](const std::string& what) { throw Error("select: " + what); };
  if (p.work_side < 16 || p.work_side > select::kMaxWorkSide)
    bad("work side " + std::to_string(p.work_side) + " outside [16, " + std::to_string(select::kMaxWorkSide) + "]");
  if (p.edge_floor < 0 || p.edge_floor > 765) bad("edge floor outside [0, 765]");
  if (p.edge_threshold < 1 || p.edge_threshold > 765) bad("edge threshold outside [1, 765]");
  if (p.iterations < 1 || p.iterations > 64) bad("iterations outside [1, 64]");
  if (!(p.model_radius >= 0.f && p.model_radius <= 1.f)) bad("model radius outside [0, 1]");
  if (p.likelihood_weight < 0 || p.likelihood_weight > 255) bad("likelihood weight outside [0, 255]");
  if (p.matte_radius < 0 || p.matte_radius > 64) bad("matte radius outside [0, 64]");
  if (!(p.matte_eps > 0.f && std::isfinite(p.matte_eps))) bad("matte eps must be finite and > 0");
}

SelectParams parse_select_params(const std::string& spec) {
  SelectParams p;
  std::stringstream ss(spec);
  std::string kv;
  while (std::getline(ss, kv, ',')) {
    if (kv.empty()) continue;
    const size_t eq = kv.find('=');
    if (eq == std::string::npos) throw Error("select: '" + kv + "' is not KEY=VALUE");
    const std::string k = kv.substr(0, eq), v = kv.substr(eq + 1);
    char* end = nullptr;
    const double x = std::strtod(v.c_str(), &end);
    if (v.empty() || *end) throw Error("select: " + k + "=" + v + ": not a number");
    if (k == "work") p.work_side = int(x);
    else if (k == "floor") p.edge_floor = int(x);
    else if (k == "threshold") p.edge_threshold = int(x);
    else if (k == "iterations") p.iterations = int(x);
    else if (k == "model") p.model_radius = float(x);
    else if (k == "likelihood") p.likelihood_weight = int(x);
    else if (k == "matte") p.matte_radius = int(x);
    else if (k == "eps") p.matte_eps = float(x);
    else throw Error("select: unknown key '" + k + "' (work, floor, threshold, iterations, model, likelihood, matte, eps)");
  }
  validate(p);
  return p;
}

int select_scale(int width, int height, int work_side) {
  const int side = std::max(width, height);
  return std::max(1, (side + work_side - 1) / work_side);
}

int matte_radius(const SelectParams& p, int scale) { return p.matte_radius > 0 ? p.matte_radius : std::max(3, 2 * scale); }

SelectWork select_work_image(const ImageRGBA8& image, int work_side, int threads) {
  SelectWork w;
  w.scale = select_scale(image.width, image.height, work_side);
  const int s = w.scale;
  w.width = (image.width + s - 1) / s, w.height = (image.height + s - 1) / s;
  w.rgb.assign(size_t(w.width) * size_t(w.height) * 3, 0);
  parallel_for(
      0, w.height,
      [&](long j0, long j1) {
        for (int j = int(j0); j < int(j1); ++j)
          for (int i = 0; i < w.width; ++i) {
            const int x1 = std::min((i + 1) * s, image.width), y1 = std::min((j + 1) * s, image.height);
            uint32_t sum[3] = {0, 0, 0};
            for (int y = j * s; y < y1; ++y)
              for (int x = i * s; x < x1; ++x)
                for (int c = 0; c < 3; ++c) sum[c] += image.px(x, y)[c];
            const uint32_t n = uint32_t((x1 - i * s) * (y1 - j * s));
            for (int c = 0; c < 3; ++c) w.rgb[(size_t(j) * size_t(w.width) + size_t(i)) * 3 + size_t(c)] = select::cell_mean(sum[c], n);
          }
      },
      threads);
  return w;
}

void select_edge_costs(const SelectWork& w, int edge_floor, std::vector<uint32_t>& ch, std::vector<uint32_t>& cv) {
  const size_t n = size_t(w.width) * size_t(w.height);
  ch.assign(n, kGeoInf), cv.assign(n, kGeoInf);
  for (int j = 0; j < w.height; ++j)
    for (int i = 0; i < w.width; ++i) {
      const size_t k = size_t(j) * size_t(w.width) + size_t(i);
      const uint8_t* p = &w.rgb[k * 3];
      if (i > 0) ch[k] = select::step_cost(p - 3, p, edge_floor);
      if (j > 0) cv[k] = select::step_cost(&w.rgb[(k - size_t(w.width)) * 3], p, edge_floor);
    }
}

void geodesic_passes(uint32_t* d, int width, int height, const uint32_t* ch, const uint32_t* cv, int iterations,
                     int threads) {
  const size_t W = size_t(width);
  for (int it = 0; it < iterations; ++it) {
    parallel_for(
        0, height,
        [&](long j0, long j1) {
          for (long j = j0; j < j1; ++j) {
            uint32_t* r = d + size_t(j) * W;
            const uint32_t* c = ch + size_t(j) * W;
            for (int i = 1; i < width; ++i) r[i] = select::relax(r[i], r[i - 1], c[i]);
            for (int i = width - 2; i >= 0; --i) r[i] = select::relax(r[i], r[i + 1], c[i + 1]);
          }
        },
        threads);
    parallel_for(
        0, width,
        [&](long i0, long i1) {
          for (int j = 1; j < height; ++j)
            for (long i = i0; i < i1; ++i) {
              const size_t k = size_t(j) * W + size_t(i);
              d[k] = select::relax(d[k], d[k - W], cv[k]);
            }
          for (int j = height - 2; j >= 0; --j)
            for (long i = i0; i < i1; ++i) {
              const size_t k = size_t(j) * W + size_t(i);
              d[k] = select::relax(d[k], d[k + W], cv[k + W]);
            }
        },
        threads);
  }
}

std::vector<WorkClick> work_clicks(const std::vector<SelectClick>& clicks, int scale, int width, int height) {
  std::vector<WorkClick> out;
  for (const SelectClick& c : clicks) {
    if (!std::isfinite(c.x) || !std::isfinite(c.y)) throw Error("select: a click is not a finite position");
    WorkClick w;
    w.x = std::clamp(int(std::floor(c.x / float(scale))), 0, width - 1);
    w.y = std::clamp(int(std::floor(c.y / float(scale))), 0, height - 1);
    w.background = c.background;
    out.push_back(w);
  }
  return out;
}

int model_radius_cells(const SelectParams& p, int width, int height) {
  return int(std::lround(p.model_radius * std::sqrt(double(width) * width + double(height) * height)));
}

std::vector<WorkClick> resolve_clicks(const std::vector<WorkClick>& clicks, uint32_t edge,
                                      const std::function<std::vector<uint32_t>(size_t i)>& reach_at_clicks) {
  std::vector<bool> dropped(clicks.size(), false);
  for (size_t i = 1; i < clicks.size(); ++i) {
    bool opposite = false;
    for (size_t j = 0; j < i; ++j) opposite = opposite || (!dropped[j] && clicks[j].background != clicks[i].background);
    if (!opposite) continue;
    const std::vector<uint32_t> r = reach_at_clicks(i);
    for (size_t j = 0; j < i; ++j)
      if (clicks[j].background != clicks[i].background && r[j] < edge) dropped[j] = true;
  }
  std::vector<WorkClick> out;
  for (size_t i = 0; i < clicks.size(); ++i)
    if (!dropped[i]) out.push_back(clicks[i]);
  return out;
}

SelectModels select_models(const std::vector<uint32_t>& sh, const std::vector<uint32_t>& bh, int weight) {
  SelectModels m;
  m.subject.assign(kBins, 0), m.background.assign(kBins, 0);
  if (weight == 0) {  // no colour models: seeds are the clicks and the frame only
    std::fill(m.subject.begin(), m.subject.end(), kGeoInf), std::fill(m.background.begin(), m.background.end(), kGeoInf);
    return m;
  }
  double ns = 0, nb = 0;
  for (int b = 0; b < kBins; ++b) ns += sh[size_t(b)], nb += bh[size_t(b)];
  // A colour is a soft seed of a side only where that side's samples hold it: a colour no sample of a side
  // has (a subject's other colours, away from the click) is left to the geodesic distances. Where both hold
  // it, the cost grows with the bits of doubt, from kSoftSeedBase units up.
  constexpr double kPrior = 0.05;
  for (int b = 0; b < kBins; ++b) {
    const double ps = (sh[size_t(b)] + kPrior) / (ns + kPrior * kBins);
    const double pb = (bh[size_t(b)] + kPrior) / (nb + kPrior * kBins);
    const double P = ps / (ps + pb);
    auto cost = [&](uint32_t count, double prob) {
      if (count == 0) return kGeoInf;
      const double bits = std::min(16.0, -std::log2(std::max(prob, 1e-300)));
      return uint32_t(kSoftSeedBase + std::lround(bits * weight)) * select::kEdgeWeight;
    };
    m.subject[size_t(b)] = cost(sh[size_t(b)], P), m.background[size_t(b)] = cost(bh[size_t(b)], 1.0 - P);
  }
  return m;
}

namespace {

// The kept subject: the label's regions that hold a subject click (4-connected), found by the geodesic
// passes over steps that are free inside the label and impassable out of it, as the GPU does.
void keep_connected(std::vector<uint8_t>& label, int w, int h, const std::vector<WorkClick>& clicks, int iterations,
                    int threads) {
  const size_t n = size_t(w) * size_t(h);
  std::vector<uint32_t> ch(n, kGeoInf), cv(n, kGeoInf), d(n, kGeoInf);
  for (int j = 0; j < h; ++j)
    for (int i = 0; i < w; ++i) {
      const size_t k = size_t(j) * size_t(w) + size_t(i);
      if (i > 0 && label[k] && label[k - 1]) ch[k] = 1;
      if (j > 0 && label[k] && label[k - size_t(w)]) cv[k] = 1;
    }
  for (const WorkClick& c : clicks)
    if (!c.background) {
      const size_t k = size_t(c.y) * size_t(w) + size_t(c.x);
      if (label[k]) d[k] = 0;
    }
  geodesic_passes(d.data(), w, h, ch.data(), cv.data(), 2 * iterations, threads);
  for (size_t k = 0; k < n; ++k) label[k] = d[k] != kGeoInf;
}

}  // namespace

Selection select_subject_cpu(const ImageRGBA8& image, const std::vector<SelectClick>& clicks, const SelectParams& p,
                             int threads) {
  validate(p);
  if (image.width < 1 || image.height < 1) throw Error("select: empty image");
  if (std::none_of(clicks.begin(), clicks.end(), [](const SelectClick& c) { return !c.background; }))
    throw Error("select: no click on a subject");
  Selection s;
  s.width = image.width, s.height = image.height;
  const SelectWork work = select_work_image(image, p.work_side, threads);
  const int w = work.width, h = work.height;
  const size_t n = size_t(w) * size_t(h);
  s.scale = work.scale, s.work_width = w, s.work_height = h;
  std::vector<uint32_t> ch, cv;
  select_edge_costs(work, p.edge_floor, ch, cv);
  const uint32_t edge = uint32_t(p.edge_threshold) * select::kEdgeWeight;
  std::vector<uint32_t> reach(n);
  const std::vector<WorkClick> all = work_clicks(clicks, work.scale, w, h);
  const std::vector<WorkClick> wc = resolve_clicks(all, edge, [&](size_t i) {
    std::fill(reach.begin(), reach.end(), kGeoInf);
    reach[size_t(all[i].y) * size_t(w) + size_t(all[i].x)] = 0;
    geodesic_passes(reach.data(), w, h, ch.data(), cv.data(), p.iterations, threads);
    std::vector<uint32_t> at;
    for (const WorkClick& c : all) at.push_back(reach[size_t(c.y) * size_t(w) + size_t(c.x)]);
    return at;
  });
  if (std::none_of(wc.begin(), wc.end(), [](const WorkClick& c) { return !c.background; })) {
    s.label.assign(n, 0);  // every subject was subtracted
    s.alpha = ImageF(image.width, image.height, 1);
    s.note = "every subject click was taken back by a later background click: nothing is selected";
    return s;
  }

  // Stage 2: reach from the subject clicks.
  std::fill(reach.begin(), reach.end(), kGeoInf);
  for (const WorkClick& c : wc)
    if (!c.background) reach[size_t(c.y) * size_t(w) + size_t(c.x)] = 0;
  geodesic_passes(reach.data(), w, h, ch.data(), cv.data(), p.iterations, threads);

  // Stages 3 and 4: seeds and colour samples.
  const int r = model_radius_cells(p, w, h);
  std::vector<uint32_t> sh(kBins, 0), bh(kBins, 0);
  std::vector<uint8_t> bg_seed(n, 0);
  size_t seeds = 0;
  for (int j = 0; j < h; ++j)
    for (int i = 0; i < w; ++i) {
      const size_t k = size_t(j) * size_t(w) + size_t(i);
      const select::SampleKind kind = select::sample_kind(i, j, w, h, reach[k], edge, wc.data(), int(wc.size()), r);
      const int bin = select::colour_bin(&work.rgb[k * 3]);
      if (kind.subject_sample) ++sh[size_t(bin)];
      if (kind.background_sample) ++bh[size_t(bin)];
      bg_seed[k] = kind.background_seed;
      seeds += kind.background_seed;
    }
  s.label.assign(n, 0);
  if (seeds == 0) {  // nothing lies beyond an edge: the click's region
    s.flood = true;
    for (size_t k = 0; k < n; ++k) s.label[k] = reach[k] < edge;
  } else {
    const SelectModels m = select_models(sh, bh, p.likelihood_weight);
    std::vector<uint32_t> ds(n), db(n);
    for (size_t k = 0; k < n; ++k) {
      const int bin = select::colour_bin(&work.rgb[k * 3]);
      ds[k] = m.subject[size_t(bin)], db[k] = bg_seed[k] ? 0u : m.background[size_t(bin)];
    }
    for (const WorkClick& c : wc)
      if (!c.background) ds[size_t(c.y) * size_t(w) + size_t(c.x)] = 0;
    geodesic_passes(ds.data(), w, h, ch.data(), cv.data(), p.iterations, threads);
    geodesic_passes(db.data(), w, h, ch.data(), cv.data(), p.iterations, threads);
    for (size_t k = 0; k < n; ++k) s.label[k] = ds[k] < db[k];
  }
  keep_connected(s.label, w, h, wc, p.iterations, threads);
  if (s.flood)
    s.note = std::all_of(s.label.begin(), s.label.end(), [](uint8_t v) { return v != 0; })
                 ? "no edge around the click: the whole image is selected"
                 : "no background beyond an edge at the frame: the click's region up to its edges is selected";

  // Stage 6: the matte, computed on the tiles that hold band pixels only.
  const ImageF m = label_full(s);
  const int radius = matte_radius(p, s.scale);
  const std::vector<uint8_t> band = matte_band(m, radius, threads);
  s.alpha = m;
  constexpr int kTile = 128;
  const int tx = (image.width + kTile - 1) / kTile, ty = (image.height + kTile - 1) / kTile;
  std::vector<int> tiles;
  for (int t = 0; t < tx * ty; ++t) {
    const int x0 = (t % tx) * kTile, y0 = (t / tx) * kTile;
    bool any = false;
    for (int y = y0; y < std::min(y0 + kTile, image.height) && !any; ++y)
      for (int x = x0; x < std::min(x0 + kTile, image.width) && !any; ++x)
        any = band[size_t(y) * size_t(image.width) + size_t(x)];
    if (any) tiles.push_back(t);
  }
  const GuidedParams gp{radius, p.matte_eps, false};
  GuidedOffsets off;
  off.guide = {0.5f, 0.5f, 0.5f}, off.p = 0.5f;
  const int halo = 2 * radius + 2;
  parallel_for(
      0, long(tiles.size()),
      [&](long t0, long t1) {
        for (long t = t0; t < t1; ++t) {
          const int x0 = (tiles[size_t(t)] % tx) * kTile, y0 = (tiles[size_t(t)] / tx) * kTile;
          const int x1 = std::min(x0 + kTile, image.width), y1 = std::min(y0 + kTile, image.height);
          const int cx0 = std::max(0, x0 - halo), cy0 = std::max(0, y0 - halo);
          const int cx1 = std::min(image.width, x1 + halo), cy1 = std::min(image.height, y1 + halo);
          const int cw = cx1 - cx0, chh = cy1 - cy0;
          ImageF guide(cw, chh, 3), pm(cw, chh, 1);
          for (int y = 0; y < chh; ++y)
            for (int x = 0; x < cw; ++x) {
              const uint8_t* px = image.px(cx0 + x, cy0 + y);
              for (int c = 0; c < 3; ++c) guide.at(x, y, c) = float(px[c]) / 255.f;
              pm.at(x, y) = m.at(cx0 + x, cy0 + y);
            }
          const ImageF q = guided_filter(guide, pm, gp, off, 1);
          for (int y = y0; y < y1; ++y)
            for (int x = x0; x < x1; ++x)
              if (band[size_t(y) * size_t(image.width) + size_t(x)])
                s.alpha.at(x, y) = std::clamp(q.at(x - cx0, y - cy0), 0.f, 1.f);
        }
      },
      threads);
  return s;
}

ImageF label_full(const Selection& s) {
  ImageF m(s.width, s.height, 1);
  for (int y = 0; y < s.height; ++y)
    for (int x = 0; x < s.width; ++x)
      m.at(x, y) = s.label[size_t(y / s.scale) * size_t(s.work_width) + size_t(x / s.scale)];
  return m;
}

std::vector<uint8_t> matte_band(const ImageF& m, int radius, int threads) {
  const int W = m.width, H = m.height;
  // An integer SAT of the label ((W+1) x (H+1), a zero row and column first).
  std::vector<uint32_t> sat(size_t(W + 1) * size_t(H + 1), 0);
  for (int y = 0; y < H; ++y) {
    uint32_t row = 0;
    for (int x = 0; x < W; ++x) {
      row += m.at(x, y) > 0.5f;
      sat[size_t(y + 1) * size_t(W + 1) + size_t(x + 1)] = sat[size_t(y) * size_t(W + 1) + size_t(x + 1)] + row;
    }
  }
  std::vector<uint8_t> band(size_t(W) * size_t(H), 0);
  parallel_for(
      0, H,
      [&](long y0, long y1) {
        for (int y = int(y0); y < int(y1); ++y)
          for (int x = 0; x < W; ++x) {
            const int ax = std::max(0, x - radius), ay = std::max(0, y - radius);
            const int bx = std::min(W, x + radius + 1), by = std::min(H, y + radius + 1);
            const size_t S = size_t(W + 1);
            const uint32_t sum = sat[size_t(by) * S + size_t(bx)] - sat[size_t(ay) * S + size_t(bx)] -
                                 sat[size_t(by) * S + size_t(ax)] + sat[size_t(ay) * S + size_t(ax)];
            const uint32_t area = uint32_t((bx - ax) * (by - ay));
            band[size_t(y) * size_t(W) + size_t(x)] = sum > 0 && sum < area;
          }
      },
      threads);
  return band;
}

const std::vector<Selector>& selectors() {
  static const std::vector<Selector> table = {
      {"geodesic", "geodesic (GeoS) + guided matte",
       "Criminisi, Sharp and Blake, GeoS, ECCV 2008; He, Sun and Tang, guided filter, ECCV 2010",
       [](const ImageRGBA8& image, const std::vector<SelectClick>& clicks, const SelectParams& p, int threads) {
         return select_subject_cpu(image, clicks, p, threads);
       }},
  };
  return table;
}

const Selector* find_selector(const std::string& name) {
  for (const Selector& s : selectors())
    if (name == s.name) return &s;
  return nullptr;
}

const char* to_string(SubjectLayout l) {
  switch (l) {
    case SubjectLayout::Open: return "open";
    case SubjectLayout::Wall: return "wall";
    case SubjectLayout::Floor: return "floor";
  }
  return "open";
}

SubjectLayout parse_subject_layout(const std::string& name) {
  for (SubjectLayout l : {SubjectLayout::Open, SubjectLayout::Wall, SubjectLayout::Floor})
    if (name == to_string(l)) return l;
  throw Error("unknown layout '" + name + "' (open, wall, floor)");
}

std::vector<SelectClick> parse_clicks(const std::string& list, bool background) {
  std::vector<SelectClick> out;
  std::stringstream ss(list);
  std::string item;
  while (std::getline(ss, item, ';')) {
    if (item.empty()) continue;
    const size_t comma = item.find(',');
    char* e1 = nullptr;
    char* e2 = nullptr;
    SelectClick c;
    c.background = background;
    if (comma != std::string::npos) {
      const std::string a = item.substr(0, comma), b = item.substr(comma + 1);
      c.x = std::strtof(a.c_str(), &e1), c.y = std::strtof(b.c_str(), &e2);
      if (!a.empty() && !b.empty() && !*e1 && !*e2 && std::isfinite(c.x) && std::isfinite(c.y)) {
        out.push_back(c);
        continue;
      }
    }
    throw Error("'" + item + "' is not a position X,Y (image pixels)");
  }
  if (out.empty()) throw Error("no position in '" + list + "' (X,Y[;X,Y...])");
  return out;
}

ImageF depth_from_selection(const Selection& s, const std::vector<SelectClick>& clicks, SubjectLayout layout,
                            float* focus) {
  const int w = s.work_width, h = s.work_height, W = s.width, H = s.height;
  // The subjects: the label's 4-connected regions, each with its lowest and highest row (full resolution).
  std::vector<int32_t> comp(size_t(w) * size_t(h), -1);
  std::vector<int> base, top;
  std::vector<size_t> stack;
  for (size_t k0 = 0; k0 < comp.size(); ++k0) {
    if (!s.label[k0] || comp[k0] >= 0) continue;
    const int id = int(base.size());
    int lo = h, hi = -1;
    comp[k0] = id;
    stack.push_back(k0);
    while (!stack.empty()) {
      const size_t k = stack.back();
      stack.pop_back();
      const int i = int(k % size_t(w)), j = int(k / size_t(w));
      lo = std::min(lo, j), hi = std::max(hi, j);
      const int ni[4] = {i - 1, i + 1, i, i}, nj[4] = {j, j, j - 1, j + 1};
      for (int q = 0; q < 4; ++q) {
        if (ni[q] < 0 || nj[q] < 0 || ni[q] >= w || nj[q] >= h) continue;
        const size_t kk = size_t(nj[q]) * size_t(w) + size_t(ni[q]);
        if (s.label[kk] && comp[kk] < 0) comp[kk] = id, stack.push_back(kk);
      }
    }
    top.push_back(lo * s.scale);
    base.push_back(std::min(H - 1, (hi + 1) * s.scale - 1));
  }
  const int horizon = top.empty() ? 0 : *std::min_element(top.begin(), top.end());
  auto ground = [&](int y) {  // floor: 0 at the bottom row, 1 at the horizon and above
    if (H <= 1 || y <= horizon) return 1.f;
    return std::clamp(float(H - 1 - y) / float(std::max(1, H - 1 - horizon)), 0.f, 1.f);
  };
  auto rest = [&](int y) {
    return layout == SubjectLayout::Open ? 1.f : layout == SubjectLayout::Wall ? kWallDepth : ground(y);
  };
  auto subject_depth = [&](int id) { return layout == SubjectLayout::Floor ? ground(base[size_t(id)]) : 0.f; };
  // Band pixels outside the label take the depth of the nearest subject cell in their row's neighbourhood.
  const int reach = 2 + 64 / std::max(1, s.scale);
  ImageF d(W, H, 1);
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      const float a = s.alpha.at(x, y), r = rest(y);
      if (a < 0.5f) {  // a hard depth edge at alpha 1/2 (core/select.hpp)
        d.at(x, y) = r;
        continue;
      }
      const int i = x / s.scale, j = y / s.scale;
      int id = comp[size_t(j) * size_t(w) + size_t(i)];
      for (int rr = 1; id < 0 && rr <= reach; ++rr)
        for (int q = 0; q < 4 && id < 0; ++q) {
          const int ii = i + (q == 0 ? -rr : q == 1 ? rr : 0), jj = j + (q == 2 ? -rr : q == 3 ? rr : 0);
          if (ii >= 0 && jj >= 0 && ii < w && jj < h) id = comp[size_t(jj) * size_t(w) + size_t(ii)];
        }
      const float sd = id >= 0 ? subject_depth(id) : r;
      d.at(x, y) = sd;
    }
  if (focus) {
    *focus = rest(0);
    for (const SelectClick& c : clicks) {
      if (c.background) continue;
      const int i = std::clamp(int(c.x) / s.scale, 0, w - 1), j = std::clamp(int(c.y) / s.scale, 0, h - 1);
      const int id = comp[size_t(j) * size_t(w) + size_t(i)];
      if (id >= 0) {
        *focus = subject_depth(id);
        break;
      }
    }
  }
  return d;
}

ImageRGBA8 select_bench_scene(int width, int height, std::vector<SelectClick>* clicks) {
  ImageRGBA8 img(width, height);
  uint32_t state = 12345u;
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      state = state * 1664525u + 1013904223u;
      const int noise = int(state >> 27);  // 0..31
      const double fx = (x + 0.5) / width - 0.55, fy = (y + 0.5) / height - 0.5;
      const bool subject = fx * fx / 0.06 + fy * fy / 0.12 < 1.0;
      const bool stripe = subject && int((x + 0.5) * 24 / width) % 3 == 0;
      uint8_t* p = img.px(x, y);
      p[0] = uint8_t(subject ? (stripe ? 230 : 190) - noise : 40 + (x * 60) / width + noise);
      p[1] = uint8_t(subject ? (stripe ? 200 : 80) - noise : 90 + (y * 60) / height + noise);
      p[2] = uint8_t(subject ? 50 + noise : 150 + noise);
      p[3] = 255;
    }
  if (clicks) *clicks = {{float(width) * 0.55f, float(height) * 0.5f, false}};
  return img;
}

}  // namespace satlab
