// The tiled executor's planner (core/tiled.hpp, plan_tiles): the tile sizes that process the fewest pixels
// within a memory budget, from the buffers both backends allocate per tile.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/dof.hpp"
#include "core/dof_modes.hpp"
#include "core/tile_frames.hpp"
#include "core/tiled.hpp"

namespace satlab {
namespace {

using tiling::Axis;

constexpr uint32_t kMinTile = 64;
constexpr size_t kMaxCpuTile = size_t(1) << 28;  // the CPU backend's limit on an image's pixels
// The CPU backend's frames, where the halo leaves room: at most this many pixels, so that a tile's SAT
// (16 B a pixel) and result stay near the caches. A streamed 16384^2 box blur (radius 10, 2 cores) took
// 3.8, 3.7, 4.8 and 7.6 s with tiles of 512^2, 1024^2, 2048^2 and 4096^2 (frames of 0.27-16.9 Mpx).
constexpr double kCpuCacheFrame = double(1 << 20);
// The GPU backend's frames, where the image and the budget allow: at least this many pixels.
constexpr double kGpuFrame = double(1 << 22);
// The GPU backend's row buffers (the executor's rings and result rows, which grow with the image's width
// and the band's height), where a plan allows: at most this many bytes, so that host memory stays flat
// from 0.27 to 4.29 Gpx. The GPU has time to spare for the halos of shorter bands: writing bounds its
// streamed renders (docs/streaming.md). At 65536^2 on an H200, spread r 10 went from 4096x1024 tiles
// (RSS 1.70 GiB, 16.1 s) to 16384x256 (625 MiB, 13.7 s), box r 10 from 8192x512 (680 MiB) to 16384x256
// (624 MiB, the same time).
constexpr double kGpuRowBytes = double(640 << 20);

std::string mb(double bytes) {
  return std::to_string(uint64_t(std::ceil(bytes / double(1 << 20))));
}

// Host bytes per pixel of a tile's frame in a pipeline of `p` (the backend's own buffers;
// core/cpu_pipeline.cpp, gpu/pipeline.cu), and the device bytes of a GPU pipeline: their sizes as those files
// allocate them.
struct FrameBytes {
  double host = 0, device = 0;
  double rows = 0;  // of host: the executor's row buffers (plan_bytes)
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
  const Axis ay(h, th, halo);
  const double rows = ay.extent, cols = Axis(w, tw, halo).extent;
  const double staging = (dof ? 8 : 4) * rows * cols;  // a tile's image and depth
  FrameBytes b = frame_bytes(p, gpu, cols, rows);
  // The rings hold a band's frame and the next band's rows (read while it is filtered), the result rows two
  // bands (one filtered while the last is written).
  const double rings = (dof ? 8 : 4) * double(tiling::ring_rows(ay)) * double(w),
               result_rows = 2 * 4 * double(std::min(th, h)) * double(w);
  // A tile's buffers as measured (a CPU pipeline's peak resident bytes per pixel within 5% of frame_bytes'),
  // and a margin for the moments where a buffer of a new size and the old one are both held (tiles at the
  // image's edges are smaller) and for the allocator: tiled runs peaked 4-12% above the buffers' sum.
  constexpr double kMargin = 1.15;
  return {rings + result_rows + kMargin * double(workers) * (staging + b.host),
          kMargin * double(workers) * b.device, rings + result_rows};
}

}  // namespace

TilePlan plan_tiles(uint32_t width, uint32_t height, const Params& p, size_t memory_budget, bool gpu,
                    uint32_t max_tile, int workers) {
  tiling::check_size(width, height, "image");
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
  // Every plan within the budget, with its frame's pixels.
  struct Candidate {
    TilePlan plan;
    double frame, rows;
  };
  std::vector<Candidate> fits;
  for (uint32_t tw : sides(width, across))
    for (uint32_t th : sides(height, 1)) {
      const FrameBytes b = plan_bytes(width, height, p, gpu, workers, tw, th, halo);
      if (b.host > double(memory_budget) || b.device > double(memory_budget)) continue;
      const Axis x(width, tw, halo), y(height, th, halo);
      fits.push_back({{tw, th, halo, size_t(b.host), size_t(b.device), uint64_t(x.work() * y.work())},
                      double(x.extent) * double(y.extent), b.rows});
    }
  // On the GPU, only plans whose row buffers stay within kGpuRowBytes, where there are any.
  if (gpu && std::any_of(fits.begin(), fits.end(), [](const Candidate& c) { return c.rows <= kGpuRowBytes; }))
    fits.erase(std::remove_if(fits.begin(), fits.end(), [](const Candidate& c) { return c.rows > kGpuRowBytes; }),
               fits.end());
  // The plan of least work (ties: the larger tiles) among those with frames of at most max_frame pixels;
  // with `slack`, the one of least host memory among those within that factor of the least work (shorter
  // bands: smaller rings).
  const auto pick = [&](double max_frame, double slack, double min_frame = 0) {
    TilePlan best;
    for (const Candidate& c : fits) {
      const TilePlan& t = c.plan;
      const bool larger = double(t.tile_width) * t.tile_height > double(best.tile_width) * best.tile_height;
      if (c.frame <= max_frame && (best.tile_width == 0 || t.frame_pixels < best.frame_pixels ||
                                   (t.frame_pixels == best.frame_pixels && larger)))
        best = t;
    }
    TilePlan lean = best;
    for (const Candidate& c : fits)
      if (best.tile_width && slack > 1 && c.frame <= max_frame && c.frame >= min_frame &&
          double(c.plan.frame_pixels) <= slack * double(best.frame_pixels) && c.plan.host_bytes < lean.host_bytes)
        lean = c.plan;
    return lean;
  };
  // On the CPU: frames near the caches where the halo allows, the leanest within 10% of the least work. On
  // the GPU, the leanest within 5% among frames of at least kGpuFrame pixels: shorter bands fill and drain
  // the overlapped reading, filtering and writing sooner and hold less (pinned) host memory, at a few
  // percent more pixels, while each tile's copies stay long next to its launches.
  TilePlan best = gpu ? pick(INFINITY, 1.05, kGpuFrame) : pick(kCpuCacheFrame, 1.1);
  if (!gpu && best.tile_width == 0) best = pick(double(kMaxCpuTile), 1);
  if (best.tile_width == 0) {
    const uint32_t tw = std::min(kMinTile, width), th = std::min(kMinTile, height);
    const FrameBytes b = plan_bytes(width, height, p, gpu, workers, tw, th, halo);
    // Name what takes the memory: the band of full-width rows the tiles are cut from, or the tile itself.
    const bool rows = b.rows > 0.5 * std::max(b.host, b.device);
    throw Error("memory budget of " + std::to_string(memory_budget >> 20) + " MB is too small for one " +
                std::to_string(tw) + "x" + std::to_string(th) + " tile with its halo of " + std::to_string(halo) +
                ": it needs " + mb(std::max(b.host, b.device)) + " MB" +
                (rows ? ", " + mb(b.rows) + " MB of it the band of " + std::to_string(width) +
                            "-pixel rows the tiles are cut from (tile height plus twice the halo)"
                      : ""));
  }
  return best;
}

}  // namespace satlab
