#include "app/gui/viewer_texture.hpp"

#include <glad/gl.h>

#include <string>
#include <vector>

#include "app/gui/surface.hpp"
#include "core/error.hpp"

namespace satlab::gui {

ViewerTexture::~ViewerTexture() {
  if (read_fence_) glDeleteSync(GLsync(read_fence_));
  if (tex_) glDeleteTextures(1, &tex_);
}

void ViewerTexture::mark_read() {
  if (read_fence_) glDeleteSync(GLsync(read_fence_));
  read_fence_ = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
}

void ViewerTexture::wait_for_reads() {
  if (!read_fence_) return;
  const GLenum r = glClientWaitSync(GLsync(read_fence_), GL_SYNC_FLUSH_COMMANDS_BIT, 2'000'000'000);
  glDeleteSync(GLsync(read_fence_));
  read_fence_ = nullptr;
  if (r != GL_ALREADY_SIGNALED && r != GL_CONDITION_SATISFIED)
    throw Error("waiting for the viewer's last read of the " + std::to_string(width_) + "x" +
                std::to_string(height_) + " pixel buffer failed (glClientWaitSync returned " +
                std::to_string(r) + ")");
}

void ViewerTexture::allocate(int width, int height) {
  if (tex_ && width == width_ && height == height_) return;
  const std::string size = std::to_string(width) + "x" + std::to_string(height);
  GLint max_size = 0;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_size);
  if (width <= 0 || height <= 0 || width > max_size || height > max_size)
    throw Error("cannot display an image of " + size + ": this OpenGL takes textures up to " +
                std::to_string(max_size) + " pixels a side");
  if (tex_) glDeleteTextures(1, &tex_);
  tex_ = 0, width_ = height_ = 0;
  // Immutable storage, as cudaGraphicsGLRegisterImage requires for surface writes.
  glCreateTextures(GL_TEXTURE_2D, 1, &tex_);
  glTextureStorage2D(tex_, 1, format_ == Format::Rgba8 ? GL_RGBA8 : GL_R32F, width, height);
  glTextureParameteri(tex_, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTextureParameteri(tex_, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glTextureParameteri(tex_, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  glTextureParameteri(tex_, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  mag_filter_ = GL_LINEAR;
  check_gl("allocating a " + size + " viewer texture");
  width_ = width, height_ = height;
  ++generation_;
}

void ViewerTexture::upload(const ImageRGBA8& image) {
  if (image.empty() || format_ != Format::Rgba8) return;
  allocate(image.width, image.height);
  pixel_buffer_ = 0;
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glTextureSubImage2D(tex_, 0, 0, 0, image.width, image.height, GL_RGBA, GL_UNSIGNED_BYTE, image.data.data());
}

void ViewerTexture::upload(const ImageF& image) {
  if (image.empty() || format_ != Format::R32f) return;
  allocate(image.width, image.height);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  if (image.channels == 1) {
    glTextureSubImage2D(tex_, 0, 0, 0, image.width, image.height, GL_RED, GL_FLOAT, image.data.data());
    return;
  }
  std::vector<float> first(image.pixels());
  for (size_t i = 0; i < first.size(); ++i) first[i] = image.data[i * size_t(image.channels)];
  glTextureSubImage2D(tex_, 0, 0, 0, image.width, image.height, GL_RED, GL_FLOAT, first.data());
}

void ViewerTexture::set_magnified(bool nearest) {
  const int f = nearest ? GL_NEAREST : GL_LINEAR;
  if (!tex_ || f == mag_filter_) return;
  glTextureParameteri(tex_, GL_TEXTURE_MAG_FILTER, f);
  mag_filter_ = f;
}

bool ViewerTexture::nearest() const {
  return mag_filter_ == GL_NEAREST;
}

}  // namespace satlab::gui
