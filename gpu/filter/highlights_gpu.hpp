// Bokeh highlights on the GPU (core/highlights.hpp; CPU reference core/highlights.cpp, per-sprite and
// per-pixel arithmetic shared through core/highlights_pixel.hpp, gpu/filter/highlights.cu).
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "core/params.hpp"
#include "gpu/filter/filter.hpp"

namespace satlab::gpu {

// What the highlight pass keeps from frame to frame: the gather's input, the compaction's and the sort's
// buffers and temp storage, the row-delta planes and row flags (cleared as they are integrated), the aperture
// rectangles and transfer tables, and the device stats (found, kept, far: three uint32).
struct HighlightWorkspace {
  DofBuffer masked, indices, compact_temp, pairs, sort_temp, planes, rows, rects, luts, stats;
  std::string shape_key;
  size_t pixels = 0;  // the size the planes and row flags were cleared for
  int cap = 0;        // the cap the pair buffers and sort temp were sized for
  ~HighlightWorkspace();
};

struct HighlightArgs {
  const void* image = nullptr;  // RGBA8, width * height
  const float* coc = nullptr;   // signed CoC
  int width = 0, height = 0;
  const Params* params = nullptr;
  const DofMode* mode = nullptr;  // the frame's DoF mode (the sprites' aperture, DofMode::aperture); required
  HighlightWorkspace* ws = nullptr;
  void* stream = nullptr;                  // cudaStream_t
  std::function<void(const char*)> phase;  // called with "compact", "sort", "splat"
};

// compact -> sort -> splat. Returns the gather's input: the image with the sprites' colour zeroed.
const void* highlights_prepare(const HighlightArgs& a);
// Integrates the planes' touched rows into `result` (RGBA8, in place) and clears them for the next frame.
void highlights_add(const HighlightArgs& a, void* result);
// The device stats (found, kept, far) the last highlights_prepare wrote.
const uint32_t* highlight_stats_device(const HighlightWorkspace& ws);
// The sorted sprites' pixel indices (cap slots, the first `kept` valid), the aperture rectangles
// (kMaxRects per radius 0..kMaxShapedRadius, then one count byte per radius) and the 12-bit linear table
// the last highlights_prepare used: what the GL splat's records are made from (gpu/filter/highlight_records.cu).
const uint32_t* highlight_sorted_device(const HighlightWorkspace& ws);
const void* highlight_rects_device(const HighlightWorkspace& ws);
const uint16_t* highlight_linear_device(const HighlightWorkspace& ws);

}  // namespace satlab::gpu
