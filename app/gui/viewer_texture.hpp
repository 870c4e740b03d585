// The GL textures the viewer samples, owned in one place. The host path uploads images with
// glTextureSubImage2D. An external writer (CUDA-GL interop in gpu/interop/) instead registers texture()
// and writes into it on the device: it must register again whenever generation() changes, because the
// texture is recreated when the image size or format changes. Or the writer puts the pixels into a GL
// buffer of its own (RGBA8, packed, top row first) and names it with set_pixel_buffer(): the viewer's
// shaders then read that buffer instead of the texture, until the next upload.
#pragma once
#include <functional>

#include "core/image.hpp"

namespace satlab::gui {

class ViewerTexture {
 public:
  enum class Format { Rgba8, R32f };
  explicit ViewerTexture(Format format) : format_(format) {}
  ~ViewerTexture();
  ViewerTexture(const ViewerTexture&) = delete;
  ViewerTexture& operator=(const ViewerTexture&) = delete;

  // Makes sure storage of this size exists (keeps it when the size matches).
  void allocate(int width, int height);
  void upload(const ImageRGBA8& image);  // Rgba8 only
  void upload(const ImageF& image);      // R32f only, first channel
  // Nearest sampling when magnified (crisp pixels when zoomed in), linear otherwise.
  void set_magnified(bool nearest);
  bool nearest() const;
  // The image's pixels are in this GL buffer (Rgba8 only; 0: in the texture). Uploads reset it.
  void set_pixel_buffer(unsigned buffer) { pixel_buffer_ = buffer; }
  unsigned pixel_buffer() const { return pixel_buffer_; }
  // The viewer marks each pass that read the pixel buffer with a GL fence right behind it; a writer
  // waits for it before overwriting the buffer (no GL command of its own, so the GPU does not switch
  // to GL and back just for that). Throws satlab::Error when the wait fails.
  void mark_read();
  void wait_for_reads();

  // The part of the image the texture holds, in image uv (x0, y0, x1, y1): all of it, unless it holds a
  // preview of a region (core/preview.hpp). The viewer maps the image's uv into it.
  void set_coverage(float u0, float v0, float u1, float v1) {
    cover_[0] = u0, cover_[1] = v0, cover_[2] = u1, cover_[3] = v1;
  }
  const float* coverage() const { return cover_; }

  unsigned texture() const { return tex_; }  // 0 until allocated
  int width() const { return width_; }
  int height() const { return height_; }
  unsigned generation() const { return generation_; }  // bumps on every reallocation

 private:
  Format format_;
  unsigned tex_ = 0, generation_ = 0, pixel_buffer_ = 0;
  void* read_fence_ = nullptr;  // GLsync
  int width_ = 0, height_ = 0;
  int mag_filter_ = 0;
  float cover_[4] = {0.f, 0.f, 1.f, 1.f};
};

// The hook for a device-side writer of the result texture: given the texture allocated at the image
// size, write the pipeline's result into it and return true; false falls back to the host upload
// (e.g. the CPU backend, or a GL without interop). Installed in gui.cpp next to the Viewer, e.g.
//   viewer.external_writer = [&](ViewerTexture& t) { return interop.write(session.pipeline(), t); };
using ExternalWriter = std::function<bool(ViewerTexture& result_texture)>;

}  // namespace satlab::gui
