// The live comparison of SAT builders behind the UI's "compare all": every registered SAT variant that
// takes the current RGBA8 image runs on it (one run per call, so a caller can go round-robin, one variant
// per frame), timed with CUDA events per phase (SatArgs::phase), and its output is compared on the
// device with core's reference SAT, computed once per image. Plain C++; without CUDA every call throws
// satlab::Error saying so.
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/image.hpp"
#include "core/variant.hpp"

namespace satlab::gpu {

struct SatComparison {
  std::string variant;
  double ms = 0;  // CUDA-event time of the whole builder (launches of every phase)
  std::vector<std::pair<std::string, double>> phases;  // ms of each phase it reported, in order
  size_t elements = 0;      // uint32 elements compared (width * height * 4)
  size_t mismatches = 0;    // elements that differ from the reference SAT: 0 = bit-identical
  size_t first_mismatch = 0;  // index of the first differing element, when there is one
  std::string error;        // the variant refused the image or failed: why (nothing else is valid)
};

class SatComparer {
 public:
  SatComparer();  // throws satlab::Error without a CUDA device
  ~SatComparer();
  SatComparer(const SatComparer&) = delete;
  SatComparer& operator=(const SatComparer&) = delete;

  // Uploads the image and computes its reference SAT on the CPU (core/reference). Throws satlab::Error
  // (an empty image, or not enough GPU memory); the comparer keeps no image then.
  void set_image(const ImageRGBA8& image);
  int width() const;
  int height() const;

  // The registered SAT builders that take this image (RGBA8 at its size), in registry order.
  std::vector<const Variant*> candidates() const;

  // One run of `v` into an output poisoned with 0xAB bytes, then the comparison. A refusal or a failure
  // is reported in the result's `error`, not thrown.
  SatComparison run(const Variant& v);

  // Test hook: the next run() flips the lowest bit of output element `index` before comparing.
  void corrupt_next_output(size_t index);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace satlab::gpu
