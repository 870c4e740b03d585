// Depth refinement for the CLI (`satlab render`, `depth refine`, `depth stereo`) and the app's depth
// section: the refiners of core/refine.hpp (the `refine` family) chosen by name or by `auto`, on the GPU
// where one is available (or asked for), else on the CPU; and the guided filter with chosen parameters.
#pragma once
#include <string>

#include "core/guided_filter.hpp"
#include "core/image.hpp"
#include "core/refine.hpp"

namespace satlab {

// --- The refiners -----------------------------------------------------------------------------------
struct RefinedDepth {
  ImageF depth;                 // the image's size, 1 channel, in the input's units (within its finite range)
  std::string refiner;          // what ran: "none", "wmedian", ...
  std::string backend;          // "gpu" or "cpu" ("" where nothing ran: none at the image's size)
  double ms = 0;                // wall time of the whole call (on the GPU: upload, run, download)
  std::string note;             // why the CPU ran under "auto", else ""
  std::string summary() const;  // "refine wmedian (cpu, 12.3 ms)", "refine none"
};

// The refiner `choice` ("auto", "none" or a name: core's resolve_refiner, which throws satlab::Error
// naming the valid ones) resolves to for depth of this size from `origin`.
std::string resolved_refiner(const std::string& choice, DepthOrigin origin, const ImageRGBA8& image,
                             const ImageF& depth);

// `depth`: any size (1 channel; NaN: no sample), `confidence`: nullptr or the depth's size, in [0,1].
// Runs the refiner `choice` resolves to and returns depth at the image's size. `backend`: "auto", "cpu"
// or "gpu" (app/ops/backend_choice.hpp: throws satlab::Error when the GPU cannot be had). `guided`: parameters of the guided filter
// where it runs (nullptr: its defaults, core's `guided`).
RefinedDepth refine_for_image(const ImageRGBA8& image, const ImageF& depth, const ImageF* confidence,
                              const std::string& choice, DepthOrigin origin,
                              const std::string& backend = "auto", const GuidedParams* guided = nullptr);

}  // namespace satlab
