// What the front end has open: the image, its depth map and the pipeline backend. Loading is
// transactional: a file that fails to load leaves everything as it was and returns the message.
#pragma once
#include <memory>
#include <string>

#include "app/gui/app_state.hpp"
#include "core/image.hpp"
#include "core/pipeline.hpp"

namespace satlab::gui {

class Session {
 public:
  // Opens the image (empty: the bundled scene) with its depth map; throws satlab::Error.
  void open(AppState& s, const std::string& image_path, const std::string& depth_path);
  void open_depth(AppState& s, const std::string& depth_path);  // throws satlab::Error
  void set_backend(AppState& s);                                // throws satlab::Error
  // Runs the pipeline if parameters or inputs changed; returns true when there is a new result.
  bool update(AppState& s);

  const ImageRGBA8& input() const { return image_; }
  Pipeline& pipeline() { return *pipeline_; }
  bool has_result() const { return has_result_; }

 private:
  ImageRGBA8 image_;
  ImageF depth_;  // raw, resampled to the image
  std::unique_ptr<Pipeline> pipeline_;
  bool has_result_ = false;
};

}  // namespace satlab::gui
