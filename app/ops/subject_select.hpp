// Subject selection for the CLI (`satlab render --subject`) and the app's subject tool: core/select.hpp's
// selector on the GPU where one is available (or asked for), else on the CPU, and the depth it gives.
#pragma once
#include <string>
#include <vector>

#include "core/image.hpp"
#include "core/select.hpp"

namespace satlab {

struct SubjectDepth {
  Selection selection;
  ImageF depth;          // the image's size, normalised [0,1] (core's depth_from_selection)
  float focus = 0.f;     // the first subject's depth
  std::string backend;   // "gpu" or "cpu"
  double ms = 0;         // wall time of the selection (on the GPU: upload, run, download)
  std::string summary() const;  // "subject select geodesic (cpu, 812.0 ms), layout open"
  SubjectLayout layout = SubjectLayout::Open;
};

// Throws satlab::Error for no subject click, a click outside the image, or (backend "gpu") no GPU.
SubjectDepth subject_depth(const ImageRGBA8& image, const std::vector<SelectClick>& clicks, SubjectLayout layout,
                           const std::string& backend = "auto", const SelectParams& params = {});

}  // namespace satlab
