// The front end's main loop: poll, new frame, UI, pipeline, draw, present, top to bottom.
#include "app/gui/gui.hpp"

#include <glad/gl.h>
#include <imgui.h>
#include <imgui_impl_opengl3.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "app/gui/export.hpp"
#include "app/gui/export_stream.hpp"
#include "app/gui/frame.hpp"
#include "app/gui/input_script.hpp"
#include "app/gui/gl_timer.hpp"
#include "app/gui/panels.hpp"
#include "app/gui/playback.hpp"
#include "app/gui/result_writer.hpp"
#include "app/gui/session.hpp"
#include "app/gui/surface.hpp"
#include "app/gui/viewer.hpp"
#include "core/error.hpp"

namespace satlab::gui {
namespace {

// ImGui's context, the surface (GL context + ImGui platform side) and ImGui's renderer, torn down in
// the reverse order even when something throws.
struct Frontend {
  explicit Frontend(const Options& o) {
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();  // before the surface: the GLFW backend attaches to it
    surface = o.headless ? open_headless(o.width, o.height) : open_window(o.width, o.height, "satlab");
    scale = surface->content_scale();
    setup_imgui_style(scale);
    set_imgui_ini_file(o.frames > 0);
    ImGui_ImplOpenGL3_Init("#version 450");
  }
  // The window moved to a screen of another scale: fonts and sizes again, between frames.
  void follow_content_scale() {
    const float now = surface->content_scale();
    if (now == scale) return;
    scale = now;
    ImGui::GetStyle() = ImGuiStyle();
    ImGui::GetIO().Fonts->Clear();
    setup_imgui_style(scale);
    ImGui_ImplOpenGL3_DestroyFontsTexture();
    ImGui_ImplOpenGL3_CreateFontsTexture();
  }
  ~Frontend() {
    ImGui_ImplOpenGL3_Shutdown();
    surface.reset();  // its platform backend detaches from the ImGui context
    ImGui::DestroyContext();
  }
  std::unique_ptr<Surface> surface;
  float scale = 1.f;
};

// Scripted runs: an export that ended on its own thread (collect_export), on the frame it ended or at the
// end of the run, prints the files it wrote and its message.
void report_ended_export(AppState& s) {
  if (!s.files.ended) return;
  for (const auto& f : s.files.ended_files) std::printf("satlab: exported %s\n", f.c_str());
  std::printf("satlab: %s\n", s.files.message.c_str());
  s.files.ended = false;
  s.files.ended_files.clear();
}

// Opens what the command line named; a bad file is reported and the bundled scene opens instead.
void open_initial(AppState& s, Session& session, Playback& playback, const Options& o) {
  s.clip.decoder = o.decoder;
  try {
    if (is_clip_request(o.image_path)) return playback.open(s, session, o.image_path, o.depth_path);
    session.open(s, o.image_path, o.depth_path);
  } catch (const Error& e) {
    if (o.image_path.empty()) throw;  // the bundled scene itself is missing
    s.error = e.what();
    session.open(s, "", "");
    return;
  }
  if (o.right_path.empty()) return;
  try {
    session.open_stereo(s, o.right_path);
  } catch (const Error& e) {
    s.error = e.what();  // the image stays open with the depth it had
  }
}

}  // namespace

int run(const Options& o) {
  if (!o.headless && !std::getenv("DISPLAY") && !std::getenv("WAYLAND_DISPLAY")) {
    std::fprintf(stderr,
                 "satlab: no display to open a window on: use `satlab render` for files, `satlab --headless` "
                 "for an offscreen run, or `xvfb-run satlab`\n");
    return 3;
  }
  Frontend fe(o);
  Surface& surface = *fe.surface;
  AppState s;
  s.backend = o.backend;
  s.depth_edit.refine = o.refine;
  s.view = view_from_string(o.view);
  s.compare = compare_from_string(o.compare, &s.split);
  s.compare_view = view_from_string(o.compare_view);
  s.truth.open = o.truth_case;
  s.show_help = o.help;
  s.sat_luminance = !o.sat_channels;
  s.sweeping = o.sweep;
  InputScript input_script = o.input_script.empty() ? InputScript() : InputScript(o.input_script);
  s.show_browser = !o.browse.empty();
  s.browser.dir = o.browse;
  s.continuous = o.continuous;
  s.files.max_tile = o.export_tile;
  s.files.band_delay_ms = o.export_band_delay_ms;
  s.max_texture = o.max_texture;
  if (s.max_texture <= 0) glGetIntegerv(GL_MAX_TEXTURE_SIZE, &s.max_texture);
  s.surface_name = surface.describe();
  Session session;
  Viewer viewer;
  {
    // The compute pass saves a 4K fill on a GPU (0.6 ms on the H100) but is the slow one on software GL:
    // Mesa's llvmpipe took 44-48 ms per 1600x900 frame with it, 2-3 ms with the fragment pass.
    const char* renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
    const std::string r = renderer ? renderer : "";
    const bool software = r.find("llvmpipe") != std::string::npos || r.find("softpipe") != std::string::npos ||
                          r.find("SwiftShader") != std::string::npos || r.find("Software") != std::string::npos;
    viewer.allow_compute_pass(!software && o.viewer_pass != "fragment");
  }
  ResultWriter result_writer(s, session, viewer);
  // A photo without depth opens sharp (a hint says how to pick a subject) unless a synthetic depth is named.
  s.synthetic.mode = SyntheticDepth::Mode::None;
  if (!o.synthetic_depth.empty()) s.synthetic = parse_synthetic_depth(o.synthetic_depth);
  if (!o.preset.empty()) try {
      apply_preset_file(s, o.preset);  // refused: a popup (scripted runs: exit 1), the defaults stay
    } catch (const Error& e) {
      s.error = e.what();
    }
  if (!o.params.empty()) try {  // the command line's parameters over the preset's (checked alone by the CLI)
      const Params p = o.params.over(s.params);
      validate(p);
      s.params = p;
    } catch (const Error& e) {
      s.error = std::string(e.what()) + " (after applying " + o.preset + " and the command line)";
    }
  Playback playback;
  open_initial(s, session, playback, o);
  s.clip.toggle = o.play && s.clip.open;
  // Builders named on the command line are applied (or refused with a popup) by the first frame's requests.
  s.algorithms = {o.sat_builder, o.reduction};
  s.algorithms_changed = !o.sat_builder.empty() || !o.reduction.empty();
  s.compare_running = o.compare_all;
  s.lab_request = o.lab;
  GlTimer draw_timer, ui_timer;  // GL time of the viewer's draw and of ImGui's, read a few frames late
  std::vector<double> frame_ms;  // scripted runs (--frames) report their frame times
  // ... and where the host spends them: UI build, pipeline + result to texture, GL submit, GPU wait.
  using Clock = std::chrono::steady_clock;
  std::vector<double> split_ms[4];
  Clock::time_point marks[4], previous_start;
  std::vector<View> shown;  // views whose textures are up to date
  bool sat_luminance = s.sat_luminance;
  bool vsync = true;

  for (int frame = 0; !surface.should_close() && (o.frames == 0 || frame < o.frames); ++frame) {
    const auto t0 = std::chrono::steady_clock::now();
    if (frame > 0) {  // the frame period, start to start (vsync waits included), for the timings panel
      const double dt = std::chrono::duration<double, std::milli>(t0 - previous_start).count();
      s.frame_period_ms = frame == 1 ? dt : 0.9 * s.frame_period_ms + 0.1 * dt;
      ++s.period_frames;
    }
    previous_start = t0;
    surface.new_frame();  // events, display size, time
    input_script.apply(frame, ImGui::GetIO());
    fe.follow_content_scale();
    ImGui_ImplOpenGL3_NewFrame();
    ImGui::NewFrame();

    const ImVec2 display = ImGui::GetIO().DisplaySize;
    const Layout layout = layout_for(s, display.x, display.y, fe.scale);
    handle_image_input(s, viewer, session, layout);
    if (s.show_ui) {
      draw_sidebar(s, layout.panel_x, 0, layout.panel_w, display.y);
      draw_status_overlay(s, 8 * fe.scale, 8 * fe.scale, viewer.legend_texture(s));
    }
    // The clip's timeline along the bottom of the image area; the brush's toolbar and an export's progress above it.
    const float timeline_h = draw_timeline(s, 0, layout.image_h, layout.image_w);
    if (s.show_ui)
      draw_brush_toolbar(s, 8 * fe.scale, layout.image_h - timeline_h - 40 * fe.scale, layout.image_w - 16 * fe.scale);
    draw_file_browser(s, display.x, display.y);
    draw_help_overlay(s, display.x, display.y);
    draw_export_progress(s, 8 * fe.scale, layout.image_h - timeline_h - 8 * fe.scale,
                         std::min(layout.image_w - 16 * fe.scale, 520 * fe.scale));
    draw_error_popup(s);
    // A widget held with the mouse (a slider dragged), the focus sweeping or a depth stroke being painted:
    // changes get previews, and the full frame waits until it is let go (Session::update).
    // A clip playing or scrubbed counts too: on a slow backend its frames are previews until it stops.
    s.interacting = (ImGui::IsAnyItemActive() && !ImGui::GetIO().WantTextInput) || s.sweeping ||
                    s.depth_edit.painting || s.clip.playing || s.clip.scrubbing;
    ImGui::Render();
    marks[0] = Clock::now();

    session.handle_requests(s, surface.take_dropped_files());
    playback.update(s, session);  // a clip opened, played, stepped or keyed: the frame it shows
    handle_clip_export(s);
    if (s.vsync != vsync) surface.set_vsync(vsync = s.vsync);
    bool fresh = session.update(s);
    // A scripted run's last frame shows the full frame a worker thread renders (not a preview of it).
    if (o.frames > 0 && frame + 1 == o.frames) fresh = session.settle(s) || fresh;
    handle_file_requests(s, session);  // after the run: an export takes the parameters shown
    track_recent_files(s);
    // Textures of the visible views: all again after a new result, each as it comes into sight.
    if (fresh || sat_luminance != s.sat_luminance) shown.clear(), sat_luminance = s.sat_luminance;
    const std::vector<Pane> visible = panes(s, layout.image_w);
    for (const Pane& p : visible)
      if (std::find(shown.begin(), shown.end(), p.view) == shown.end())
        session.show(s, viewer, p.view), shown.push_back(p.view);
    marks[1] = Clock::now();

    int fbw = 0, fbh = 0;
    surface.framebuffer_size(&fbw, &fbh);
    surface.bind_framebuffer();
    glViewport(0, 0, fbw, fbh);
    const float fb_scale = display.x > 0 ? float(fbw) / display.x : 1.f;
    // No clear: the viewer writes every framebuffer pixel (a 4K clear alone is 0.59 ms on the H100).
    draw_timer.begin();
    viewer.draw(s, visible, layout.image_h, fb_scale, fbw, fbh);
    s.viewer_pass = viewer.pass_name();
    if (!viewer.visible_pixels(&s.visible, &s.display_scale)) s.display_scale = 0;
    draw_timer.end();
    glViewport(0, 0, fbw, fbh);
    ui_timer.begin();
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    ui_timer.end();
    for (double ms = 0; draw_timer.poll(&ms);) s.record_stage({"draw", ms, 0, ""}, "GL timer query");
    for (double ms = 0; ui_timer.poll(&ms);) s.record_stage({"ui", ms, 0, ""}, "GL timer query");
    if (!o.screenshot.empty() && frame + 1 == o.frames) save_framebuffer_png(o.screenshot, fbw, fbh);
    surface.present();
    marks[2] = Clock::now();
    if (o.frames > 0) {  // whole frame, GPU work included: wait for GL (which waited for interop's unmap)
      glFinish();
      marks[3] = Clock::now();
      frame_ms.push_back(std::chrono::duration<double, std::milli>(marks[3] - t0).count());
      // What the pipeline did in this frame (a preview, a full frame, one on the worker thread).
      if (!s.frame_note.empty())
        std::printf("satlab: frame %d: %s; frame %.1f ms\n", frame, s.frame_note.c_str(), frame_ms.back());
      report_ended_export(s);
      if (s.files.job)
        std::printf("satlab: export at frame %d: %llu of %llu rows\n", frame,
                    static_cast<unsigned long long>(s.files.job->rows_done()),
                    static_cast<unsigned long long>(s.files.job->rows_total()));
      for (int i = 0; i < 4; ++i)
        split_ms[i].push_back(std::chrono::duration<double, std::milli>(marks[i] - (i ? marks[i - 1] : t0)).count());
    }
  }
  if (o.frames > 0 && frame_ms.size() <= 10)  // too few for a steady median: said, not left silent
    std::printf("satlab: %zu frames of %dx%d (%s): no median frame time or stage summary (the first 5 frames "
                "load, compile and allocate: give --frames 11 or more)\n",
                frame_ms.size(), s.image_width, s.image_height, s.backend_name.c_str());
  if (frame_ms.size() > 10) {  // the first frames load, compile and allocate
    std::vector<double> steady(frame_ms.begin() + 5, frame_ms.end());
    std::nth_element(steady.begin(), steady.begin() + steady.size() / 2, steady.end());
    std::printf("satlab: %zu frames of %dx%d (%s, %s), median %.3f ms per frame%s; result to screen: %s; "
                "viewer: %s\n",
                frame_ms.size(), s.image_width, s.image_height, s.backend_name.c_str(), surface.describe().c_str(),
                steady[steady.size() / 2], s.continuous ? " with the pipeline run every frame" : "",
                s.display_path.c_str(), viewer.pass_name());
    // Where the time goes: each stage's median over its recent warm runs (phases marked by a '.'); a stage
    // that never ran warm (the upload) says so, with its cold time.
    std::string line = "satlab: stages (warm median ms, cold first runs excluded; SAT " + s.algorithms.sat_builder +
                       ", reduction " + s.algorithms.reduction + "):";
    for (const auto& name : s.stage_order) {
      const StageStats& st = s.stages[name];
      std::vector<float> h(st.history.begin(), st.history.end());
      char item[128];
      const char* dot = st.parent.empty() ? "" : ".";
      if (h.empty()) {
        std::snprintf(item, sizeof(item), " %s%s no-warm-run (cold %.4f);", dot, name.c_str(), st.cold_ms);
      } else {
        std::nth_element(h.begin(), h.begin() + h.size() / 2, h.end());
        std::snprintf(item, sizeof(item), " %s%s %.4f;", dot, name.c_str(), double(h[h.size() / 2]));
      }
      line += item;
    }
    std::printf("%s\n", line.c_str());
    double m[4];
    for (int i = 0; i < 4; ++i) {
      std::vector<double> v(split_ms[i].begin() + 5, split_ms[i].end());
      std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
      m[i] = v[v.size() / 2];
    }
    std::printf("satlab: host split (median ms): ui build %.3f, pipeline + result to texture %.3f, GL submit + "
                "present %.3f, glFinish wait %.3f\n", m[0], m[1], m[2], m[3]);
    if (!s.compare_table.empty()) std::printf("%s", s.compare_table.c_str());
  }
  if (!s.lab_table.empty()) std::printf("%s", s.lab_table.c_str());  // --lab, whatever the frame count
  if (o.frames > 0 && !s.depth_edit.saved.empty())  // scripted runs: what the brush panel or Ctrl+S saved
    std::printf("satlab: depth brush: %zu stroke(s), refine %s, last saved %s\n",
                s.depth_edit.history.strokes().size(),
                s.depth_edit.refine_note.empty() ? "none" : s.depth_edit.refine_note.c_str(),
                s.depth_edit.saved.c_str());
  if (s.clip.open && o.frames > 0) {  // scripted runs: where the clip stands
    std::printf("satlab: clip %s: frame %lld at %.3f s, %lld frames shown, %zu key(s)%s%s\n", s.clip.path.c_str(),
                s.clip.index, s.clip.time, s.clip.shown, s.clip.keys.keys().size(),
                s.clip.note.empty() ? "" : "; ", s.clip.note.c_str());
    if (s.clip.played > 0 && s.clip.played_s > 0)  // frames shown while playing over the wall time they took
      std::printf("satlab: clip playback: %lld frame intervals in %.3f s, %.1f frames/s (the clip's rate %.3g; %s; "
                  "decoder %s)\n",
                  s.clip.played, s.clip.played_s, double(s.clip.played) / s.clip.played_s, s.clip.info.fps,
                  s.backend_name.c_str(), s.clip.info.decoder.c_str());
    for (const ParamKey& k : s.clip.keys.keys())
      std::printf("satlab: clip key %.3f s: focus %.4f aperture %.2f\n", k.time, double(k.focus), double(k.aperture));
  }
  if (s.clip.job) {  // a clip export still running: a scripted run waits for it, a closed window cancels it
    if (o.frames == 0) s.clip.job->cancel = true;
    if (s.clip.job->thread.joinable()) s.clip.job->thread.join();
    s.clip.job->done = true;
    handle_clip_export(s);
  }
  if (!s.clip.export_message.empty() && o.frames > 0) std::printf("satlab: clip %s\n", s.clip.export_message.c_str());
  if (s.files.job) {  // an export still running: a scripted run waits for it, a closed window cancels it
    if (o.frames == 0) s.files.cancel_requested = true;
    collect_export(s, true);
    if (o.frames > 0) report_ended_export(s);
  }
  if (o.frames > 0 && s.error.empty()) try {  // scripted exports of the final state
      if (!o.export_dir.empty())
        for (const auto& f : export_next_free(s, session, o.export_dir)) std::printf("satlab: exported %s\n", f.c_str());
      if (!o.save_preset.empty()) save_preset_file(s, o.save_preset), std::printf("satlab: saved preset %s\n", o.save_preset.c_str());
      if (!o.save_depth.empty()) {
        std::snprintf(s.depth_edit.save_field, sizeof(s.depth_edit.save_field), "%s", o.save_depth.c_str());
        session.save_depth(s);
        std::printf("satlab: saved depth %s\n", o.save_depth.c_str());
      }
    } catch (const Error& e) {
      s.error = e.what();
    }
  // Scripted runs (--frames) report what the popup showed, and fail.
  if (!s.error.empty() && o.frames > 0) {
    std::fprintf(stderr, "satlab: %s\n", s.error.c_str());
    return 1;
  }
  return 0;
}

}  // namespace satlab::gui
