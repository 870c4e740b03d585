// The session's stereo depth source (`satlab IMAGE --right RIGHT`): the disparity of the open image as the
// left view, matched on the GPU where there is one (app/ops/stereo_matching.hpp), given to the pipeline as disparity,
// refined as the depth section says (the matcher's checks as the refiner's confidence).
#include <algorithm>
#include <string>

#include "app/gui/session.hpp"
#include "app/io/image_io.hpp"
#include "app/ops/stereo_matching.hpp"
#include "core/error.hpp"

namespace satlab::gui {

void Session::open_stereo(AppState& s, const std::string& right_path) {
  const ImageRGBA8 right = io::load_image(right_path);
  StereoParams p;
  p.disparities = default_disparities(image_.width);
  std::string note;
  const StereoResult r = match_stereo(image_, right, p, backend_, "", &note);
  s.params.disparity = true;
  const std::string name = right_path.substr(right_path.find_last_of('/') + 1);
  set_depth(s, disparity_depth(r.disparity), DepthSource::Stereo,
            "stereo with " + name + ", disparities 0.." + std::to_string(p.disparities - 1),
            stereo_confidence(r));  // the checks' rejections: no weight in the refiner
  if (!note.empty()) s.backend_note = note;
}

}  // namespace satlab::gui
