#include "app/stereo.hpp"

#include <algorithm>

#include "app/depth_refine.hpp"
#include "app/io/image_io.hpp"
#include "core/error.hpp"
#include "gpu/depth/stereo.hpp"
#include "gpu/device.hpp"

namespace satlab {

StereoResult match_stereo(const ImageRGBA8& left, const ImageRGBA8& right, const StereoParams& p,
                          const std::string& backend, const std::string& sat_builder, std::string* note) {
  if (backend == "cpu") return stereo_match(left, right, p);
  if (backend != "gpu" && backend != "auto")
    throw Error("unknown backend '" + backend + "' (expected auto, cpu or gpu)");
  const auto& dev = gpu::probe();
  if (dev.available) return gpu::stereo_match(left, right, p, sat_builder);
  if (backend == "gpu") throw Error("GPU backend unavailable: " + dev.reason);
  if (note) *note = "stereo on the CPU: " + dev.reason;
  return stereo_match(left, right, p);
}

ImageF refine_disparity(const ImageRGBA8& left, const ImageF& disparity, int disparities,
                        const GuidedParams& g, const std::string& backend, std::string* note) {
  if (disparities < 2) return disparity;
  const float scale = float(disparities - 1);
  ImageF p(disparity.width, disparity.height);
  for (size_t i = 0; i < p.data.size(); ++i) p.data[i] = std::max(disparity.data[i], 0.f) / scale;
  const RefineResult r = refine_depth(guide_from_rgba8(left), p, g, backend);
  if (note && !r.note.empty()) *note = "guided filter on the CPU: " + r.note;
  ImageF out = disparity;
  for (size_t i = 0; i < out.data.size(); ++i)
    if (disparity.data[i] != kNoDisparity) out.data[i] = r.depth.data[i] * scale;
  return out;
}

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
