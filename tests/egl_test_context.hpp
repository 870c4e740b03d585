// For tests that draw: a surfaceless OpenGL 4.5 core context on the first EGL device that gives one
// (NVIDIA's on the GPU machine, Mesa's software device in CI), made current on this thread.
#pragma once
#include <glad/egl.h>
#include <glad/gl.h>

#include <string>

namespace satlab::test {

// "" when a context is current, else why not (for GTEST_SKIP).
inline std::string make_egl_context() {
  if (!gladLoaderLoadEGL(EGL_NO_DISPLAY)) return "no EGL library";
  if (!eglQueryDevicesEXT || !eglGetPlatformDisplayEXT) return "EGL lacks device enumeration";
  EGLDeviceEXT devices[8];
  EGLint n = 0;
  if (!eglQueryDevicesEXT(8, devices, &n) || n == 0) return "no EGL device";
  for (EGLint i = 0; i < n; ++i) {
    EGLDisplay dpy = eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, devices[i], nullptr);
    EGLint major = 0, minor = 0;
    if (dpy == EGL_NO_DISPLAY || !eglInitialize(dpy, &major, &minor)) continue;
    gladLoaderLoadEGL(dpy);
    eglBindAPI(EGL_OPENGL_API);
    const EGLint cfg_attr[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
                               EGL_NONE};
    EGLConfig cfg;
    EGLint ncfg = 0;
    if (!eglChooseConfig(dpy, cfg_attr, &cfg, 1, &ncfg) || ncfg == 0) continue;
    const EGLint ctx_attr[] = {EGL_CONTEXT_MAJOR_VERSION,
                               4,
                               EGL_CONTEXT_MINOR_VERSION,
                               5,
                               EGL_CONTEXT_OPENGL_PROFILE_MASK,
                               EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                               EGL_NONE};
    EGLContext ctx = eglCreateContext(dpy, cfg, EGL_NO_CONTEXT, ctx_attr);
    if (ctx == EGL_NO_CONTEXT || !eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) continue;
    if (!gladLoaderLoadGL()) return "cannot load OpenGL functions";
    return "";
  }
  return "no EGL device gave an OpenGL 4.5 core context";
}

}  // namespace satlab::test
