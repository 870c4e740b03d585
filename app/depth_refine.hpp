// Depth refinement by the guided filter for the CLI (`satlab depth refine`) and the app's depth section:
// on the GPU where one is available (or asked for), else core's CPU version.
#pragma once
#include <string>

#include "core/guided_filter.hpp"
#include "core/image.hpp"

namespace satlab {

// The guide of an 8-bit image: its RGB as floats in [0,1] (sRGB values as stored), 3 channels.
ImageF guide_from_rgba8(const ImageRGBA8& image);

struct RefineResult {
  ImageF depth;         // clamped to [0,1]
  std::string backend;  // "gpu" or "cpu"
  double ms = 0;        // wall time of the whole call (on the GPU: upload, run, download)
  std::string note;     // why the CPU ran under "auto", else ""
};
// `backend`: "auto", "cpu" or "gpu" (throws satlab::Error when the GPU cannot be had).
RefineResult refine_depth(const ImageF& guide, const ImageF& depth, const GuidedParams& g,
                          const std::string& backend = "auto");

}  // namespace satlab
