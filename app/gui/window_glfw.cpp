// A GLFW window with an OpenGL 4.5 core context; ImGui's GLFW backend handles its input.
#include <glad/gl.h>
// glad first: GLFW must not pull in a system GL header.
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>

#include <utility>

#include "app/gui/surface.hpp"
#include "core/error.hpp"

namespace satlab::gui {
namespace {

std::vector<std::string>* g_dropped = nullptr;

class GlfwSurface final : public Surface {
 public:
  GlfwSurface(int width, int height, const char* title) {
    glfwSetErrorCallback([](int, const char* msg) { last_error() = msg; });
    if (!glfwInit())
      throw Error("cannot open a window (" + last_error() +
                  "): use `satlab render` for files, `satlab --headless`, or `xvfb-run satlab`");
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 5);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
    window_ = glfwCreateWindow(width, height, title, nullptr, nullptr);
    if (!window_) {
      glfwTerminate();
      throw Error("cannot create an OpenGL 4.5 window: " + last_error());
    }
    glfwMakeContextCurrent(window_);
    glfwSwapInterval(1);
    load_gl(reinterpret_cast<void* (*)(const char*)>(glfwGetProcAddress));
    g_dropped = &dropped_;
    glfwSetDropCallback(window_, [](GLFWwindow*, int n, const char** paths) {
      for (int i = 0; i < n; ++i) g_dropped->push_back(paths[i]);
    });
    ImGui_ImplGlfw_InitForOpenGL(window_, true);
  }
  ~GlfwSurface() override {
    ImGui_ImplGlfw_Shutdown();
    g_dropped = nullptr;
    glfwDestroyWindow(window_);
    glfwTerminate();
  }
  bool should_close() override { return glfwWindowShouldClose(window_); }
  void new_frame() override {
    glfwPollEvents();
    ImGui_ImplGlfw_NewFrame();
  }
  void framebuffer_size(int* w, int* h) override { glfwGetFramebufferSize(window_, w, h); }
  float content_scale() override {
    float x = 1, y = 1;
    glfwGetWindowContentScale(window_, &x, &y);
    return x > 0 ? x : 1.f;
  }
  void bind_framebuffer() override { glBindFramebuffer(GL_FRAMEBUFFER, 0); }
  void present() override { glfwSwapBuffers(window_); }
  void set_vsync(bool on) override { glfwSwapInterval(on ? 1 : 0); }
  std::string describe() override { return "window, " + gl_renderer(); }
  std::vector<std::string> take_dropped_files() override { return std::exchange(dropped_, {}); }

 private:
  static std::string& last_error() {
    static std::string e = "unknown GLFW error";
    return e;
  }
  GLFWwindow* window_ = nullptr;
  std::vector<std::string> dropped_;
};

}  // namespace

std::unique_ptr<Surface> open_window(int width, int height, const char* title) {
  return std::make_unique<GlfwSurface>(width, height, title);
}

}  // namespace satlab::gui
