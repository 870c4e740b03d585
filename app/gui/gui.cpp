// The front end's main loop: poll, new frame, UI, pipeline, draw, present, top to bottom.
#include "app/gui/gui.hpp"

#include <glad/gl.h>
#include <imgui.h>
#include <imgui_impl_opengl3.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sys/stat.h>

#include "app/gui/panels.hpp"
#include "app/gui/session.hpp"
#include "app/gui/surface.hpp"
#include "app/gui/viewer.hpp"
#include "app/io/image_io.hpp"
#include "core/error.hpp"

namespace satlab::gui {
namespace {

void setup_imgui(float scale) {
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;  // the layout is fixed; never write imgui.ini into the working directory
  ImGui::StyleColorsDark();
  ImGuiStyle& style = ImGui::GetStyle();
  style.WindowRounding = 0.f;
  style.FrameRounding = 3.f;
  style.ScaleAllSizes(scale);
  const char* font = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
  struct stat st {};
  if (stat(font, &st) == 0)
    io.Fonts->AddFontFromFileTTF(font, std::round(15.f * scale));
  else {
    ImFontConfig cfg;
    cfg.SizePixels = std::round(13.f * scale);
    io.Fonts->AddFontDefault(&cfg);
  }
}

// Uploads what `view` shows: the colour texture always (it fixes the image size), the scalar one for
// depth and CoC.
void upload_view(Viewer& viewer, Session& session, View view) {
  Pipeline& p = session.pipeline();
  viewer.upload_colour(view == View::Result && session.has_result() ? p.result() : session.input());
  if (view == View::Depth) viewer.upload_scalar(p.depth_normalised());
  if (view == View::Coc) viewer.upload_scalar(p.coc());
}

void save_screenshot(const std::string& path, int w, int h) {
  ImageRGBA8 shot(w, h), flipped(w, h);
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, shot.data.data());
  for (int y = 0; y < h; ++y)
    std::copy(shot.px(0, h - 1 - y), shot.px(0, h - 1 - y) + size_t(w) * 4, flipped.px(0, y));
  for (size_t i = 3; i < flipped.data.size(); i += 4) flipped.data[i] = 255;
  io::save_png(path, flipped);
}

// Mouse and keys over the image region (x0, y0, w, h in ImGui coordinates).
std::string handle_image_input(AppState& s, Viewer& viewer, Session& session, float x0, float y0, float w, float h) {
  ImGuiIO& io = ImGui::GetIO();
  if (!io.WantCaptureKeyboard) {
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Tab))) s.show_ui = !s.show_ui;
    if (ImGui::IsKeyPressed('R')) viewer.reset_view();
  }
  const float mx = io.MousePos.x - x0, my = io.MousePos.y - y0;
  const bool inside = mx >= 0 && my >= 0 && mx < w && my < h && !io.WantCaptureMouse;
  if (!inside) return "";
  const float fb = io.DisplayFramebufferScale.x;
  if (io.MouseWheel != 0) viewer.zoom_at(std::pow(1.15f, io.MouseWheel), mx * fb, my * fb);
  if (ImGui::IsMouseDragging(ImGuiMouseButton_Left)) viewer.pan(io.MouseDelta.x * fb, io.MouseDelta.y * fb);
  int px = 0, py = 0;
  if (!viewer.pixel_at(mx * fb, my * fb, &px, &py)) return "";
  const ImageF& depth = session.pipeline().depth_normalised();
  const bool has_depth = depth.width == s.image_width && depth.height == s.image_height;
  if (ImGui::IsMouseReleased(ImGuiMouseButton_Left) && ImGui::GetMouseDragDelta(ImGuiMouseButton_Left).x == 0 &&
      has_depth && s.params.filter == FilterKind::Dof) {
    s.params.focus = depth.at(px, py);
    s.params_changed = true;
  }
  const uint8_t* c = session.input().px(px, py);
  char buf[160];
  int n = std::snprintf(buf, sizeof(buf), "(%d, %d)  RGB %d %d %d", px, py, c[0], c[1], c[2]);
  const ImageF& coc = session.pipeline().coc();
  if (has_depth) n += std::snprintf(buf + n, sizeof(buf) - size_t(n), "  depth %.3f", depth.at(px, py));
  if (coc.width == s.image_width && coc.height == s.image_height && s.params.filter == FilterKind::Dof)
    std::snprintf(buf + n, sizeof(buf) - size_t(n), "  CoC %+.2f px", coc.at(px, py));
  return buf;
}

// Files dropped or requested by panels: a name containing "depth" is taken as a depth map.
void handle_open_requests(AppState& s, Session& session, Surface& surface) {
  for (const auto& f : surface.take_dropped_files()) {
    std::string name = f.substr(f.find_last_of('/') + 1);
    (name.find("depth") != std::string::npos ? s.open_depth : s.open_image) = f;
  }
  try {
    if (!s.open_image.empty()) session.open(s, s.open_image, "");
    if (!s.open_depth.empty()) session.open_depth(s, s.open_depth);
    if (s.backend_changed) session.set_backend(s);
  } catch (const Error& e) {
    s.error = e.what();
  }
  s.open_image.clear();
  s.open_depth.clear();
  s.backend_changed = false;
}

}  // namespace

int run(const Options& o) {
  if (!o.headless && !std::getenv("DISPLAY") && !std::getenv("WAYLAND_DISPLAY")) {
    std::fprintf(stderr,
                 "satlab: no display to open a window on: use `satlab render` for files, `satlab --headless`, "
                 "or run under `xvfb-run satlab`\n");
    return 3;
  }
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();  // before the surface: the GLFW backend attaches to it
  std::unique_ptr<Surface> surface = o.headless ? open_headless(o.width, o.height) : open_window(o.width, o.height, "satlab");
  const float scale = surface->content_scale();
  setup_imgui(scale);
  ImGui_ImplOpenGL3_Init("#version 450");
  int status = 0;
  {
    AppState s;
    s.backend = o.backend;
    s.view = view_from_string(o.view);
    s.surface_name = surface->describe();
    Session session;
    Viewer viewer;
    try {
      session.open(s, o.image_path, o.depth_path);
    } catch (const Error& e) {
      if (o.image_path.empty()) throw;  // the bundled scene itself is missing
      s.error = e.what();                 // keep going on the bundled scene, with the message shown
      session.open(s, "", "");
    }
    View shown = s.view;
    bool vsync = true;
    std::string pixel;
    for (int frame = 0; !surface->should_close() && (o.frames == 0 || frame < o.frames); ++frame) {
      surface->new_frame();
      ImGui_ImplOpenGL3_NewFrame();
      ImGui::NewFrame();

      int fbw = 0, fbh = 0;
      surface->framebuffer_size(&fbw, &fbh);
      const ImVec2 disp = ImGui::GetIO().DisplaySize;
      const float panel_w = s.show_ui ? std::min(420.f * scale, disp.x * 0.45f) : 0.f;
      const float img_w = disp.x - panel_w;
      pixel = handle_image_input(s, viewer, session, 0, 0, img_w, disp.y);
      if (s.show_ui) {
        draw_controls_panel(s, img_w, 0, panel_w, disp.y);
        draw_status_overlay(s, 8 * scale, 8 * scale, pixel.c_str());
      }
      draw_error_popup(s);
      ImGui::Render();

      handle_open_requests(s, session, *surface);
      if (s.vsync != vsync) surface->set_vsync(vsync = s.vsync);
      bool fresh = false;
      try {
        fresh = session.update(s);
      } catch (const Error& e) {
        s.error = std::string("the pipeline failed: ") + e.what();
      }
      if (fresh || shown != s.view || frame == 0) upload_view(viewer, session, shown = s.view);

      surface->bind_framebuffer();
      glViewport(0, 0, fbw, fbh);
      glClearColor(0.09f, 0.09f, 0.1f, 1.f);
      glClear(GL_COLOR_BUFFER_BIT);
      const float fs = disp.x > 0 ? float(fbw) / disp.x : 1.f;
      viewer.draw(s.view, 0, 0, int(img_w * fs), fbh, fbh, s.params.max_radius > 0 ? 1.f / s.params.max_radius : 1.f);
      glViewport(0, 0, fbw, fbh);
      ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
      if (!o.screenshot.empty() && frame + 1 == o.frames) save_screenshot(o.screenshot, fbw, fbh);
      surface->present();
    }
    if (!s.error.empty() && o.frames > 0) {
      std::fprintf(stderr, "satlab: %s\n", s.error.c_str());
      status = 1;
    }
  }
  ImGui_ImplOpenGL3_Shutdown();
  surface.reset();  // its platform backend detaches from the ImGui context
  ImGui::DestroyContext();
  return status;
}

}  // namespace satlab::gui
