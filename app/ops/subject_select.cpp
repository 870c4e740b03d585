#include "app/ops/subject_select.hpp"

#include <chrono>
#include <cstdio>

#include "app/ops/backend_choice.hpp"
#include "core/error.hpp"
#include "gpu/select/select_gpu.hpp"

namespace satlab {

std::string SubjectDepth::summary() const {
  char buf[160];
  std::snprintf(buf, sizeof(buf), "subject select geodesic (%s, %.1f ms), layout %s", backend.c_str(), ms,
                to_string(layout));
  return buf;
}

SubjectDepth subject_depth(const ImageRGBA8& image, const std::vector<SelectClick>& clicks, SubjectLayout layout,
                           const std::string& backend, const SelectParams& params) {
  for (const SelectClick& c : clicks)
    if (!(c.x >= 0.f && c.y >= 0.f && c.x < float(image.width) && c.y < float(image.height))) {
      char buf[160];
      std::snprintf(buf, sizeof(buf), "%s %g,%g lies outside the %dx%d image", c.background ? "--background" : "--subject",
                    double(c.x), double(c.y), image.width, image.height);
      throw Error(buf);
    }
  const BackendChoice where = choose_backend(backend);
  SubjectDepth r;
  r.layout = layout;
  const auto t0 = std::chrono::steady_clock::now();
  r.selection = where.gpu ? gpu::select_subject_gpu(image, clicks, params) : select_subject_cpu(image, clicks, params);
  r.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  r.backend = where.gpu ? "gpu" : "cpu";
  r.depth = depth_from_selection(r.selection, clicks, layout, &r.focus);
  return r;
}

}  // namespace satlab
