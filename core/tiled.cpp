// The tiled executor (core/tiled.hpp). Memory: two ring buffers of the rows one band needs (image and raw
// depth, full width), the band's result rows, and per worker one tile with its halo (staging and the
// pipeline's own buffers): nothing grows with the image's height, and only the rings and the result rows
// with its width.
#include "core/tiled.hpp"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cmath>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>

#include "core/coc_pixel.hpp"
#include "core/dof_modes.hpp"
#include "core/dof_spread_pixel.hpp"
#include "core/error.hpp"
#include "core/highlights.hpp"
#include "core/highlights_pixel.hpp"
#include "core/reference.hpp"

namespace satlab {
namespace {

// Tile origins lie on multiples of this in the image: the spread's fill tables group pixels in blocks of
// kFillBlock from the frame's origin (dof_spread_halo). Other modes do not care.
constexpr uint32_t kAlign = uint32_t(dof::kFillBlock);
constexpr uint32_t kMinTile = 64;
constexpr size_t kMaxCpuTile = size_t(1) << 28;  // the CPU backend's limit on an image's pixels

uint32_t align_down(uint32_t v) {
  return v / kAlign * kAlign;
}

struct Span {
  uint32_t lo, hi;
};

// One axis of n pixels cut into tiles of `tile`, each read with its frame: the tile's interior [a, b) and
// the halo on both sides, clamped to the axis, starting on a multiple of kAlign. Every frame spans the same
// `extent` (where the halo is clamped at an end, the frame takes the rest from the other side: more context
// changes no pixel), so a pipeline keeps its buffers from tile to tile (the GPU's reallocates at every new
// size, the CPU's would fragment the heap).
struct Axis {
  uint32_t n, tile, halo, extent;
  Axis(uint32_t n_, uint32_t tile_, uint32_t halo_) : n(n_), tile(tile_), halo(halo_) {
    // Interior, two halos and the alignment's kAlign - 1, and the parity that puts the last frame on the
    // grid too.
    uint64_t e = uint64_t(tile) + 2 * uint64_t(halo) + kAlign;
    if (e < n) e += (n - e) % kAlign;
    extent = uint32_t(std::min<uint64_t>(e, n));
  }
  Span frame(uint32_t a) const {
    if (extent == n) return {0, n};
    const uint32_t lo = align_down(a > halo ? a - halo : 0);
    return uint64_t(lo) + extent <= n ? Span{lo, lo + extent} : Span{n - extent, n};
  }
  uint64_t tiles() const { return (uint64_t(n) + tile - 1) / tile; }
  double work() const { return double(tiles()) * double(extent); }  // the pixels the frames span, summed
};

std::string mb(double bytes) {
  return std::to_string(uint64_t(std::ceil(bytes / double(1 << 20))));
}

// Rows of an image (`width` elements of T each) in a ring: row y at slot y mod capacity. Rows arrive in
// order, each read once from its source.
template <typename T>
class RowRing {
 public:
  RowRing(size_t row_elems, uint32_t capacity)
      : row_(row_elems), cap_(capacity), data_(row_elems * capacity) {}
  // Makes rows up to y1 (exclusive) present, reading those not yet read; read(y0, y1, ptr, stride).
  template <typename Read>
  void fill_to(uint32_t y1, const Read& read) {
    while (end_ < y1) {
      const uint32_t slot = end_ % cap_, n = std::min(y1 - end_, cap_ - slot);
      read(end_, end_ + n, data_.data() + size_t(slot) * row_, row_);
      end_ += n;
    }
  }
  const T* row(uint32_t y) const { return data_.data() + size_t(y % cap_) * row_; }

 private:
  size_t row_;
  uint32_t cap_, end_ = 0;
  std::vector<T> data_;
};

// Host bytes per pixel of a tile's frame in a pipeline of `p` (the backend's own buffers;
// core/cpu_pipeline.cpp, gpu/pipeline.cu), and the device bytes of a GPU pipeline: their sizes as those files
// allocate them.
struct FrameBytes {
  double host = 0, device = 0;
};
FrameBytes frame_bytes(const Params& p, bool gpu, double fw, double fh) {
  const double n = fw * fh;
  FrameBytes b;
  const bool dof = p.filter == FilterKind::Dof;
  if (gpu) {
    b.host = 8 * n;                        // the upload's copy, the result
    b.device = 36 * n + double(64 << 20);  // image, SAT, result, depth, normalised depth, CoC; slack
  } else {
    b.host = 8 * n + (dof ? 12 : 16) * n;  // image, result; depth, normalised, CoC, or the box's SAT
  }
  if (!dof) return b;
  const DofMode& m = dof_mode_of(p);
  const DofSetup s = dof_setup(m, p);
  const double L = s.layers, blocks = n / double(dof::kFillBlock * dof::kFillBlock);
  const int R = shaped_max_radius(p);
  double mode_host = 0, mode_device = 0;
  if (!m.shaped) {
    mode_host = 16 * n;  // gather_box's SAT (the GPU's borrows the box filter's)
  } else if (!m.spread) {
    mode_host = 8 * n + 16 * L * n;                 // slice, layer tables
    mode_device = 20 * L * (s.linear ? 2 : 1) * n;  // images and tables per layer
  } else {
    const double padded = (fw + 2 * R) * (fh + 2 * R);
    mode_host = 16 * L * n + 6 * padded + (16 * (L - 1) + 8) * blocks;  // deltas, splits, fill tables
    mode_device = 16 * L * n + 4 * n + 40 * (L - 1) * blocks + 16 * L * fw;
  }
  if (p.highlights) {
    const double sprites = std::min(double(p.highlight_cap), n);
    mode_host += 28 * n + 20 * sprites;    // masked input, row planes; sprite lists
    mode_device += 36 * n + 32 * sprites;  // masked input, indices, planes; sort pairs and scratch
  }
  b.host += gpu ? 0 : mode_host;
  b.device += gpu ? mode_device : 0;
  return b;
}

// The executor's and pipelines' peak bytes for tiles of tw x th.
FrameBytes plan_bytes(uint32_t w, uint32_t h, const Params& p, bool gpu, int workers, uint32_t tw,
                      uint32_t th, uint32_t halo) {
  const bool dof = p.filter == FilterKind::Dof;
  const double rows = Axis(h, th, halo).extent, cols = Axis(w, tw, halo).extent;
  const double staging = (dof ? 8 : 4) * rows * cols;  // a tile's image and depth
  FrameBytes b = frame_bytes(p, gpu, cols, rows);
  const double rings = (dof ? 8 : 4) * rows * double(w), result_rows = 4 * double(th) * double(w);
  // A tile's buffers as measured (a CPU pipeline's peak resident bytes per pixel within 5% of frame_bytes'),
  // and a margin for the moments where a buffer of a new size and the old one are both held (tiles at the
  // image's edges are smaller) and for the allocator: tiled runs peaked 4-12% above the buffers' sum.
  constexpr double kMargin = 1.15;
  return {rings + result_rows + kMargin * double(workers) * (staging + b.host),
          kMargin * double(workers) * b.device};
}

// The highlight test of core/highlights.cpp (highlight_compact) for one pixel of the image.
struct HighlightTest {
  const uint16_t* lin;
  uint32_t lum_min;
  int max_r;
  dof::Lens lens;
  dof::FocusBand band;
  explicit HighlightTest(const Params& p)
      : lin(srgb_to_linear12(p.response_shoulder)),
        lum_min(hl::luminance_min(p.highlight_threshold, p.response_shoulder)),
        max_r(shaped_max_radius(p)),
        lens{p.aperture, p.max_radius, p.near_depth, p.far_depth, p.disparity},
        band(dof::focus_band(p.focus, p.focus_range, lens)) {}
  // d: the pixel's normalised depth.
  bool passes(const uint8_t* px, float d) const {
    if (hl::luminance(lin[px[0]], lin[px[1]], lin[px[2]]) < lum_min) return false;
    return dof::shaped_radius(dof::coc_of(d, lens, band), max_r) >= hl::kMinRadius;
  }
};

void check_size(uint32_t w, uint32_t h, const char* what) {
  if (w == 0 || h == 0)
    throw Error(std::string(what) + " of " + std::to_string(w) + "x" + std::to_string(h) +
                " pixels is empty");
  if (w > uint32_t(INT_MAX) || h > uint32_t(INT_MAX))
    throw Error(std::string(what) + " of " + std::to_string(w) + "x" + std::to_string(h) +
                " pixels: a side over 2^31 - 1 pixels is not supported");
}

}  // namespace

uint32_t tiled_halo(const Params& p) {
  validate(p);
  if (p.filter == FilterKind::Box) return uint32_t(std::min(p.box_radius, kMaxBlurRadius));
  const int mode = dof_mode_of(p).halo_of(p);
  return uint32_t(p.highlights ? std::max(mode, highlight_halo(p)) : mode);
}

std::string tiled_support(const Params& p) {
  validate(p);
  if (p.filter == FilterKind::Dof && p.highlights)
    return "highlights: a tile keeps up to highlight_cap (" + std::to_string(p.highlight_cap) +
           ") sprites of its own, the whole image its first highlight_cap in raster order: identical only "
           "while the image has at most that many highlights";
  return "";
}

TilePlan plan_tiles(uint32_t width, uint32_t height, const Params& p, size_t memory_budget, bool gpu,
                    uint32_t max_tile, int workers) {
  check_size(width, height, "image");
  workers = std::max(workers, 1);
  const uint32_t halo = tiled_halo(p);
  // Candidate sides: powers of 2 from kMinTile, and the image's own side, capped. Across a band, at least
  // one tile per worker where the image is wide enough.
  const auto sides = [&](uint32_t n, uint64_t least_tiles) {
    std::vector<uint32_t> s;
    const uint32_t cap = max_tile ? std::min(max_tile, n) : n;
    for (uint64_t v = kMinTile; v < cap; v *= 2) s.push_back(uint32_t(v));
    s.push_back(cap);
    s.erase(std::remove_if(s.begin(), s.end(),
                           [&](uint32_t t) { return (uint64_t(n) + t - 1) / t < least_tiles; }),
            s.end());
    return s;
  };
  const uint64_t across = std::min<uint64_t>(uint64_t(workers), (uint64_t(width) + kMinTile - 1) / kMinTile);
  TilePlan best;
  double best_work = 0;
  for (uint32_t tw : sides(width, across))
    for (uint32_t th : sides(height, 1)) {
      const FrameBytes b = plan_bytes(width, height, p, gpu, workers, tw, th, halo);
      const Axis x(width, tw, halo), y(height, th, halo);
      const double frame = double(x.extent) * double(y.extent);
      if ((!gpu && frame > double(kMaxCpuTile)) || b.host > double(memory_budget) ||
          b.device > double(memory_budget))
        continue;
      const double work = x.work() * y.work();
      const bool larger = double(tw) * th > double(best.tile_width) * best.tile_height;
      if (best.tile_width == 0 || work < best_work || (work == best_work && larger)) {
        best_work = work;
        best = {tw, th, halo, size_t(b.host), size_t(b.device), uint64_t(work)};
      }
    }
  if (best.tile_width == 0) {
    const uint32_t tw = std::min(kMinTile, width), th = std::min(kMinTile, height);
    const FrameBytes b = plan_bytes(width, height, p, gpu, workers, tw, th, halo);
    throw Error("memory budget of " + std::to_string(memory_budget >> 20) + " MB is too small for one " +
                std::to_string(tw) + "x" + std::to_string(th) + " tile with its halo of " +
                std::to_string(halo) + " (needs " + mb(std::max(b.host, b.device)) + " MB)");
  }
  return best;
}

FrameStats depth_frame_stats(const DepthSource& depth, uint32_t band_rows, const Params* p) {
  check_size(depth.width, depth.height, "depth map");
  if (!depth.read) throw Error("depth source has no reader");
  const uint32_t w = depth.width, h = depth.height, rows = std::max(1u, std::min(band_rows, h));
  FrameStats s;
  s.valid = s.has_depth = true;
  ImageF raw(int(w), int(rows), 1), norm;
  // Each pass: band by band, raw.height rows of it in raw (the last band fewer).
  const auto pass = [&](const std::function<void()>& band) {
    for (uint32_t y = 0; y < h; y += rows) {
      const uint32_t n = std::min(rows, h - y);
      raw.height = int(n);
      raw.data.resize(size_t(w) * n);
      depth.read(y, y + n, raw.data.data(), w);
      band();
    }
  };
  // 1. The range, as minmax_reduce takes it over the whole image (NaN skipped wherever it lies).
  const float inf = INFINITY;
  MinMax mm{inf, -inf};
  pass([&] {
    const MinMax b = minmax_reduce(raw.data.data(), raw.data.size());
    if (b.min == b.min) mm.min = std::min(mm.min, b.min), mm.max = std::max(mm.max, b.max);
  });
  if (mm.min > mm.max) mm.min = mm.max = NAN;
  s.depth_min = mm.min, s.depth_max = mm.max;
  // 2. The histogram of the normalised depth (normalise_depth's and depth_histogram's own arithmetic).
  std::vector<uint64_t> count(kDepthBins + 1, 0);
  DepthHistogram part;
  pass([&] {
    normalise_depth(raw, mm, norm);
    depth_histogram(norm, part);
    for (int b = 0; b <= kDepthBins; ++b) count[size_t(b)] += part.count[size_t(b)];
  });
  int shift = 0;
  while ((*std::max_element(count.begin(), count.end()) >> shift) > UINT32_MAX) ++shift;
  s.histogram.count.resize(kDepthBins + 1);
  for (int b = 0; b <= kDepthBins; ++b) {
    const uint64_t c = count[size_t(b)];
    s.histogram.count[size_t(b)] = uint32_t(c ? std::max<uint64_t>(c >> shift, 1) : 0);
  }
  // 3. The layered mode's layer sums: the CoC map's (coc_map) under the layers the tiles will use.
  if (p && p->filter == FilterKind::Dof) {
    const DofMode& m = dof_mode_of(*p);
    const int layers = dof_setup(m, *p).layers;
    if (m.occlusion && !m.spread && layers > 1) {  // the modes that read dof::Layers::mean_coc
      const dof::Layers l = frame_layers(*p, layers, &s.histogram);
      ImageF coc;
      pass([&] {
        normalise_depth(raw, mm, norm);
        coc_map(norm, *p, coc);
        add_layer_sums(coc.data.data(), coc.data.size(), l, s.layers);
      });
    }
  }
  return s;
}

TiledReport run_tiled(const RowSource& image, const DepthSource* depth, const Params& p, const TilePlan& plan,
                      const std::function<std::unique_ptr<Pipeline>()>& make_pipeline, const RowSink& out,
                      int workers, const std::function<bool(const TiledProgress&)>& progress) {
  check_size(image.width, image.height, "image");
  if (!image.read || !out.write || !make_pipeline) throw Error("tiled run: no row source, sink or pipeline");
  const uint32_t W = image.width, H = image.height;
  const bool dof = p.filter == FilterKind::Dof;
  if (!dof) depth = nullptr;  // the box filter reads no depth
  if (depth) {
    if (depth->width != W || depth->height != H)
      throw Error("depth map is " + std::to_string(depth->width) + "x" + std::to_string(depth->height) +
                  " but the image is " + std::to_string(W) + "x" + std::to_string(H));
    if (!depth->read) throw Error("depth source has no reader");
  }
  const uint32_t need = tiled_halo(p), halo = plan.halo;
  if (halo < need)
    throw Error("tile plan's halo of " + std::to_string(halo) + " is smaller than the " +
                std::to_string(need) + " this filter needs");
  if (plan.tile_width == 0 || plan.tile_height == 0) throw Error("tile plan has an empty tile");
  const uint32_t tw = plan.tile_width, th = std::min(plan.tile_height, H);
  const Axis ax(W, tw, halo), ay(H, th, halo);  // frames of at most W x H (check_size: below 2^31 each)

  // The statistics first (the depth's passes), then one pipeline per worker that has them.
  FrameStats stats;
  // The passes hold up to three float images of their band (raw, normalised, CoC): half the rings' rows
  // keep them within the rings' bytes, which they precede.
  if (depth) stats = depth_frame_stats(*depth, std::max(ay.extent / 2, 1u), &p);
  const uint32_t tiles_x = uint32_t(ax.tiles());
  const int nw = int(std::max<int64_t>(1, std::min<int64_t>(workers, tiles_x)));
  struct Worker {
    std::unique_ptr<Pipeline> pipe;
    ImageRGBA8 img;
    ImageF depth;
  };
  std::vector<Worker> crew(static_cast<size_t>(nw));
  for (Worker& k : crew) {
    k.pipe = make_pipeline();
    k.pipe->set_params(p);
    k.pipe->set_frame_stats(stats);
  }

  RowRing<uint8_t> rgba(size_t(W) * 4, ay.extent);  // a band's frame's rows
  std::unique_ptr<RowRing<float>> raw;
  if (depth) raw = std::make_unique<RowRing<float>>(size_t(W), ay.extent);
  std::vector<uint8_t> result(size_t(th) * W * 4);
  TiledReport report;
  const bool count_highlights = dof && p.highlights;
  const HighlightTest hl(p);
  const float range = stats.depth_max - stats.depth_min;

  for (uint32_t by0 = 0; by0 < H; by0 += th) {
    const uint32_t by1 = std::min(by0 + th, H);
    const Span fy = ay.frame(by0);
    rgba.fill_to(fy.hi,
                 [&](uint32_t y0, uint32_t y1, uint8_t* d, size_t stride) { image.read(y0, y1, d, stride); });
    if (raw)
      raw->fill_to(
          fy.hi, [&](uint32_t y0, uint32_t y1, float* d, size_t stride) { depth->read(y0, y1, d, stride); });

    // The band's tiles, taken by the workers in turn; each copies its tile with the halo out of the rings,
    // runs it and writes its interior into the band's result rows.
    std::atomic<uint32_t> next{0};
    std::exception_ptr failed;
    std::mutex failed_mutex;
    const auto work = [&](Worker& k) {
      try {
        for (uint32_t t; (t = next++) < tiles_x;) {
          const uint32_t bx0 = t * tw, bx1 = uint32_t(std::min<uint64_t>(uint64_t(bx0) + tw, W));
          const Span fx = ax.frame(bx0);
          const int fw = int(fx.hi - fx.lo), fh = int(fy.hi - fy.lo);
          k.img.width = fw, k.img.height = fh;
          k.img.data.resize(size_t(fw) * size_t(fh) * 4);
          for (int y = 0; y < fh; ++y)
            std::memcpy(k.img.px(0, y), rgba.row(fy.lo + uint32_t(y)) + size_t(fx.lo) * 4, size_t(fw) * 4);
          k.pipe->set_image(k.img);
          if (raw) {
            k.depth.width = fw, k.depth.height = fh, k.depth.channels = 1;
            k.depth.data.resize(size_t(fw) * size_t(fh));
            for (int y = 0; y < fh; ++y)
              std::memcpy(&k.depth.at(0, y), raw->row(fy.lo + uint32_t(y)) + fx.lo, size_t(fw) * 4);
            k.pipe->set_depth(k.depth);
          }
          k.pipe->run();
          const ImageRGBA8& r = k.pipe->result();
          for (uint32_t y = by0; y < by1; ++y)
            std::memcpy(result.data() + (size_t(y - by0) * W + bx0) * 4,
                        r.px(int(bx0 - fx.lo), int(y - fy.lo)), size_t(bx1 - bx0) * 4);
        }
      } catch (...) {
        std::lock_guard<std::mutex> lock(failed_mutex);
        if (!failed) failed = std::current_exception();
        next = tiles_x;  // the others stop after their tile
      }
    };
    std::vector<std::thread> helpers;
    try {
      for (int i = 1; i < nw; ++i) helpers.emplace_back(work, std::ref(crew[size_t(i)]));
    } catch (...) {  // no thread to be had: those started finish their tile, the error goes up
      next = tiles_x;
      for (std::thread& t : helpers) t.join();
      throw;
    }
    work(crew[0]);
    for (std::thread& t : helpers) t.join();
    if (failed) std::rethrow_exception(failed);
    report.tiles += tiles_x;

    if (count_highlights)
      for (uint32_t y = by0; y < by1; ++y) {
        const uint8_t* px = rgba.row(y);
        const float* d = raw ? raw->row(y) : nullptr;
        for (uint32_t x = 0; x < W; ++x)
          report.highlights_found +=
              hl.passes(px + size_t(x) * 4, d ? normalised_depth(d[x], stats.depth_min, range) : p.focus);
      }
    out.write(by1 - by0, result.data(), size_t(W) * 4);
    if (progress && !progress(TiledProgress{by1, H})) throw Error("cancelled");
  }
  report.exact = !count_highlights || report.highlights_found <= uint64_t(p.highlight_cap);
  return report;
}

}  // namespace satlab
