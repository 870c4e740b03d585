// Stereo matching for the app and the CLI: the GPU matcher where a device is available (or asked for),
// else the CPU reference, and what the result becomes (a KITTI 16-bit PNG, a depth map for the DoF).
#pragma once
#include <string>

#include "app/ops/depth_refine.hpp"
#include "core/guided_filter.hpp"
#include "core/stereo.hpp"

namespace satlab {

// `backend`: "auto", "cpu" or "gpu" (app/ops/backend_choice.hpp: throws satlab::Error for an unknown name,
// or "gpu" without a device).
// With "auto", `note` says why the CPU ran when it did. `sat_builder`: a registry name for the GPU ("" =
// its default).
StereoResult match_stereo(const ImageRGBA8& left, const ImageRGBA8& right, const StereoParams& p,
                          const std::string& backend = "auto", const std::string& sat_builder = "",
                          std::string* note = nullptr);

// The disparity search for a view `width` wide: up to an eighth of it (16..256), a pair taken for depth of
// field has its nearest objects well inside that. The count of disparities (0..n-1).
int default_disparities(int width);

// The matcher's checks as a refiner's confidence: 1 where raw holds a disparity, 0 where it was rejected.
ImageF stereo_confidence(const StereoResult& r);

// The disparity refined by `choice` (app/ops/depth_refine.hpp's refine_for_image, origin Stereo), the left image
// as the guide and stereo_confidence as the confidence: pixels at kNoDisparity go in as no sample and stay
// kNoDisparity. `guided`: the guided filter's parameters where it runs (nullptr: its defaults).
RefinedDepth refine_disparity(const ImageRGBA8& left, const StereoResult& r, const std::string& choice,
                              const std::string& backend = "auto", const GuidedParams* guided = nullptr);

// The disparity as a depth map for Params::disparity: disparities, 0 where none survived (the pipeline
// normalises it by its min/max).
ImageF disparity_depth(const ImageF& disparity);

namespace io {
// KITTI's encoding (kitti_disparity): a 16-bit greyscale PNG of round(d * 256), 0 where none.
void save_disparity_png(const std::string& path, const ImageF& disparity);
}  // namespace io

}  // namespace satlab
