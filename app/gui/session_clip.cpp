// The session's clip frames (app/gui/playback.hpp): the first opens like an image, later ones replace the
// image in the pipeline the session has.
#include <string>
#include <utility>

#include "app/gui/session.hpp"
#include "app/io/image_io.hpp"
#include "core/error.hpp"
#include "core/synthetic_depth.hpp"

namespace satlab::gui {

void Session::open_clip(AppState& s, const std::string& name, ImageRGBA8 first, ImageF raw,
                        const std::string& depth_name) {
  if (first.empty()) throw Error(name + ": the clip's first frame is empty");
  const auto opened = std::chrono::steady_clock::now();
  const bool synthetic = raw.empty();
  if (synthetic) raw = make_synthetic_depth(s.synthetic, first.width, first.height);  // empty for mode none
  ImageF depth = raw.empty() ? ImageF() : io::resample_depth(raw, first.width, first.height);
  load(s, std::move(first), std::move(depth));
  large_ = Large();
  s.resolution_note.clear();
  raw_ = std::move(raw);
  raw_confidence_ = ImageF();
  s.image_path = name;
  s.depth_source.clear();
  restore_range(s);  // an embedded depth's range belongs to its photo
  s.depth_path = depth_name;
  image_info_ = io::LoadInfo();
  s.load_notes.clear();
  reset_edit(s, !depth_name.empty() ? DepthSource::File : depth_.empty() ? DepthSource::None : DepthSource::Synthetic,
             !depth_name.empty() ? depth_name : to_spec(s.synthetic));
  truth_ = ImageRGBA8();
  s.truth.loaded.clear();
  s.truth.score.clear();
  s.depth_edit.clicks.clear();
  s.depth_edit.subject_note.clear();
  opened_at_ = opened, first_view_pending_ = true;
}

void Session::set_frame(AppState& s, ImageRGBA8& frame, ImageF raw, const DeviceRGBA* device) {
  if (frame.width != image_.width || frame.height != image_.height)
    throw Error("a frame of " + std::to_string(frame.width) + "x" + std::to_string(frame.height) + " in a clip of " +
                std::to_string(image_.width) + "x" + std::to_string(image_.height));
  if (large_.factor) throw Error("a clip's frame cannot replace an image open as an overview");
  // A frame NVDEC decoded: the GPU pipeline reads it on the device (no upload); else the host image.
  if (!device || device->empty() || !full(s).set_image_device(*device)) full(s).set_image(frame);
  std::swap(image_, frame);
  ++image_inputs_, ++inputs_, ++generation_;
  ++s.image_generation;
  sat_view_mode_ = -1;
  s.params_changed = true;
  if (!raw.empty()) {  // the frame's own depth: resampled, refined (guided by this frame) by apply_edit
    const DepthSource source = s.depth_edit.source;
    const std::string detail = s.depth_edit.source_detail, path = s.depth_path;
    set_depth(s, std::move(raw), source, detail);
    s.depth_path = path;
  } else if (!refined_.empty() || !s.depth_edit.history.strokes().empty()) {
    refined_ = ImageF();  // a refinement and strokes are guided by the image: made again on this frame
    edit_dirty_ = strokes_dirty_ = true;
  }
}

}  // namespace satlab::gui
