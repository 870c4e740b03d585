// CUDA-GL interop round trip on a headless EGL context (device platform, OpenGL 4.5 core): an RGBA8
// image written from device memory into a GL texture through TextureWriter reads back exactly.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "gpu/device.hpp"

#ifdef SATLAB_HAVE_INTEROP
#include <glad/egl.h>
#include <glad/gl.h>

#include <cuda_runtime.h>

#include "gpu/interop/texture_writer.hpp"

namespace {

// A surfaceless OpenGL 4.5 core context on the first EGL device that gives one; "" or the reason.
std::string make_egl_context() {
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
    const EGLint cfg_attr[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
    EGLConfig cfg;
    EGLint ncfg = 0;
    if (!eglChooseConfig(dpy, cfg_attr, &cfg, 1, &ncfg) || ncfg == 0) continue;
    const EGLint ctx_attr[] = {EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, 5,
                               EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
    EGLContext ctx = eglCreateContext(dpy, cfg, EGL_NO_CONTEXT, ctx_attr);
    if (ctx == EGL_NO_CONTEXT || !eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) continue;
    if (!gladLoaderLoadGL()) return "cannot load OpenGL functions";
    return "";
  }
  return "no EGL device gave an OpenGL 4.5 core context";
}

TEST(Interop, TextureWrittenFromDeviceMemoryReadsBackExactly) {
  if (!satlab::gpu::probe().available) GTEST_SKIP() << satlab::gpu::probe().reason;
  const std::string why = make_egl_context();
  if (!why.empty()) GTEST_SKIP() << why;
  std::printf("GL renderer: %s\n", reinterpret_cast<const char*>(glGetString(GL_RENDERER)));
  for (auto [w, h] : {std::pair{257, 131}, std::pair{1920, 1080}}) {
    std::vector<unsigned char> img(size_t(w) * h * 4);
    std::mt19937 rng(std::random_device{}());
    for (auto& b : img) b = static_cast<unsigned char>(rng());
    void* d = nullptr;
    ASSERT_EQ(cudaMalloc(&d, img.size()), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(d, img.data(), img.size(), cudaMemcpyHostToDevice), cudaSuccess);
    GLuint tex = 0;
    glCreateTextures(GL_TEXTURE_2D, 1, &tex);
    glTextureStorage2D(tex, 1, GL_RGBA8, w, h);
    satlab::gpu::TextureWriter writer;
    writer.write(tex, w, h, d);
    writer.write(tex, w, h, d);  // second frame: registered once, mapped again
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_TRUE(writer.interop()) << writer.fallback_reason();
    std::vector<unsigned char> back(img.size(), 0xAB);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glGetTextureImage(tex, 0, GL_RGBA, GL_UNSIGNED_BYTE, GLsizei(back.size()), back.data());
    EXPECT_EQ(glGetError(), GLenum(GL_NO_ERROR));
    EXPECT_TRUE(back == img) << w << "x" << h;
    std::printf("%dx%d: map %.3f ms, write %.3f ms, unmap %.3f ms (host-side)\n", w, h, writer.map_ms,
                writer.write_ms, writer.unmap_ms);
    glDeleteTextures(1, &tex);
    cudaFree(d);
  }
}

}  // namespace
#else
TEST(Interop, TextureWrittenFromDeviceMemoryReadsBackExactly) {
  GTEST_SKIP() << "built without CUDA-GL interop (needs CUDA and the GUI)";
}
#endif
