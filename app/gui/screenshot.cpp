#include <glad/gl.h>

#include <algorithm>

#include "app/gui/frame.hpp"
#include "app/io/image_io.hpp"

namespace satlab::gui {

void save_framebuffer_png(const std::string& path, int width, int height) {
  ImageRGBA8 shot(width, height), flipped(width, height);
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, shot.data.data());
  for (int y = 0; y < height; ++y)
    std::copy(shot.px(0, height - 1 - y), shot.px(0, height - 1 - y) + size_t(width) * 4, flipped.px(0, y));
  // The window's alpha is whatever blending left there; a screenshot is opaque.
  for (size_t i = 3; i < flipped.data.size(); i += 4) flipped.data[i] = 255;
  io::save_png(path, flipped);
}

}  // namespace satlab::gui
