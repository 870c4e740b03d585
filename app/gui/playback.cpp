#include "app/gui/playback.hpp"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

#include "app/cli/render_clip.hpp"
#include "app/gui/app_state.hpp"
#include "app/gui/session.hpp"
#include "app/io/exr.hpp"
#include "app/io/image_io.hpp"
#include "app/io/output_names.hpp"
#include "app/ops/clip_decoder.hpp"
#include "core/error.hpp"
#include "gpu/device.hpp"

namespace satlab::gui {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

std::string clock_text(double t) {
  char b[32];
  const int m = int(t / 60);
  std::snprintf(b, sizeof(b), "%d:%05.2f", m, t - 60.0 * m);
  return b;
}

double frame_period(const io::ClipInfo& info) { return 1.0 / (info.fps > 0 ? info.fps : 24.0); }

// The clip's length in seconds: its header's, else its frames', else the playhead's (a video that says nothing).
double clip_length(const ClipState& c) {
  if (c.info.duration > 0) return c.info.duration;
  if (c.info.frames > 0) return double(c.info.frames) * frame_period(c.info);
  return std::max(c.time + frame_period(c.info), 1e-3);
}

}  // namespace

bool is_clip_request(const std::string& path) {
  return !path.empty() && (io::is_video_path(path) || io::is_sequence_pattern(path) || io::is_dir(path));
}

void Playback::open(AppState& s, Session& session, const std::string& path, const std::string& depth_path) {
  // NVDEC where the pipeline is on the GPU: it reads the frame where the decoder left it, and the frame comes
  // to the host on the reading thread (the session keeps its pixels).
  // Before the first image the session has no pipeline yet: then the one it is about to make (auto takes
  // the GPU where one is found).
  const bool gpu = !s.backend_name.empty() ? s.backend_name.rfind("gpu", 0) == 0
                                           : s.backend != "cpu" && gpu::probe().available;
  std::unique_ptr<io::ClipReader> reader =
      io::read_ahead(io::open_clip(path, false, 24.0, clip_decoder(s.clip.decoder, gpu, false, true)));
  std::unique_ptr<io::ClipReader> depth;
  ImageF still;  // one depth map for every frame
  if (depth_path.empty() && !reader->info().first_file.empty() && io::exr_has_depth(reader->info().first_file))
    return open(s, session, path, path);  // an OpenEXR sequence with its Z pass: its own depth clip
  if (depth_path.empty() && !reader->info().depth_track.empty()) {  // a video with its own depth track (MP4-AT)
    if (reader->info().inverse_depth) s.params.disparity = true;  // larger is nearer
    return open(s, session, path, path);
  }
  if (!depth_path.empty()) {
    if (is_clip_request(depth_path)) depth = io::read_ahead(io::open_clip(depth_path, true));
    else still = io::load_depth(depth_path);
  }
  io::ClipFrame first;
  if (!reader->next(first)) throw Error(path + ": the clip has no frame");
  io::ClipFrame dfirst, dnext;
  bool have_next = false, done = false;
  if (depth) {
    if (!depth->next(dfirst)) throw Error(depth_path + ": the depth clip has no frame");
    have_next = depth->next(dnext), done = !have_next;
  }
  ImageF raw = depth ? dfirst.depth : still;
  session.open_clip(s, path, std::move(first.image), std::move(raw), depth_path);
  reader_ = std::move(reader);
  depth_ = std::move(depth);
  depth_frame_ = std::move(dfirst), depth_next_ = std::move(dnext);
  have_depth_next_ = have_next, depth_done_ = done;
  ClipState& c = s.clip;
  c.open = true;
  c.path = path;
  c.depth_path = depth_ ? depth_path : "";
  c.info = reader_->info();
  c.index = first.index, c.time = first.time;
  c.playing = false, c.step = 0, c.seek = -1, c.toggle = c.set_key = c.delete_key = false;
  c.shown = 1, c.rate_fps = 0, c.decode_ms = c.frame_in_ms = 0, c.played = 0, c.played_s = 0;
  c.note = c.info.decoder_note;
  apply_keys(s, session);
}

bool Playback::read_next(AppState& s) {
  const auto t0 = Clock::now();
  const bool got = reader_->next(frame_);
  s.clip.decode_ms = ms_since(t0);
  return got;
}

void Playback::seek(double time) {
  reader_->seek(std::max(0.0, time));
  if (depth_) {
    depth_->seek(std::max(0.0, time));
    depth_frame_ = io::ClipFrame(), depth_next_ = io::ClipFrame();
    have_depth_next_ = depth_done_ = false;
  }
}

void Playback::show_frame(AppState& s, Session& session) {
  ClipState& c = s.clip;
  io::ClipFrame& frame = frame_;
  const auto t0 = Clock::now();
  ImageF raw;
  if (depth_) {  // the latest depth frame at or before this frame's time (half a frame's slack)
    const double slack = 0.5 * frame_period(c.info);
    for (;;) {
      if (!have_depth_next_ && !depth_done_) have_depth_next_ = depth_->next(depth_next_), depth_done_ = !have_depth_next_;
      if (!have_depth_next_ || (!depth_frame_.depth.empty() && depth_next_.time > frame.time + slack)) break;
      depth_frame_ = std::move(depth_next_);
      have_depth_next_ = false;
    }
    if (depth_frame_.depth.empty()) throw Error(c.depth_path + ": no depth frame for frame " + std::to_string(frame.index));
    raw = depth_frame_.depth;
  }
  session.set_frame(s, frame.image, std::move(raw), &frame.device);
  c.frame_in_ms = ms_since(t0);
  // Host work of the main thread for this frame, in the display's rows: the wait for the decoder (ahead on
  // its own thread) and handing the frame (and its depth) to the session.
  s.record_stage({"clip decode wait", c.decode_ms, 0, ""}, "host clock");
  s.record_stage({"clip frame in", c.frame_in_ms, 0, ""}, "host clock");
  c.index = frame.index, c.time = frame.time;
  ++c.shown;
  const auto now = Clock::now();
  if (c.playing && c.shown > 1 && last_shown_ != Clock::time_point{}) {
    const double dt = std::chrono::duration<double>(now - last_shown_).count();
    if (dt > 0) c.rate_fps = c.rate_fps > 0 ? 0.9 * c.rate_fps + 0.1 / dt : 1.0 / dt;
    c.played_s += dt, ++c.played;
  }
  last_shown_ = now;
  apply_keys(s, session);
}

void Playback::apply_keys(AppState& s, Session& session) {
  const ClipState& c = s.clip;
  if (c.keys.empty()) return;
  const ImageF& depth = session.edit_depth();
  s.params = c.keys.at(s.params, c.time, depth.empty() ? nullptr : &depth);
  if (c.keys.moves_synthetic() && s.depth_edit.source == DepthSource::Synthetic) {
    s.synthetic = c.keys.synthetic_at(s.synthetic, c.time);
    s.synthetic_changed = true;
  }
  s.params_changed = true;
}

void Playback::set_key(AppState& s) {
  ClipState& c = s.clip;
  ParamKey k;
  k.time = c.time;
  k.focus = s.params.focus, k.aperture = s.params.aperture;
  k.focus_range = s.params.focus_range, k.max_radius = s.params.max_radius;
  if (s.depth_edit.source == DepthSource::Synthetic) {  // the synthetic depth's fields of its mode
    SyntheticDepth d = s.synthetic;
    const bool gradient = d.mode == SyntheticDepth::Mode::Gradient;
    for (int f = gradient ? 0 : 3; f < (gradient ? 3 : 6); ++f) k.synthetic[f] = synthetic_field(d, f);
  }
  c.keys.set(k);
  char note[160];
  std::snprintf(note, sizeof(note), "key at %s: focus %.3f, aperture %.1f, focus range %.3f, blur limit %.0f (%zu keys)",
                clock_text(c.time).c_str(), double(k.focus), double(k.aperture), double(k.focus_range),
                double(k.max_radius), c.keys.keys().size());
  c.note = note;
}

void Playback::update(AppState& s, Session& session) {
  ClipState& c = s.clip;
  if (is_clip_request(s.open_image)) {  // Session::handle_requests leaves clips to this
    const std::string path = std::exchange(s.open_image, std::string());
    try {
      open(s, session, path, "");
    } catch (const Error& e) {
      s.error = e.what();
    }
    return;
  }
  if (c.open && s.image_path != c.path) reader_.reset(), depth_.reset(), c.open = c.playing = false;  // an image opened
  if (!c.open || !reader_) return;
  try {
    if (c.set_key) set_key(s);
    if (c.delete_key) {
      c.note = c.keys.remove_near(c.time, 0.5 * frame_period(c.info)) ? "key at " + clock_text(c.time) + " deleted"
                                                                      : "no key at " + clock_text(c.time);
      apply_keys(s, session);
    }
  } catch (const Error& e) {
    c.note = e.what();
  }
  c.set_key = c.delete_key = false;
  if (c.toggle) {
    c.playing = !c.playing;
    c.toggle = false;
    if (c.playing) play_wall_ = Clock::now(), play_time_ = c.time, c.rate_fps = 0, last_shown_ = {};
  }
  try {
    const int step = std::exchange(c.step, 0);
    const double seek_to = std::exchange(c.seek, -1.0);
    double target = -1;  // a frame to show: the one at this time
    if (seek_to >= 0) target = seek_to, c.playing = false;
    if (step != 0) target = std::max(0.0, c.time + double(step) * frame_period(c.info)), c.playing = false;
    if (target >= 0) {
      if (!(step == 1 && seek_to < 0)) seek(target);  // the next frame is read on, without a seek
      if (read_next(s)) show_frame(s, session);
      return;
    }
    if (!c.playing) return;
    // Playing: the next frame once the clip's time has come (never faster than the clip's rate; a frame
    // that takes longer to render plays slower, and the rate shown says so).
    const double now = play_time_ + std::chrono::duration<double>(Clock::now() - play_wall_).count();
    if (now + 1e-6 < c.time + frame_period(c.info)) return;
    if (!read_next(s)) {
      if (!c.loop) {
        c.playing = false;
        return;
      }
      seek(0);
      if (!read_next(s)) return;
      play_wall_ = Clock::now(), play_time_ = frame_.time;
    }
    show_frame(s, session);
  } catch (const Error& e) {
    s.error = e.what();
    c.playing = false;
  }
}

void handle_clip_export(AppState& s) {
  ClipState& c = s.clip;
  if (c.job && c.cancel_requested) c.job->cancel = true;
  c.cancel_requested = false;
  if (c.job && c.job->done) {
    if (c.job->thread.joinable()) c.job->thread.join();
    c.export_message = c.job->error.empty() ? "exported " + c.job->path + " " + c.job->summary : c.job->error;
    if (!c.job->error.empty() && c.job->error.find("cancelled") == std::string::npos) s.error = c.job->error;
    c.job.reset();
  }
  if (!c.export_requested) return;
  c.export_requested = false;
  if (!c.open || c.job) return;
  cli::ClipRequest r;
  r.input = c.path;
  r.depth = c.depth_path;
  if (r.depth.empty() && s.depth_edit.source == DepthSource::File) r.depth = s.depth_path;  // one map, every frame
  r.synthetic = s.synthetic;
  r.refine = s.depth_edit.refine;
  r.backend = s.backend;
  r.algorithms = s.algorithms;
  r.fps = c.info.fps > 0 ? c.info.fps : 24.0;
  r.keys = c.keys.keys();
  r.output = c.export_path;
  if (r.output.empty()) {
    const std::string dir = s.files.folder[0] ? s.files.folder : ".";
    const std::string stem = io::is_video_path(c.path) ? io::file_stem(c.path) : "clip";
    r.output = dir + "/" + stem + "_dof" + (io::is_video_path(c.path) ? ".mp4" : "_%04d.png");
    for (int n = 2; io::path_exists(io::is_video_path(c.path) ? r.output : io::sequence_file(r.output, 0)) && n < 1000; ++n)
      r.output = dir + "/" + stem + "_dof-" + std::to_string(n) + (io::is_video_path(c.path) ? ".mp4" : "_%04d.png");
  }
  auto job = std::make_shared<ClipExport>();
  job->path = r.output;
  r.cancel = &job->cancel;
  ClipExport* j = job.get();
  r.on_frame = [j](long long done, long long total) { j->frames_done = done, j->frames_total = total; };
  const Params p = s.params;
  job->frames_total = c.info.frames;
  job->thread = std::thread([j, r, p] {
    try {
      j->summary = cli::render_clip(r, p);
    } catch (const Error& e) {
      j->error = e.what();
    } catch (const std::exception& e) {
      j->error = std::string("export failed: ") + e.what();
    }
    j->done = true;
  });
  c.job = std::move(job);
  c.export_message.clear();
}

float draw_timeline(AppState& s, float x, float bottom, float width) {
  ClipState& c = s.clip;
  if (!c.open) return 0;
  const ImGuiStyle& st = ImGui::GetStyle();
  const float row = ImGui::GetFrameHeight();
  const float h = 2 * row + st.ItemSpacing.y + 2 * st.WindowPadding.y;
  ImGui::SetNextWindowPos(ImVec2(x, bottom - h));
  ImGui::SetNextWindowSize(ImVec2(width, h));
  ImGui::SetNextWindowBgAlpha(0.85f);
  const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                 ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing;
  c.scrubbing = false;
  if (ImGui::Begin("##timeline", nullptr, flags)) {
    if (ImGui::Button(c.playing ? "Pause" : "Play")) c.toggle = true;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("play or pause (Space)");
    ImGui::SameLine();
    if (ImGui::ArrowButton("##back", ImGuiDir_Left)) c.step = -1;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("a frame back (Left)");
    ImGui::SameLine();
    if (ImGui::ArrowButton("##forward", ImGuiDir_Right)) c.step = 1;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("a frame forward (Right)");
    ImGui::SameLine();
    const double length = clip_length(c);
    char frames[48] = "";
    if (c.info.frames > 0) std::snprintf(frames, sizeof(frames), " / %lld", c.info.frames);
    ImGui::Text("frame %lld%s  %s / %s", c.index + 1, frames, clock_text(c.time).c_str(), clock_text(length).c_str());
    ImGui::SameLine();
    if (c.playing && c.rate_fps > 0)
      ImGui::Text("  playing %.1f fps (the clip's %.3g)", c.rate_fps, c.info.fps);
    else
      ImGui::Text("  %.3g fps, %s, decoded %s", c.info.fps, c.info.codec.c_str(),
                  c.info.decoder == "nvdec" ? "by NVDEC on the GPU" : "on the CPU");
    ImGui::SameLine();
    if (ImGui::Button("Key")) c.set_key = true;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("set a key at the playhead from the sliders (K); Ctrl+K deletes it");
    ImGui::SameLine();
    ImGui::Checkbox("loop", &c.loop);
    ImGui::SameLine();
    if (c.job) {
      const long long done = c.job->frames_done, total = c.job->frames_total;
      char text[160];
      std::snprintf(text, sizeof(text), "exporting %s: %lld%s frames", io::file_stem(c.job->path).c_str(), done,
                    total > 0 ? (" of " + std::to_string(total)).c_str() : "");
      const float cancel_w = ImGui::CalcTextSize("Cancel").x + 2 * st.FramePadding.x;
      ImGui::ProgressBar(total > 0 ? float(double(done) / double(total)) : 0.f,
                         ImVec2(std::max(80.f, ImGui::GetContentRegionAvail().x - cancel_w - st.ItemSpacing.x), 0), text);
      ImGui::SameLine();
      if (ImGui::Button("Cancel")) c.cancel_requested = true;
    } else if (ImGui::Button("Export clip")) {
      c.export_requested = true;
    }
    if (!c.job && ImGui::IsItemHovered())
      ImGui::SetTooltip("render the whole clip with these settings and the keys (as satlab render does)%s%s",
                        c.export_message.empty() ? "" : "\nlast: ", c.export_message.c_str());
    // The scrubber: the clip's length across, the playhead, a diamond per key.
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    const float w = ImGui::GetContentRegionAvail().x;
    ImGui::InvisibleButton("##scrub", ImVec2(w, row));
    const bool held = ImGui::IsItemActive();
    if (held && w > 0) {
      const float f = std::clamp((ImGui::GetIO().MousePos.x - p0.x) / w, 0.f, 1.f);
      const double t = std::min(double(f) * length, std::max(0.0, length - 0.5 * frame_period(c.info)));
      if (std::abs(t - c.time) >= 0.5 * frame_period(c.info)) c.seek = t;
      c.scrubbing = true;
    }
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float mid = p0.y + row * 0.5f;
    dl->AddRectFilled(ImVec2(p0.x, mid - 3), ImVec2(p0.x + w, mid + 3), ImGui::GetColorU32(ImGuiCol_FrameBg), 3.f);
    const float played = length > 0 ? float(std::min(1.0, c.time / length)) : 0.f;
    dl->AddRectFilled(ImVec2(p0.x, mid - 3), ImVec2(p0.x + w * played, mid + 3), ImGui::GetColorU32(ImGuiCol_SliderGrab), 3.f);
    for (const ParamKey& k : c.keys.keys()) {
      const float kx = p0.x + w * float(std::min(1.0, k.time / length));
      const float r = row * 0.3f;
      dl->AddQuadFilled(ImVec2(kx, mid - r), ImVec2(kx + r, mid), ImVec2(kx, mid + r), ImVec2(kx - r, mid),
                        IM_COL32(240, 190, 60, 255));
    }
    const float px = p0.x + w * played;
    dl->AddLine(ImVec2(px, p0.y), ImVec2(px, p0.y + row), IM_COL32(255, 255, 255, 255), 2.f);
    if (ImGui::IsItemHovered() && !held) {
      const float f = std::clamp((ImGui::GetIO().MousePos.x - p0.x) / std::max(w, 1.f), 0.f, 1.f);
      ImGui::SetTooltip("%s: drag to scrub (previews while held)%s%s", clock_text(f * length).c_str(),
                        c.note.empty() ? "" : "\n", c.note.c_str());
    }
  }
  ImGui::End();
  return h;
}

}  // namespace satlab::gui
