#include "app/gui/session.hpp"

#include "app/backend.hpp"
#include "app/io/assets.hpp"
#include "app/io/image_io.hpp"
#include "core/error.hpp"

namespace satlab::gui {

void Session::set_backend(AppState& s) {
  std::string note;
  auto p = make_backend(s.backend, &note);
  if (!image_.empty()) {
    p->set_image(image_);
    if (!depth_.empty()) p->set_depth(depth_);
  }
  pipeline_ = std::move(p);
  s.backend_name = pipeline_->backend_name();
  s.backend_note = note;
  s.params_changed = true;
  s.stages.clear();
  s.stage_order.clear();
  s.frame_ms_history.clear();
}

void Session::open(AppState& s, const std::string& image_path, const std::string& depth_path) {
  const bool bundled = image_path.empty();
  const std::string path = bundled ? io::default_scene_image() : image_path;
  std::string dpath = bundled && depth_path.empty() ? io::default_scene_depth() : depth_path;
  ImageRGBA8 img = io::load_image(path);
  ImageF depth;
  if (!dpath.empty()) depth = io::resample_depth(io::load_depth(dpath), img.width, img.height);
  if (!pipeline_) set_backend(s);
  pipeline_->set_image(img);  // may refuse (size): nothing below has changed yet
  if (!depth.empty()) pipeline_->set_depth(depth);
  image_ = std::move(img);
  depth_ = std::move(depth);
  s.image_path = path;
  s.depth_path = dpath;
  s.image_width = image_.width;
  s.image_height = image_.height;
  s.params_changed = true;
  has_result_ = false;
}

void Session::open_depth(AppState& s, const std::string& depth_path) {
  ImageF depth = io::resample_depth(io::load_depth(depth_path), image_.width, image_.height);
  pipeline_->set_depth(depth);
  depth_ = std::move(depth);
  s.depth_path = depth_path;
  s.params_changed = true;
}

bool Session::update(AppState& s) {
  if (!s.params_changed || image_.empty()) return false;
  s.params_changed = false;
  pipeline_->set_params(s.params);
  pipeline_->run();
  s.record(pipeline_->timings());
  has_result_ = true;
  return true;
}

}  // namespace satlab::gui
