// The Pipeline interface: one frame = depth normalise -> CoC -> SAT -> blur. The CPU backend (reference
// and fallback) lives in core/; the GPU backend in gpu/. The app only ever talks to this interface.
#pragma once
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/frame_stats.hpp"
#include "core/highlights.hpp"
#include "core/device_rgba.hpp"
#include "core/image.hpp"
#include "core/params.hpp"

namespace satlab {

struct StageTiming {
  std::string name;   // "reduce", "coc", "sat", "blur", ...
  double ms = 0.0;    // wall (CPU) or CUDA-event (GPU) time of this stage in the last timed frame
  double bytes = 0.0; // minimum bytes the stage must move (for GB/s); 0 when not meaningful
  // "" for a stage of the frame; else the stage this one is a phase of ("sat"), listed right after it.
  // A phase's time is part of its parent's: frame totals add only stages without a parent.
  std::string parent;
  // The stage's first run since the backend was made, the image size changed or its variant (SAT builder,
  // reduction) was switched; on the GPU also its first run after another DoF mode or layer count, a run
  // that uploaded new aperture or transfer tables (another aperture, max radius or camera response) and
  // one that grew a DoF or highlight buffer (gpu::grow; not the SAT builders' own scratch): it pays
  // allocations, uploads, first launches and cold caches, so it is no warm measurement (the app shows it
  // apart and keeps it out of averages). A phase is cold with its stage.
  bool cold = false;
  // Which run() of the backend this is a timing of (1, 2, ...): a backend that reads its timings late may
  // return one frame's twice, and callers that accumulate count each run once.
  unsigned long run = 0;
  // A phase that ran on another stream beside its sibling phases (the spread mode's fill tables): it
  // overlaps them, so it is not a slice of their sum; it still lies within its stage's time.
  bool concurrent = false;
};

// The interchangeable implementations of two stages, by name: the SAT builder and the min/max reduction
// of the depth normalisation. The GPU backend offers its registered variants; a backend with one fixed
// implementation lists just that one.
struct Algorithms {
  std::string sat_builder;
  std::string reduction;
};

// Throws satlab::Error "unknown <what> '<name>' (valid: a, b, ...)" unless `name` is one of `valid`.
inline void check_choice(const std::string& what, const std::string& name, const std::vector<std::string>& valid) {
  std::string list;
  for (const auto& v : valid) {
    if (v == name) return;
    list += (list.empty() ? "" : ", ") + v;
  }
  throw Error("unknown " + what + " '" + name + "' (valid: " + list + ")");
}

// A frame given as rows in the caller's memory: row y (width elements: RGBA8 pixels, or floats of depth)
// at row(y). The tiled executor's tiles are such rows of its rings (core/tiled.hpp).
struct FrameRows {
  int width = 0, height = 0;
  std::function<const void*(int y)> row;
};

class Pipeline {
 public:
  virtual ~Pipeline() = default;
  virtual std::string backend_name() const = 0;  // e.g. "cpu (2 threads)"

  // The image to filter. Throws satlab::Error on an empty or oversized image (state unchanged).
  virtual void set_image(const ImageRGBA8& image) = 0;
  // A 1-channel depth map of the image's size (callers resample first). Raw values, any range.
  // Without one, the dof filter puts every pixel on the focus plane (the result stays sharp).
  virtual void set_depth(const ImageF& depth) = 0;
  virtual void set_params(const Params& params) = 0;
  // Whole-frame statistics to use instead of the frame's own, for a frame that is a tile of a larger image
  // (core/tiled.hpp): the depth is normalised with the given range and the layer edges come from the given
  // histogram (the reduction and histogram are not run: the timings list a "normalise" stage instead), and
  // the layered mode takes the given layer sums for its means. valid = false (the default): the frame's
  // own. Kept across set_image and set_depth; takes effect at the next run().
  virtual void set_frame_stats(const FrameStats& stats) = 0;

  // Runs one frame. Throws satlab::Error if no image is set or a stage fails.
  virtual void run() = 0;

  // true: every run() runs every stage of the filter, none skipped because its inputs did not change, so
  // timings() times the whole frame (the app's "run every frame"). false, the default: a backend may keep
  // stage results whose inputs did not change (the GPU backend keeps the normalised depth and the SAT).
  // A backend that keeps nothing runs every stage anyway and ignores it.
  virtual void set_every_stage(bool every) { (void)every; }

  // Results of the last run(), as host images (a GPU backend downloads on demand).
  virtual const ImageRGBA8& result() = 0;
  virtual const ImageF& depth_normalised() = 0;  // d in [0,1]
  virtual const ImageF& coc() = 0;               // signed CoC radius in pixels, clamped to max_radius
  // `region` of the last result (within it) into rows of `dst`, `stride` bytes apart: what a tile of a
  // larger image gives back (core/tiled.hpp), without the whole frame's download (the GPU backend copies
  // the region alone, through pinned memory). Throws satlab::Error for a region outside the result.
  virtual void read_result(const PixelRect& region, uint8_t* dst, size_t stride);

  // The image, or the depth map of its size, as rows in the caller's memory that stay unchanged until this
  // frame's read_result (or result()) returns. A backend that copies them out from there (the GPU backend:
  // straight to the device, by DMA where pin_host pinned them) returns true; false, the default: nothing
  // was taken, and the caller gives set_image / set_depth an image instead. Errors as set_image/set_depth.
  virtual bool set_image_rows(const FrameRows& rows) {
    (void)rows;
    return false;
  }
  // The image as RGBA8 in CUDA device memory (a frame decoded on the GPU), which must stay unchanged until
  // this frame's run() returns. A backend that reads it there (the GPU backend: a copy on the device,
  // timed as the upload) returns true; false, the default: the caller downloads it and gives set_image an
  // image instead. Errors as set_image.
  virtual bool set_image_device(const DeviceRGBA& image) {
    (void)image;
    return false;
  }
  virtual bool set_depth_rows(const FrameRows& rows) {
    (void)rows;
    return false;
  }
  // Page-locks `bytes` of host memory at `p` that the caller will give to set_*_rows and read_result, so
  // that a GPU backend's copies run from and into it by DMA, without a host copy; true where it did.
  // unpin_host(p), on the pipeline that pinned it, before that memory is freed (it waits for the device's
  // copies first). Default: nothing pinned.
  virtual bool pin_host(void* p, size_t bytes) {
    (void)p, (void)bytes;
    return false;
  }
  virtual void unpin_host(void* p) { (void)p; }

  // The stages of the last timed run, in order (StageTiming::run says which run that was).
  virtual const std::vector<StageTiming>& timings() const = 0;
  // What the highlight pass of the last completed frame with highlights on found (core/highlights.hpp);
  // a GPU backend reads it one frame late, with the timings. valid = false before any such frame.
  virtual HighlightStats highlight_stats() const { return {}; }

  // The SAT builders and min/max reductions this backend can use, and the ones in use.
  virtual std::vector<std::string> sat_builders() const = 0;
  virtual std::vector<std::string> reductions() const = 0;
  virtual Algorithms algorithms() const = 0;
  // Takes effect at the next run(), which rebuilds the SAT (and the normalised depth) with them. An
  // empty name keeps the current choice. An unknown name throws satlab::Error listing the valid ones
  // (check_choice), and nothing changes.
  virtual void set_algorithms(const Algorithms& a) = 0;

  // The last result where a device-side consumer can take it without a host round trip (CUDA-GL
  // interop): RGBA8, width * height * 4 bytes on the GPU, valid until the next run(); *stream receives
  // the cudaStream_t it was produced on. nullptr for backends that keep results on the host.
  virtual const void* device_result(void** stream) {
    (void)stream;
    return nullptr;
  }
};

// threads <= 0: one per hardware thread.
std::unique_ptr<Pipeline> make_cpu_pipeline(int threads = 0);

}  // namespace satlab
