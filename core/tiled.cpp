// The tiled executor (core/tiled.hpp; its planner: core/tile_plan.cpp). Memory: two ring buffers of the rows
// a band and the next need (image and raw depth, full width), two bands' result rows, and per worker one
// tile with its halo (staging and the pipeline's own buffers): nothing grows with the image's height, and
// only the rings and the result rows with its width.
#include "core/tiled.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <functional>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "core/chromatic.hpp"
#include "core/coc_pixel.hpp"
#include "core/dof_modes.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/grain.hpp"
#include "core/highlights.hpp"
#include "core/highlights_pixel.hpp"
#include "core/reference.hpp"
#include "core/tile_frames.hpp"

namespace satlab {
namespace {

using tiling::Axis;
using tiling::check_size;
using tiling::Span;

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
  T* data() { return data_.data(); }
  size_t bytes() const { return data_.size() * sizeof(T); }

 private:
  size_t row_;
  uint32_t cap_, end_ = 0;
  std::vector<T> data_;
};

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
        lens(lens_of(p)),
        band(focus_band_of(p)) {}
  // d: the pixel's normalised depth.
  bool passes(const uint8_t* px, float d) const {
    if (hl::luminance(lin[px[0]], lin[px[1]], lin[px[2]]) < lum_min) return false;
    return dof::shaped_radius(dof::coc_of(d, lens, band), max_r) >= hl::kMinRadius;
  }
};

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

DepthHistogram histogram_of_counts(const std::vector<uint64_t>& count) {
  int shift = 0;
  while (!count.empty() && (*std::max_element(count.begin(), count.end()) >> shift) > UINT32_MAX) ++shift;
  DepthHistogram h;
  h.count.resize(count.size());
  for (size_t b = 0; b < count.size(); ++b)
    h.count[b] = uint32_t(count[b] ? std::max<uint64_t>(count[b] >> shift, 1) : 0);
  return h;
}

namespace {

// A 16-bit depth file's values are k / 65535 (io::load_depth and the streamed rows alike; an 8-bit one's k / 255
// are the same floats: both divisions are correctly rounded quotients of one real). Where every value of a map
// lies on that grid, a count per k taken with the range gives the histogram without a second pass.
constexpr int kGridSteps = 65535;
const std::vector<float>& grid_values() {
  static const std::vector<float> v = [] {
    std::vector<float> g(kGridSteps + 1);
    for (int k = 0; k <= kGridSteps; ++k) g[size_t(k)] = float(k) / float(kGridSteps);
    return g;
  }();
  return v;
}
// Counts per grid step over the bands of a pass, one table per worker kept across the bands and summed once
// at the end; off for good at the first value off the grid (NaN, infinities, a float depth).
class GridCounts {
 public:
  GridCounts() : chunks_(std::max(1, default_threads())), part_(size_t(chunks_)) {}
  bool on() const { return on_; }
  void add(const float* v, size_t n) {
    if (!on_) return;
    const std::vector<float>& g = grid_values();
    const int chunks = int(std::min<size_t>(size_t(chunks_), std::max<size_t>(1, n / 65536)));
    std::atomic<bool> ok{true};
    parallel_for(
        0, chunks,
        [&](long c0, long c1) {
          for (long c = c0; c < c1; ++c) {
            std::vector<uint64_t>& mine = part_[size_t(c)];
            if (mine.empty()) mine.assign(size_t(kGridSteps) + 1, 0);
            for (size_t i = n * size_t(c) / size_t(chunks), e = n * size_t(c + 1) / size_t(chunks); i < e; ++i) {
              const float x = v[i];
              if (!(x >= 0.f && x <= 1.f)) return ok.store(false);
              const int k = int(x * float(kGridSteps) + 0.5f);
              if (g[size_t(k)] != x) return ok.store(false);
              ++mine[size_t(k)];
            }
          }
        },
        chunks);
    on_ = ok;
  }
  // Count per step over everything added (on() only).
  std::vector<uint64_t> total() const {
    std::vector<uint64_t> t(size_t(kGridSteps) + 1, 0);
    for (const auto& q : part_)
      for (size_t k = 0; k < q.size(); ++k) t[k] += q[k];
    return t;
  }

 private:
  int chunks_;
  std::vector<std::vector<uint64_t>> part_;
  bool on_ = true;
};

}  // namespace

FrameStats depth_frame_stats(const DepthRowSource& depth, uint32_t band_rows, const Params* p) {
  check_size(depth.width, depth.height, "depth map");
  if (!depth.read) throw Error("depth source has no reader");
  const uint32_t w = depth.width, h = depth.height, rows = std::max(1u, std::min(band_rows, h));
  FrameStats s;
  s.valid = s.has_depth = true;
  ImageF raw[2], norm;  // each band buffer sized by its first read (none where the source knows its range)
  for (ImageF& b : raw) b.width = int(w);
  // Each pass: band by band, raw.height rows of it in a band buffer (the last band fewer), the next band read
  // into the other buffer on a thread of its own while this one is worked on (in order, one read at a
  // time; read here when no thread can be had).
  const auto read_band = [&](ImageF& b, uint32_t y) {
    const uint32_t n = std::min(rows, h - y);
    b.height = int(n);
    b.data.resize(size_t(w) * n);
    depth.read(y, y + n, b.data.data(), w);
  };
  const auto pass = [&](const std::function<void(const ImageF&)>& band) {
    read_band(raw[0], 0);
    for (uint32_t y = 0, k = 0; y < h; y += rows, k ^= 1u) {
      std::exception_ptr failed;
      std::thread next;
      if (h - y > rows) {
        try {
          next = std::thread([&, y, k] {
            try {
              read_band(raw[k ^ 1u], y + rows);
            } catch (...) {
              failed = std::current_exception();
            }
          });
        } catch (const std::system_error&) {
        }
      }
      try {
        band(raw[k]);
      } catch (...) {
        if (next.joinable()) next.join();
        throw;
      }
      if (next.joinable())
        next.join();
      else if (h - y > rows)
        read_band(raw[k ^ 1u], y + rows);
      if (failed) std::rethrow_exception(failed);
    }
  };
  MinMax mm;
  if (depth.known_stats) {  // the source's own range and histogram (synthetic depth: its formula)
    const FrameStats known = depth.known_stats();
    if (!known.valid || known.histogram.count.size() != size_t(kDepthBins + 1))
      throw Error("depth source's statistics are incomplete");
    s.histogram = known.histogram;
    mm = {known.depth_min, known.depth_max};
  } else {
    // 1. The range, as minmax_reduce takes it over the whole image (NaN skipped wherever it lies), and the
    //    counts per grid step while every value lies on the 16-bit grid.
    const float inf = INFINITY;
    mm = {inf, -inf};
    GridCounts counts;
    pass([&](const ImageF& b) {
      const MinMax r = minmax_reduce(b.data.data(), b.data.size());
      if (r.min == r.min) mm.min = std::min(mm.min, r.min), mm.max = std::max(mm.max, r.max);
      counts.add(b.data.data(), b.data.size());
    });
    const bool on_grid = counts.on();
    if (mm.min > mm.max) mm.min = mm.max = NAN;
    // 2. The histogram of the normalised depth: normalise_depth's and depth_histogram's own arithmetic
    //    (depth_histogram of the raw band, normalised value by value), so that the band is read once; on the
    //    grid, the same arithmetic on each step's value, its count at once (no second pass).
    std::vector<uint64_t> count(kDepthBins + 1, 0);
    if (on_grid) {
      const float lo = mm.min, range = mm.max - mm.min;  // as normalise_depth
      const std::vector<float>& g = grid_values();
      const std::vector<uint64_t> grid = counts.total();
      for (size_t k = 0; k < grid.size(); ++k)
        if (grid[k]) count[size_t(depth_bin(normalised_depth(g[k], lo, range)))] += grid[k];
    } else {
      DepthHistogram part;
      pass([&](const ImageF& b) {
        depth_histogram(b.data.data(), b.data.size(), mm.min, mm.max, part);
        for (int k = 0; k <= kDepthBins; ++k) count[size_t(k)] += part.count[size_t(k)];
      });
    }
    s.histogram = histogram_of_counts(count);
  }
  s.depth_min = mm.min, s.depth_max = mm.max;
  // 3. The layered mode's layer sums: the CoC map's (coc_map) under the layers the tiles will use.
  if (p && p->filter == FilterKind::Dof) {
    const DofMode& m = dof_mode_of(*p);
    const int layers = dof_setup(m, *p).layers;
    if (m.occlusion && !m.spread && layers > 1) {  // the modes that read dof::Layers::mean_coc
      const dof::Layers l = frame_layers(*p, layers, &s.histogram);
      ImageF coc;
      pass([&](const ImageF& b) {
        normalise_depth(b, mm, norm);
        coc_map(norm, *p, coc);
        add_layer_sums(coc.data.data(), coc.data.size(), l, s.layers);
      });
    }
  }
  return s;
}

namespace {

// Busy time of a stage, in seconds, added to `sum` when it leaves scope.
class BusyClock {
 public:
  explicit BusyClock(double& sum) : sum_(sum), t0_(std::chrono::steady_clock::now()) {}
  ~BusyClock() { sum_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count(); }

 private:
  double& sum_;
  std::chrono::steady_clock::time_point t0_;
};

// The three stages' hand-offs: bands read, bands filtered, bands written (counts from the top), and the
// first failure of any stage, which stops the others at their next wait.
class BandFlow {
 public:
  // Waits until ready() holds or a stage failed (then false).
  template <typename Ready>
  bool wait(const Ready& ready) {
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [&] { return failed_ || ready(); });
    return !failed_;
  }
  void set(uint32_t& counter, uint32_t value) {
    {
      std::lock_guard<std::mutex> lock(m_);
      counter = value;
    }
    cv_.notify_all();
  }
  void fail(std::exception_ptr e) {
    {
      std::lock_guard<std::mutex> lock(m_);
      if (!error_) error_ = e;
      failed_ = true;
    }
    cv_.notify_all();
  }
  void rethrow() {
    std::lock_guard<std::mutex> lock(m_);
    if (error_) std::rethrow_exception(error_);
  }
  uint32_t read = 0, filtered = 0, written = 0;  // bands, guarded by the mutex

 private:
  std::mutex m_;
  std::condition_variable cv_;
  bool failed_ = false;
  std::exception_ptr error_;
};

}  // namespace

TiledReport run_tiled(const RowSource& image, const DepthRowSource* depth, const Params& p,
                      const TilePlan& plan, const std::function<std::unique_ptr<Pipeline>()>& make_pipeline,
                      const RowSink& out, int workers,
                      const std::function<bool(const TiledProgress&)>& progress) {
  const auto start = std::chrono::steady_clock::now();
  check_size(image.width, image.height, "image");
  if (!image.read || !out.write || !make_pipeline) throw Error("tiled run: no row source, sink or pipeline");
  if (p.filter == FilterKind::Dof && p.grain > 0.f) throw Error(kGrainWholeImage);
  // Red and blue's pass takes the whole image's histogram but not its layer sums (core/chromatic.hpp).
  // Cat-eye's bins are the frame's (dof::cat_eye_bin), a tile's own there.
  if (p.filter == FilterKind::Dof && p.cat_eye > 0.f)
    throw Error("--cat-eye: a tiled or streamed render cannot carry it (its bokeh depends on the place in the "
                "whole frame); use a whole-image render");
  if (uses_chromatic(p) && dof_mode_of(p).id == DofModeId::Layered)
    throw Error("--chromatic: a tiled or streamed render of the layered mode cannot carry it (its layer means "
                "are the whole image's); use another mode or a whole-image render");
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
  const uint32_t bands = uint32_t((uint64_t(H) + th - 1) / th);
  TiledReport report;

  // The statistics first (the depth's passes), then one pipeline per worker that has them.
  FrameStats stats;
  // The passes hold up to three float images of their band (raw, normalised, CoC): half the rings' rows
  // keep them within the rings' bytes, which they precede.
  if (depth) {
    BusyClock busy(report.stats_s);
    stats = depth_frame_stats(*depth, std::max(ay.extent / 2, 1u), &p);
  }
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

  // Reading, filtering and writing run at once, a band apart: the rings hold a band's frame and the next
  // band's rows (tiling::ring_rows), the result two bands.
  const uint32_t cap = tiling::ring_rows(ay);
  RowRing<uint8_t> rgba(size_t(W) * 4, cap);
  std::unique_ptr<RowRing<float>> raw;
  if (depth) raw = std::make_unique<RowRing<float>>(size_t(W), cap);
  std::vector<uint8_t> result[2];
  for (std::vector<uint8_t>& r : result) r.resize(size_t(th) * W * 4);
  // The rings and result rows pinned for a GPU backend's copies (Pipeline::pin_host), unpinned before they
  // are freed (this guard is destroyed first).
  struct Pins {
    Pipeline* pipe;
    std::vector<void*> pinned;
    void add(void* ptr, size_t bytes) {
      if (bytes && pipe->pin_host(ptr, bytes)) pinned.push_back(ptr);
    }
    ~Pins() {
      for (void* ptr : pinned) pipe->unpin_host(ptr);
    }
  } pins{crew[0].pipe.get(), {}};
  pins.add(rgba.data(), rgba.bytes());
  if (raw) pins.add(raw->data(), raw->bytes());
  for (std::vector<uint8_t>& r : result) pins.add(r.data(), r.size());
  const bool count_highlights = dof && p.highlights;
  const HighlightTest hl(p);
  const float range = stats.depth_max - stats.depth_min;
  const auto band_rows = [&](uint32_t b) {
    return Span{b * th, uint32_t(std::min<uint64_t>(uint64_t(b) * th + th, H))};
  };

  BandFlow flow;
  // Reading band b overwrites ring rows below its frame's end minus the rings' capacity: those of bands
  // filtered already.
  const auto reader = [&] {
    try {
      for (uint32_t b = 0; b < bands; ++b) {
        const Span fy = ay.frame(band_rows(b).lo);
        if (!flow.wait(
                [&] { return uint64_t(fy.hi) <= uint64_t(ay.frame(band_rows(flow.filtered).lo).lo) + cap; }))
          return;
        {
          BusyClock busy(report.read_s);
          rgba.fill_to(fy.hi, [&](uint32_t y0, uint32_t y1, uint8_t* d, size_t stride) {
            image.read(y0, y1, d, stride);
          });
          if (raw)
            raw->fill_to(fy.hi, [&](uint32_t y0, uint32_t y1, float* d, size_t stride) {
              depth->read(y0, y1, d, stride);
            });
        }
        flow.set(flow.read, b + 1);
      }
    } catch (...) {
      flow.fail(std::current_exception());
    }
  };
  const auto writer = [&] {
    try {
      for (uint32_t b = 0; b < bands; ++b) {
        if (!flow.wait([&] { return flow.filtered > b; })) return;
        const Span r = band_rows(b);
        {
          BusyClock busy(report.write_s);
          out.write(r.hi - r.lo, result[b % 2].data(), size_t(W) * 4);
        }
        flow.set(flow.written, b + 1);
      }
    } catch (...) {
      flow.fail(std::current_exception());
    }
  };

  // A band's tiles, taken by the workers in turn; each copies its tile with the halo out of the rings, runs
  // it and writes its interior into the band's result rows.
  const auto filter_band = [&](uint32_t b) {
    const Span rows = band_rows(b);
    const uint32_t by0 = rows.lo, by1 = rows.hi;
    const Span fy = ay.frame(by0);
    uint8_t* res = result[b % 2].data();
    std::atomic<uint32_t> next{0};
    std::exception_ptr failed;
    std::mutex failed_mutex;
    const auto work = [&](Worker& k) {
      try {
        for (uint32_t t; (t = next++) < tiles_x;) {
          const uint32_t bx0 = t * tw, bx1 = uint32_t(std::min<uint64_t>(uint64_t(bx0) + tw, W));
          const Span fx = ax.frame(bx0);
          const int fw = int(fx.hi - fx.lo), fh = int(fy.hi - fy.lo);
          // The tile's rows in the rings, taken from there where the backend can (set_*_rows), else copied.
          const FrameRows img_rows{fw, fh, [&](int y) -> const void* {
                                     return rgba.row(fy.lo + uint32_t(y)) + size_t(fx.lo) * 4;
                                   }};
          if (!k.pipe->set_image_rows(img_rows)) {
            k.img.width = fw, k.img.height = fh;
            k.img.data.resize(size_t(fw) * size_t(fh) * 4);
            for (int y = 0; y < fh; ++y) std::memcpy(k.img.px(0, y), img_rows.row(y), size_t(fw) * 4);
            k.pipe->set_image(k.img);
          }
          if (raw) {
            const FrameRows depth_rows{
                fw, fh, [&](int y) -> const void* { return raw->row(fy.lo + uint32_t(y)) + fx.lo; }};
            if (!k.pipe->set_depth_rows(depth_rows)) {
              k.depth.width = fw, k.depth.height = fh, k.depth.channels = 1;
              k.depth.data.resize(size_t(fw) * size_t(fh));
              for (int y = 0; y < fh; ++y) std::memcpy(&k.depth.at(0, y), depth_rows.row(y), size_t(fw) * 4);
              k.pipe->set_depth(k.depth);
            }
          }
          k.pipe->run();
          k.pipe->read_result(
              PixelRect{int(bx0 - fx.lo), int(by0 - fy.lo), int(bx1 - fx.lo), int(by1 - fy.lo)},
              res + size_t(bx0) * 4, size_t(W) * 4);
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
  };

  // The stages' threads stop (and are joined) on every way out: a failure of any stage, a cancel.
  std::thread read_thread(reader);
  std::thread write_thread;
  const auto join = [&] {
    if (read_thread.joinable()) read_thread.join();
    if (write_thread.joinable()) write_thread.join();
  };
  try {
    write_thread = std::thread(writer);
    for (uint32_t b = 0; b < bands; ++b) {
      // The band read, and its result rows written out two bands ago.
      if (!flow.wait([&] { return flow.read > b && flow.written + 2 > b; })) break;
      {
        BusyClock busy(report.filter_s);
        filter_band(b);
      }
      flow.set(flow.filtered, b + 1);
      if (progress && !progress(TiledProgress{band_rows(b).hi, H})) throw Error("cancelled");
    }
  } catch (...) {
    flow.fail(std::current_exception());
  }
  join();
  flow.rethrow();
  report.exact = !count_highlights || report.highlights_found <= uint64_t(p.highlight_cap);
  report.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace satlab
