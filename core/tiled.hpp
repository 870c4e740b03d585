// The tiled executor: any image size through bounded memory. A filter of support at most H pixels (the box
// radius, the DoF max radius, plus what a mode reads beyond it) needs only a halo of H pixels around a
// tile, so the image is read in bands of rows, each band cut into tiles with halos, and each tile run
// through an ordinary Pipeline (either backend, its registered SAT builders) whose whole-frame statistics
// (the depth's range and histogram) are given from a first pass over the whole depth. The result of every
// pixel is bit-identical to the whole-image pipeline's wherever both can run (tests/cpu/tiled_test.cpp,
// tests/gpu/gpu_tiled_test.cu); where a mode cannot be tiled exactly, tiled_support() says why.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/dof.hpp"
#include "core/image.hpp"
#include "core/params.hpp"
#include "core/pipeline.hpp"

namespace satlab {

// Whole-frame statistics a tile cannot compute from its own pixels; FrameStats::valid = false: none given.
struct FrameStats {
  bool valid = false;
  bool has_depth = false;  // false: no depth map (every pixel on the focus plane)
  float depth_min = 0.f, depth_max = 0.f;  // the raw depth's range over the whole image (finite values)
  DepthHistogram histogram;                // of the whole normalised depth (core/dof.hpp)
};

// Where rows come from and go to. Rows are asked for in increasing order of y0 (a band may re-read the
// halo rows it shares with the last band only from the executor's own buffer, never from the source).
struct RowSource {
  uint32_t width = 0, height = 0;
  // Rows [y0, y1) as RGBA8, `stride` bytes apart.
  std::function<void(uint32_t y0, uint32_t y1, uint8_t* rgba8, size_t stride)> read;
};
struct DepthSource {
  uint32_t width = 0, height = 0;  // the image's size (a depth map of another size is refused)
  // Rows [y0, y1) of raw depth, `stride` floats apart. Called twice over the whole image (the statistics
  // pass, then the bands), each time in increasing y0.
  std::function<void(uint32_t y0, uint32_t y1, float* depth, size_t stride)> read;
};
struct RowSink {
  // The next `n` rows of the result (RGBA8), `stride` bytes apart, in order.
  std::function<void(uint32_t n, const uint8_t* rgba8, size_t stride)> write;
};

// How the image is cut. tile_width/tile_height: the interior (written) part of a tile; halo: the rows and
// columns around it that the tile reads but does not write.
struct TilePlan {
  uint32_t tile_width = 0, tile_height = 0, halo = 0;
  size_t host_bytes = 0;    // peak host memory of the executor's buffers (bands, tile staging, result rows)
  size_t device_bytes = 0;  // peak pipeline memory of one tile (the backend's estimate; 0 on the CPU)
};

// The halo a frame of `p` needs so that every written pixel equals the whole-image result.
uint32_t tiled_halo(const Params& p);
// "" when a frame of `p` tiles exactly; else one line saying why not (e.g. highlights whose sprites may
// reach past the halo), which the caller shows and refuses or accepts.
std::string tiled_support(const Params& p);

// Picks the largest tiles whose buffers fit `memory_budget` bytes (host and, for a GPU backend, device),
// for an image of width x height; tile sizes are capped at `max_tile` (0: no cap). Throws satlab::Error
// "memory budget of N MB is too small for one WxH tile with its halo of H (needs M MB)" when even the
// smallest tile (64 x 64 interior) does not fit.
TilePlan plan_tiles(uint32_t width, uint32_t height, const Params& p, size_t memory_budget, bool gpu,
                    uint32_t max_tile = 0);

// The statistics pass: the range and histogram of the whole depth, read band by band.
FrameStats depth_frame_stats(const DepthSource& depth, uint32_t band_rows = 1024);

struct TiledProgress {
  uint64_t rows_done = 0, rows_total = 0;
};

// Runs the filter of `p` over the whole image, tile by tile, through `make_pipeline()`'s pipelines (one per
// worker: more than one lets a GPU backend overlap one tile's copies with another's kernels). `depth` may
// be null (no depth map). `progress` (optional) is called after each band and returns false to cancel:
// run_tiled then throws satlab::Error("cancelled") and the sink has had only whole bands.
void run_tiled(const RowSource& image, const DepthSource* depth, const Params& p, const TilePlan& plan,
               const std::function<std::unique_ptr<Pipeline>()>& make_pipeline, const RowSink& out,
               int workers = 1, const std::function<bool(const TiledProgress&)>& progress = {});

}  // namespace satlab
