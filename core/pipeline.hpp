// The Pipeline interface: one frame = depth normalise -> CoC -> SAT -> blur. The CPU backend (reference
// and fallback) lives in core/; the GPU backend in gpu/. The app only ever talks to this interface.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/image.hpp"
#include "core/params.hpp"

namespace satlab {

struct StageTiming {
  std::string name;   // "reduce", "coc", "sat", "blur", ...
  double ms = 0.0;    // wall (CPU) or CUDA-event (GPU) time of this stage in the last timed frame
  double bytes = 0.0; // minimum bytes the stage must move (for GB/s); 0 when not meaningful
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

  // Runs one frame. Throws satlab::Error if no image is set or a stage fails.
  virtual void run() = 0;

  // Results of the last run(), as host images (a GPU backend downloads on demand).
  virtual const ImageRGBA8& result() = 0;
  virtual const ImageF& depth_normalised() = 0;  // d in [0,1]
  virtual const ImageF& coc() = 0;               // signed CoC radius in pixels, clamped to max_radius

  virtual const std::vector<StageTiming>& timings() const = 0;

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
