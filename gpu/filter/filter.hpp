// Depth-of-field filter stages on device buffers (enqueued on `stream`, a cudaStream_t). Each matches its
// CPU reference in core/reference.hpp bit for bit.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/params.hpp"
#include "core/variant.hpp"

namespace satlab {
struct ApertureTable;  // core/dof.hpp
struct DofMode;        // core/dof_modes.hpp
}

namespace satlab::gpu {

// d = (raw - min) / (max - min), 0 where max == min (normalise_depth); minmax[0..1] on the device.
// With `hist` (kDepthBins + 1 uint32, zeroed here), also the histogram of the normalised depth
// (depth_bin), as core's depth_histogram counts it.
void depth_normalise(const float* raw, const float* minmax, float* d, size_t n, void* stream,
                     uint32_t* hist = nullptr);
// Every element = value.
void fill(float* d, size_t n, float value, void* stream);
// Signed CoC in pixels (coc_from_depth), no fused multiply-add. d and coc 16-byte aligned (cudaMalloc's are),
// else satlab::Error.
void coc_map(const float* d, float* coc, size_t n, const Params& p, void* stream);

// Box blur through an interleaved RGBA uint32 SAT: every pixel's box of radius round(|coc|) (dof_blur)
// or `radius` where coc is null (box_blur), clipped to the image, rounded half up in integers. With a
// CoC and `fractional`, the boxes floor(|coc|) and floor(|coc|) + 1 blended (dof_blur_fractional).
void blur_rgba8(const uint32_t* sat, const float* coc, int radius, int width, int height, uint8_t* out,
                void* stream, bool fractional = false);

// Device memory that grows on demand and is freed by its owner.
struct DofBuffer {
  void* p = nullptr;
  size_t bytes = 0;
  void release();
};

// Grows `b` to at least `bytes` (what it held is lost); `what` names it in an allocation error.
void grow(DofBuffer& b, size_t bytes, const char* what);
// How many times grow() has allocated, process-wide: a stage whose run moved it paid a cudaMalloc, so its
// timing is no warm measurement (the pipelines mark it cold). Process-wide: a second pipeline growing its
// buffers on another thread at the same time would mark this one's stage cold too (never the reverse).
unsigned long buffer_growths();

// The aperture rectangles (then their counts, after (kMaxShapedRadius + 1) x kMaxRects rectangles) and the
// camera response's transfer tables (sRGB -> linear 12-bit, then at byte 512 linear 12-bit -> sRGB) in
// `rects` and `luts`, as the shaped modes, the spread mode and the highlights read them: grown as needed and
// uploaded only when `key` (the shape) or the response differs from `uploaded`, the rectangles from
// `table()`; the copies are waited for (the host tables are temporaries).
void upload_aperture(DofBuffer& rects, DofBuffer& luts, std::string& uploaded, const std::string& key,
                     float shoulder, void* stream, const std::function<ApertureTable()>& table);
// upload_aperture's mechanism for any layout of `bytes` in `rects` (the spread's apertures): put(rects,
// stream) enqueues the copies when the key or the response changed; its host data must live until this
// returns (it waits for them).
void upload_shape(DofBuffer& rects, DofBuffer& luts, std::string& uploaded, const std::string& key,
                  float shoulder, void* stream, size_t bytes,
                  const std::function<void(DofBuffer&, void*)>& put);

// A second stream with its fork and join events, made on first use (the spread mode builds its fill tables
// on one beside its spread, and runs each layer's tiles on one of their own; gpu/filter/dof_spread.cu).
struct DofSideStream {
  void *stream = nullptr, *fork = nullptr, *join = nullptr;
  ~DofSideStream();
};

// gather_box's SAT of its input, kept while DofArgs::input_id, the size and the SAT builder stay. A caller
// that has a table of its own for the image's SAT (the pipeline's box filter) lends it (borrowed, at least
// 16 B/px), so that the frame holds one such table; the lender clears `input` when it writes the table.
struct BoxSatCache {
  DofBuffer sat;
  void* borrowed = nullptr;
  size_t borrowed_bytes = 0;
  unsigned long long input = 0;  // 0: none kept
  int width = 0, height = 0;
  const Variant* builder = nullptr;
};

// What the DoF modes keep from frame to frame (DofArgs::workspace): the shaped modes' layer images and
// tables, the aperture rectangles and transfer tables (re-uploaded when the shape changes), the layer sums;
// gather_box's SAT.
struct DofWorkspace {
  DofBuffer images, tables, stats, rects, luts;
  DofSideStream side;
  DofSideStream layer[8];  // the spread mode's tiles, a stream per depth layer (dof::kMaxLayers)
  std::string shape_key;
  BoxSatCache box;
  ~DofWorkspace();
};

// The GPU entry points of the DoF modes (core/dof_modes.hpp; gpu/filter/dof_variants.cpp binds them), each
// matching the mode's CPU entry bit for bit.
// gather_box (core's dof_blur or dof_blur_fractional over sat_rgba8; gpu/filter/box_blur.cu): phases "sat"
// (only where the kept SAT is not of this input) and "blur".
void dof_gather_box(const DofMode& mode, const DofArgs& args);
// The shaped, linear and layered modes (core/dof.cpp's dof_shaped_blur on the GPU; gpu/filter/dof_modes.cu).
void dof_shaped(const DofMode& mode, const DofArgs& args);
// The spread mode (core/dof_spread.cpp's dof_spread_blur on the GPU; gpu/filter/dof_spread.cu).
void dof_spread(const DofMode& mode, const DofArgs& args);
// Tests only: the most blocks of the spread's splits' pass (0: 4 per SM, the default). Each block takes every
// n-th tile of the list of tiles with a CoC step; a small count makes the blocks loop at any frame size.
extern int spread_split_blocks_for_tests;

// Registry entries of family dof, one per core/dof_modes.hpp mode, in its order.
std::vector<Variant> dof_variants();
// The registered variant of a mode (its GPU entry point is Variant::dof).
const Variant& dof_variant(const DofMode& mode);

}  // namespace satlab::gpu
