// The tiled executor: any image size through bounded memory. A filter of support at most H pixels (the box
// radius, the DoF max radius, plus what a mode reads beyond it: DofMode::halo) needs only a halo of H
// pixels around a tile, so the image is read in bands of rows, each band cut into tiles with halos, and
// each tile run through an ordinary Pipeline (either backend, its registered SAT builders) whose
// whole-frame statistics (the depth's range and histogram, the layered mode's layer sums) are given from
// passes over the whole depth first (Pipeline::set_frame_stats). The result of every pixel is
// bit-identical to the whole-image pipeline's wherever both can run (tests/cpu/tiled_test.cpp,
// tests/gpu/tiled_test.cpp); where a mode cannot be tiled exactly, tiled_support() says why.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/dof.hpp"
#include "core/frame_stats.hpp"
#include "core/image.hpp"
#include "core/params.hpp"
#include "core/pipeline.hpp"

namespace satlab {

// Where rows come from and go to. Rows are asked for in increasing order of y0 (a band may re-read the
// halo rows it shares with the last band only from the executor's own buffer, never from the source).
struct RowSource {
  uint32_t width = 0, height = 0;
  // Rows [y0, y1) as RGBA8, `stride` bytes apart.
  std::function<void(uint32_t y0, uint32_t y1, uint8_t* rgba8, size_t stride)> read;
};
struct DepthRowSource {
  uint32_t width = 0, height = 0;  // the image's size (a depth map of another size is refused)
  // Rows [y0, y1) of raw depth, `stride` floats apart. Each pass over the whole image asks in increasing
  // y0: the statistics take two (the range, then the histogram of the normalised depth) and, for the
  // layered mode, a third (the layer sums of its CoC); run_tiled's bands one more.
  std::function<void(uint32_t y0, uint32_t y1, float* depth, size_t stride)> read;
  // Optional: the range and histogram of the whole map, where the source knows them without a pass
  // (synthetic depth: synthetic_frame_stats); the statistics then read rows only for the layered mode's
  // layer sums.
  std::function<FrameStats()> known_stats;
};
struct RowSink {
  // The next `n` rows of the result (RGBA8), `stride` bytes apart, in order.
  std::function<void(uint32_t n, const uint8_t* rgba8, size_t stride)> write;
};

// How the image is cut. tile_width/tile_height: the interior (written) part of a tile; halo: the rows and
// columns around it that the tile reads but does not write (clamped at the image's edges; a tile's origin
// is moved back to an even row and column, core/dof_spread.hpp).
struct TilePlan {
  uint32_t tile_width = 0, tile_height = 0, halo = 0;
  size_t host_bytes = 0;  // peak host memory of the executor's buffers (bands, tile staging, result rows)
                          // and of all its workers' pipelines (their buffers' sizes per tile, plus a margin)
  size_t device_bytes = 0;    // peak device memory of all the workers' pipelines (likewise; 0 on the CPU)
  uint64_t frame_pixels = 0;  // the pixels the tiles process, halos included (the image's, where one tile)
};

// The halo a frame of `p` needs so that every written pixel equals the whole-image result: the box radius;
// the DoF mode's support (DofMode::halo: gather_box ceil(max_radius); gather_shape and gather_linear
// shaped_max_radius; layered dof::fill_reach, its fill; spread fill_reach + 1, its fill, or
// shaped_max_radius + kHiddenGap), and with highlights at least 2 shaped_max_radius (highlight_halo).
uint32_t tiled_halo(const Params& p);
// "" when a frame of `p` tiles exactly; else one line saying why not, which the caller shows and refuses
// or accepts. Highlights: the whole-image pipeline keeps the first highlight_cap sprites in raster order,
// a tile up to highlight_cap of its own, so the two agree only while the image has at most highlight_cap
// highlights (TiledReport says whether it had).
std::string tiled_support(const Params& p);

// Picks the tiles whose buffers fit `memory_budget` bytes (host and, for a GPU backend, device, each) for
// an image of width x height filtered by `workers` pipelines at once, and process the fewest pixels
// (frame_pixels: the largest tiles, shaped so that the halos cost least; a band of at least `workers` tiles
// where the image is 64 x workers wide). On the CPU, frames of at most 2^20 pixels are preferred where the
// halo leaves any (they stay near the caches: 2x faster than frames of 16 Mpx). On the GPU, the leanest
// plan within 5% of the least work among frames of at least 4 Mpx, among those whose row buffers (the
// rings and result rows, width x band height) fit 640 MiB where any does, so that host memory does not grow
// with the width. Sides are powers of 2 from 64 or the image's, capped at `max_tile` (0: no cap). Throws satlab::Error "memory budget of N MB is too small for one WxH tile with its halo of H
// (needs M MB)" when even the smallest tile (64 x 64 interior) does not fit.
TilePlan plan_tiles(uint32_t width, uint32_t height, const Params& p, size_t memory_budget, bool gpu,
                    uint32_t max_tile = 0, int workers = 1);

// The statistics passes: the range and histogram of the whole depth, read band by band (band_rows rows at
// a time; or depth.known_stats's, without a pass); with `p` of the layered mode (layers > 1), also its layer
// sums (a third pass). Histogram counts
// that pass 2^32 - 1 (images over 4 Gpx) are scaled down together by a power of 2 (the layer edges depend
// on their proportions alone).
FrameStats depth_frame_stats(const DepthRowSource& depth, uint32_t band_rows = 1024, const Params* p = nullptr);

struct TiledProgress {
  uint64_t rows_done = 0, rows_total = 0;
};

// What a tiled run found. exact = false where the result may differ from the whole-image pipeline's: the
// image had more highlights (pixels passing the highlight test) than highlight_cap (tiled_support).
struct TiledReport {
  uint64_t tiles = 0;
  uint64_t highlights_found = 0;  // with highlights on
  bool exact = true;
  // Where the time went, in seconds: the statistics passes (before the bands), then the three stages that
  // run at once on threads of their own, each its busy time (reading the image's and the depth's rows,
  // filtering the tiles, writing the result's rows), and the whole run's wall. The wall after the
  // statistics is at least the largest of the three: that stage bounds the run.
  double stats_s = 0, read_s = 0, filter_s = 0, write_s = 0, wall_s = 0;
};

// Runs the filter of `p` over the whole image, tile by tile, through `make_pipeline()`'s pipelines (one per
// worker: more than one lets a GPU backend overlap one tile's copies with another's kernels). Reading,
// filtering and writing overlap: the next band's rows are read (`image.read`, `depth->read`) and the last
// band's written (`out.write`) on two threads of their own while the tiles of this one are filtered, so the
// source's and the sink's functions run on those threads (each always on the same one). `depth` may be
// null (no depth map; the box filter never reads it). `progress` (optional) is called on the calling
// thread after each band is filtered and returns false to cancel: run_tiled then throws
// satlab::Error("cancelled") and the sink has had only whole bands. A failure of the source or the sink
// stops the run the same way and is rethrown. Throws satlab::Error when plan.halo < tiled_halo(p) or the sizes disagree.
TiledReport run_tiled(const RowSource& image, const DepthRowSource* depth, const Params& p, const TilePlan& plan,
                      const std::function<std::unique_ptr<Pipeline>()>& make_pipeline, const RowSink& out,
                      int workers = 1, const std::function<bool(const TiledProgress&)>& progress = {});

}  // namespace satlab
