#include "app/ops/stereo_matching.hpp"

#include <algorithm>
#include <cmath>

#include "app/io/image_io.hpp"
#include "app/ops/backend_choice.hpp"
#include "app/ops/depth_refine.hpp"
#include "core/error.hpp"
#include "gpu/depth/stereo_gpu.hpp"

namespace satlab {

StereoResult match_stereo(const ImageRGBA8& left, const ImageRGBA8& right, const StereoParams& p,
                          const std::string& backend, const std::string& sat_builder, std::string* note) {
  const BackendChoice c = choose_backend(backend);
  if (c.gpu) return gpu::stereo_match(left, right, p, sat_builder);
  if (note && !c.why_cpu.empty()) *note = "stereo on the CPU: " + c.why_cpu;
  return stereo_match(left, right, p);
}

ImageF stereo_confidence(const StereoResult& r) {
  ImageF c(r.raw.width, r.raw.height, 1);
  for (size_t i = 0; i < c.data.size(); ++i) c.data[i] = r.raw.data[i] != kNoDisparity ? 1.f : 0.f;
  return c;
}

RefinedDepth refine_disparity(const ImageRGBA8& left, const StereoResult& r, const std::string& choice,
                              const std::string& backend, const GuidedParams* guided) {
  ImageF d = r.disparity;
  bool any = false;
  for (float& v : d.data)
    if (v == kNoDisparity)
      v = std::nanf("");
    else
      any = true;
  if (!any) {  // nothing survived the checks: nothing to refine
    RefinedDepth none;
    none.depth = r.disparity, none.refiner = "none";
    return none;
  }
  const ImageF confidence = stereo_confidence(r);
  RefinedDepth out = refine_for_image(left, d, &confidence, choice, DepthOrigin::Stereo, backend, guided);
  for (size_t i = 0; i < out.depth.data.size(); ++i)
    if (r.disparity.data[i] == kNoDisparity || !std::isfinite(out.depth.data[i]))
      out.depth.data[i] = kNoDisparity;
  return out;
}

int default_disparities(int width) { return std::clamp(width / 8, 16, 256) + 1; }

ImageF disparity_depth(const ImageF& disparity) {
  ImageF d = disparity;
  for (float& v : d.data) v = std::max(v, 0.f);
  return d;
}

namespace io {
void save_disparity_png(const std::string& path, const ImageF& disparity) {
  if (disparity.empty() || disparity.channels != 1)
    throw Error(path + ": nothing to save (need a disparity map)");
  std::vector<uint16_t> q(disparity.data.size());
  for (size_t i = 0; i < q.size(); ++i) q[i] = kitti_disparity(disparity.data[i]);
  save_png16_raw(path, disparity.width, disparity.height, q);
}
}  // namespace io

}  // namespace satlab
