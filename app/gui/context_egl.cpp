// Headless OpenGL: an EGL context with no window system (the EGL device platform: NVIDIA's driver on
// the GPU machine, Mesa's software device elsewhere; Mesa's surfaceless platform as a fallback),
// rendering into a framebuffer object. ImGui runs without a platform backend here.
#include <glad/egl.h>
#include <glad/gl.h>
#include <imgui.h>

#include <cstdio>
#include <string>
#include <vector>

#include "app/gui/surface.hpp"
#include "core/error.hpp"

namespace satlab::gui {
namespace {

std::string egl_error(const char* what) {
  char buf[96];
  std::snprintf(buf, sizeof(buf), "%s failed (EGL error 0x%04x)", what, unsigned(eglGetError()));
  return buf;
}

class EglSurface final : public Surface {
 public:
  EglSurface(int width, int height) : width_(width), height_(height) {
    if (!gladLoaderLoadEGL(EGL_NO_DISPLAY))
      throw Error("headless mode needs libEGL.so.1 (EGL 1.5), not found");
    // The first display that gives an OpenGL 4.5 core context wins; what failed is kept for the message.
    std::string failures;
    for (const Candidate& c : candidates(&failures)) {
      if (context_ != EGL_NO_CONTEXT) {
        eglTerminate(c.display);  // not needed: one was found
        continue;
      }
      try {
        make_context(c.display);
        platform_ = c.name;
      } catch (const Error& e) {
        failures += "; " + c.name + ": " + e.what();
        eglTerminate(c.display);
      }
    }
    if (context_ == EGL_NO_CONTEXT) throw Error("no headless OpenGL 4.5 core context through EGL" + failures);
    // Why a better platform was passed over, for the backend panel.
    if (platform_.rfind("device", 0) != 0) platform_ += failures;
    load_gl(reinterpret_cast<void* (*)(const char*)>(eglGetProcAddress));
    // The colour buffer is a texture, so the viewer can write it from a compute pass (see viewer.hpp).
    glCreateTextures(GL_TEXTURE_2D, 1, &colour_);
    glTextureStorage2D(colour_, 1, GL_RGBA8, width_, height_);
    glCreateFramebuffers(1, &fbo_);
    glNamedFramebufferTexture(fbo_, GL_COLOR_ATTACHMENT0, colour_, 0);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
      throw Error("offscreen framebuffer of " + std::to_string(width) + "x" + std::to_string(height) +
                  " incomplete");
  }
  ~EglSurface() override {
    if (fbo_) glDeleteFramebuffers(1, &fbo_);
    if (colour_) glDeleteTextures(1, &colour_);
    eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    if (context_ != EGL_NO_CONTEXT) eglDestroyContext(display_, context_);
    eglTerminate(display_);
    gladLoaderUnloadEGL();
  }
  bool should_close() override { return false; }
  void new_frame() override {
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(float(width_), float(height_));
    io.DisplayFramebufferScale = ImVec2(1, 1);
    io.DeltaTime = 1.f / 60.f;
  }
  void framebuffer_size(int* w, int* h) override {
    *w = width_;
    *h = height_;
  }
  float content_scale() override { return 1.f; }
  void bind_framebuffer() override { glBindFramebuffer(GL_FRAMEBUFFER, fbo_); }
  void present() override { glFlush(); }
  void set_vsync(bool) override {}
  std::string describe() override { return "headless EGL (" + platform_ + "), " + gl_renderer(); }

 private:
  struct Candidate {
    EGLDisplay display;
    std::string name;
  };

  // Initialised displays, best first: each EGL device (NVIDIA's driver on the GPU machine, Mesa's
  // software device elsewhere), then Mesa's surfaceless platform (which NVIDIA offers too).
  static std::vector<Candidate> candidates(std::string* failures) {
    std::vector<Candidate> out;
    EGLint major = 0, minor = 0;
    const bool enumerate = GLAD_EGL_EXT_device_enumeration || GLAD_EGL_EXT_device_base;
    if (enumerate && GLAD_EGL_EXT_platform_device) {
      EGLDeviceEXT devices[16];
      EGLint count = 0;
      if (!eglQueryDevicesEXT(16, devices, &count)) *failures += "; " + egl_error("eglQueryDevicesEXT");
      for (EGLint i = 0; i < count; ++i) {
        const std::string name = "device platform, device " + std::to_string(i);
        EGLDisplay d = eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, devices[i], nullptr);
        if (d != EGL_NO_DISPLAY && eglInitialize(d, &major, &minor))
          out.push_back({d, name});
        else
          *failures += "; " + name + ": " + egl_error("eglInitialize");
      }
    } else {
      *failures += "; no EGL device platform (EGL_EXT_device_enumeration, EGL_EXT_platform_device)";
    }
    if (GLAD_EGL_MESA_platform_surfaceless) {
      EGLDisplay d = eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
      if (d != EGL_NO_DISPLAY && eglInitialize(d, &major, &minor))
        out.push_back({d, "Mesa surfaceless platform"});
      else
        *failures += "; " + egl_error("surfaceless eglInitialize");
    }
    return out;
  }

  // Context on `display`, current with no surface; throws satlab::Error and leaves nothing behind.
  void make_context(EGLDisplay display) {
    if (!gladLoaderLoadEGL(display)) throw Error("cannot load EGL functions for the display");
    if (!eglBindAPI(EGL_OPENGL_API)) throw Error(egl_error("eglBindAPI(OpenGL)"));
    // We render into our own framebuffer object, so any OpenGL-capable config will do; some device
    // platforms offer none at all, which EGL_KHR_no_config_context allows.
    const EGLint config_attribs[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
    EGLConfig config = EGL_NO_CONFIG_KHR;
    EGLint n = 0;
    if (!eglChooseConfig(display, config_attribs, &config, 1, &n) || n < 1) {
      if (!GLAD_EGL_KHR_no_config_context) throw Error(egl_error("eglChooseConfig (OpenGL)"));
      config = EGL_NO_CONFIG_KHR;
    }
    const EGLint ctx_attribs[] = {EGL_CONTEXT_MAJOR_VERSION,
                                  4,
                                  EGL_CONTEXT_MINOR_VERSION,
                                  5,
                                  EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                  EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                                  EGL_NONE};
    EGLContext context = eglCreateContext(display, config, EGL_NO_CONTEXT, ctx_attribs);
    if (context == EGL_NO_CONTEXT) throw Error(egl_error("eglCreateContext (OpenGL 4.5 core)"));
    if (!eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context)) {
      const std::string e = egl_error("eglMakeCurrent (surfaceless)");
      eglDestroyContext(display, context);
      throw Error(e);
    }
    display_ = display;
    context_ = context;
  }

  int width_, height_;
  std::string platform_;
  EGLDisplay display_ = EGL_NO_DISPLAY;
  EGLContext context_ = EGL_NO_CONTEXT;
  GLuint fbo_ = 0, colour_ = 0;
};

}  // namespace

std::unique_ptr<Surface> open_headless(int width, int height) {
  return std::make_unique<EglSurface>(width, height);
}

}  // namespace satlab::gui
