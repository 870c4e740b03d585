// CUDA-GL interop round trip on a headless EGL context (device platform, OpenGL 4.5 core): an RGBA8
// image written from device memory into a GL texture through TextureWriter reads back exactly; one
// written into the shared buffer (BufferWriter) and drawn by the viewer, through its compute pass and its
// fragment pass, is on screen pixel for pixel, frame after frame.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "gpu/device.hpp"
#include "gpu_skip.hpp"

#ifdef SATLAB_HAVE_INTEROP
#include <cuda_runtime.h>
#include <glad/egl.h>
#include <glad/gl.h>

#include "app/gui/viewer.hpp"
#include "gpu/interop/buffer_writer.hpp"
#include "gpu/interop/texture_writer.hpp"
#include "tests/egl_test_context.hpp"

namespace {

TEST(Interop, TextureWrittenFromDeviceMemoryReadsBackExactly) {
  SKIP_WITHOUT_GPU();
  SKIP_WITHOUT_EGL();
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

std::vector<unsigned char> random_image(int w, int h, unsigned seed) {
  std::vector<unsigned char> img(size_t(w) * h * 4);
  std::mt19937 rng(seed);
  for (auto& b : img) b = static_cast<unsigned char>(rng());
  return img;
}

// The framebuffer as the image's rows (GL reads bottom-up, the image is top row first).
std::vector<unsigned char> read_framebuffer_top_down(int w, int h) {
  std::vector<unsigned char> fb(size_t(w) * h * 4, 0xAB), out(fb.size());
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, fb.data());
  for (int y = 0; y < h; ++y)
    std::copy_n(&fb[size_t(h - 1 - y) * w * 4], size_t(w) * 4, &out[size_t(y) * w * 4]);
  return out;
}

TEST(Interop, SharedBufferDrawnByTheViewerIsOnScreenExactlyEveryFrame) {
  SKIP_WITHOUT_GPU();
  SKIP_WITHOUT_EGL();
  satlab::gpu::BufferWriter writer;
  if (!writer.available())
    GTEST_SKIP() << "no shared buffer on this GL and driver: " << writer.fallback_reason();
  satlab::gui::Viewer viewer;
  satlab::gui::AppState
      s;  // the result view, no compare, zoom 1: a w x h image fills a w x h framebuffer 1:1
  for (auto [w, h] : {std::pair{257, 131}, std::pair{1920, 1080}}) {
    void* d = nullptr;
    ASSERT_EQ(cudaMalloc(&d, size_t(w) * h * 4), cudaSuccess);
    // Two framebuffers: a texture (the viewer's compute pass) and a renderbuffer (its fragment pass).
    GLuint tex = 0, rb = 0, fbo[2] = {};
    glCreateTextures(GL_TEXTURE_2D, 1, &tex);
    glTextureStorage2D(tex, 1, GL_RGBA8, w, h);
    glCreateRenderbuffers(1, &rb);
    glNamedRenderbufferStorage(rb, GL_RGBA8, w, h);
    glCreateFramebuffers(2, fbo);
    glNamedFramebufferTexture(fbo[0], GL_COLOR_ATTACHMENT0, tex, 0);
    glNamedFramebufferRenderbuffer(fbo[1], GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb);
    viewer.set_image_size(w, h);
    viewer.reset_view();
    satlab::gui::ViewerTexture& t = viewer.texture(satlab::gui::View::Result);
    t.allocate(w, h);
    for (int frame = 0; frame < 3; ++frame) {
      const std::vector<unsigned char> img = random_image(w, h, 1234u + unsigned(frame));
      ASSERT_EQ(cudaMemcpy(d, img.data(), img.size(), cudaMemcpyHostToDevice), cudaSuccess);
      t.wait_for_reads();
      ASSERT_TRUE(writer.write(w, h, d)) << writer.fallback_reason();
      t.set_pixel_buffer(writer.buffer());
      for (int pass = 0; pass < 2; ++pass) {
        glBindFramebuffer(GL_FRAMEBUFFER, fbo[pass]);
        viewer.draw(s, satlab::gui::panes(s, float(w)), float(h), 1.f, w, h);
        EXPECT_STREQ(viewer.pass_name(),
                     pass == 0 ? "compute pass into the framebuffer texture" : "fragment pass");
        const std::vector<unsigned char> back = read_framebuffer_top_down(w, h);
        EXPECT_EQ(glGetError(), GLenum(GL_NO_ERROR));
        size_t differ = 0;
        for (size_t i = 0; i < img.size(); i += 4)  // the viewer draws colour views opaque
          differ += back[i] != img[i] || back[i + 1] != img[i + 1] || back[i + 2] != img[i + 2] ||
                    back[i + 3] != 255;
        EXPECT_EQ(differ, 0u) << w << "x" << h << ", frame " << frame << ", " << viewer.pass_name();
      }
    }
    std::printf("%dx%d: shared-buffer write %.3f ms (host: GL wait, copy, stream wait)\n", w, h,
                writer.write_ms);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glDeleteFramebuffers(2, fbo);
    glDeleteRenderbuffers(1, &rb);
    glDeleteTextures(1, &tex);
    cudaFree(d);
  }
}

}  // namespace
#else
TEST(Interop, TextureWrittenFromDeviceMemoryReadsBackExactly) {
  GTEST_SKIP() << "built without CUDA-GL interop (needs CUDA and the GUI)";
}
TEST(Interop, SharedBufferDrawnByTheViewerIsOnScreenExactlyEveryFrame) {
  GTEST_SKIP() << "built without CUDA-GL interop (needs CUDA and the GUI)";
}
#endif
