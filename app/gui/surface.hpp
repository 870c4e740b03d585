// Where frames are drawn: a GLFW window (window_glfw.cpp), or an offscreen framebuffer on a headless EGL
// context (context_egl.cpp). A Surface owns the OpenGL 4.5 core context (loaded through GLAD) and ImGui's platform side, so the
// main loop does not care which one it has.
#pragma once
#include <memory>
#include <string>
#include <vector>

namespace satlab::gui {

class Surface {
 public:
  virtual ~Surface() = default;
  virtual bool should_close() = 0;
  // Polls events and starts ImGui's platform frame (display size, time, input).
  virtual void new_frame() = 0;
  virtual void framebuffer_size(int* width, int* height) = 0;
  virtual float content_scale() = 0;  // HiDPI factor (1 on a 96-dpi screen)
  virtual void bind_framebuffer() = 0;
  virtual void present() = 0;
  virtual void set_vsync(bool on) = 0;
  virtual std::string describe() = 0;  // "GLFW window, OpenGL 4.5 (llvmpipe)"
  // Files dropped onto the window since the last call.
  virtual std::vector<std::string> take_dropped_files() { return {}; }
};

// Both throw satlab::Error with the reason when no context can be made.
std::unique_ptr<Surface> open_window(int width, int height, const char* title);
std::unique_ptr<Surface> open_headless(int width, int height);

// Loads GL entry points after a context is current and checks for 4.5 core; throws satlab::Error.
void load_gl(void* (*get_proc)(const char*));
std::string gl_renderer();
// The one GL error check: throws satlab::Error naming `what` (with sizes) and the GL error code.
void check_gl(const std::string& what);

}  // namespace satlab::gui
