// The viewer paints the same picture through its compute pass (framebuffer texture, headless) and its
// fragment pass (any other framebuffer), and a colour view read from a pixel buffer looks like the same
// image read from the texture. Runs wherever EGL gives an OpenGL 4.5 core context (Mesa's software
// device in CI, the GPU machine's driver); skips with the reason elsewhere.
#include <gtest/gtest.h>

#if __has_include(<glad/egl.h>)  // built with the front end
#include <algorithm>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "app/gui/viewer.hpp"
#include "tests/egl_test_context.hpp"

namespace {

using satlab::gui::AppState;
using satlab::gui::View;
using satlab::gui::Viewer;

// A framebuffer of w x h on a texture (the viewer's compute pass) or a renderbuffer (its fragment pass).
struct Target {
  Target(int w, int h, bool texture) : w(w), h(h) {
    glCreateFramebuffers(1, &fbo);
    if (texture) {
      glCreateTextures(GL_TEXTURE_2D, 1, &colour);
      glTextureStorage2D(colour, 1, GL_RGBA8, w, h);
      glNamedFramebufferTexture(fbo, GL_COLOR_ATTACHMENT0, colour, 0);
    } else {
      glCreateRenderbuffers(1, &colour);
      glNamedRenderbufferStorage(colour, GL_RGBA8, w, h);
      glNamedFramebufferRenderbuffer(fbo, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, colour);
    }
    is_texture = texture;
  }
  ~Target() {
    glDeleteFramebuffers(1, &fbo);
    if (is_texture)
      glDeleteTextures(1, &colour);
    else
      glDeleteRenderbuffers(1, &colour);
  }
  std::vector<unsigned char> draw(Viewer& viewer, const AppState& s) const {
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    viewer.draw(s, satlab::gui::panes(s, float(w)), float(h), 1.f, w, h);
    std::vector<unsigned char> px(size_t(w) * h * 4, 0xAB);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, px.data());
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    return px;
  }
  int w, h;
  unsigned fbo = 0, colour = 0;
  bool is_texture = false;
};

// The largest difference of any channel of any pixel.
int largest_difference(const std::vector<unsigned char>& a, const std::vector<unsigned char>& b) {
  int d = 0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(int(a[i]) - int(b[i])));
  return d;
}

TEST(ViewerPass, ComputeAndFragmentPassesPaintTheSameViewsAndTheBufferMatchesTheTexture) {
  SKIP_WITHOUT_EGL();
  Viewer viewer;
  AppState s;
  const int iw = 257, ih = 131;  // odd, and letterboxed into the 300 x 200 framebuffer (scaled, bilinear)
  std::mt19937 rng(7);
  satlab::ImageRGBA8 image(iw, ih);
  for (auto& b : image.data) b = static_cast<uint8_t>(rng());
  satlab::ImageF scalar(iw, ih);
  for (auto& v : scalar.data) v = std::uniform_real_distribution<float>(-1.f, 1.f)(rng);
  viewer.set_image_size(iw, ih);
  viewer.texture(View::Result).upload(image);
  for (View v : {View::Depth, View::Coc, View::Diff}) viewer.texture(v).upload(scalar);
  const Target compute(300, 200, true), fragment(300, 200, false);

  // Every view but the SAT's (its contour lines' width is estimated differently without derivatives).
  for (View v : {View::Result, View::Depth, View::Coc, View::Diff}) {
    s.view = v;
    const auto a = compute.draw(viewer, s), b = fragment.draw(viewer, s);
    EXPECT_STREQ(viewer.pass_name(), "fragment pass");
    EXPECT_LE(largest_difference(a, b), 1) << "view " << int(v);
    // The background outside the image is painted too (nothing is left from before).
    EXPECT_EQ(int(a[0]), int(b[0]));
  }
  EXPECT_EQ(glGetError(), GLenum(GL_NO_ERROR));

  // The result from a pixel buffer (bilinear and, zoomed in, nearest in the shader) vs the texture.
  s.view = View::Result;
  GLuint buffer = 0;
  glCreateBuffers(1, &buffer);
  glNamedBufferStorage(buffer, GLsizeiptr(image.data.size()), image.data.data(), 0);
  for (float zoom : {1.f, 5.f}) {
    viewer.reset_view();
    viewer.zoom_at(zoom, 150.f, 100.f);
    auto& t = viewer.texture(View::Result);
    t.set_pixel_buffer(0);
    const auto from_texture = fragment.draw(viewer, s);
    t.set_pixel_buffer(buffer);
    const auto buffer_compute = compute.draw(viewer, s), buffer_fragment = fragment.draw(viewer, s);
    t.wait_for_reads();
    EXPECT_LE(largest_difference(buffer_compute, buffer_fragment), 1) << "zoom " << zoom;
    // Bilinear weights: the texture unit's fixed point vs the shader's float, a level or two apart.
    size_t far = 0;
    for (size_t i = 0; i < from_texture.size(); ++i)
      far += std::abs(int(from_texture[i]) - int(buffer_compute[i])) > 2;
    EXPECT_EQ(far, 0u) << "zoom " << zoom << ": buffer and texture disagree by more than 2 levels";
  }
  glDeleteBuffers(1, &buffer);
  EXPECT_EQ(glGetError(), GLenum(GL_NO_ERROR));
}

}  // namespace
#else
TEST(ViewerPass, ComputeAndFragmentPassesPaintTheSameViewsAndTheBufferMatchesTheTexture) {
  GTEST_SKIP() << "built without the front end (SATLAB_WITH_GUI=OFF)";
}
#endif
