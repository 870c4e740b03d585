// Writes an RGBA8 image that lives in device memory into a GL texture (GL_RGBA8, same size): the
// texture is registered once (again when it or its size changes) with cudaGraphicsGLRegisterImage
// (SurfaceLoadStore), mapped per frame, written by a kernel through a surface object, unmapped. Where
// registration fails (no interop on this GL: Mesa, WSL, no CUDA device) it falls back to a device-to-
// host copy and glTexSubImage2D, and says why. Needs a current GL context on the calling thread.
#pragma once
#include <string>

namespace satlab::gpu {

class TextureWriter {
 public:
  TextureWriter() = default;
  ~TextureWriter();
  TextureWriter(const TextureWriter&) = delete;
  TextureWriter& operator=(const TextureWriter&) = delete;

  // `device_rgba8`: width * height * 4 bytes, tightly packed, top row first. `stream`: cudaStream_t.
  // Throws satlab::Error when a CUDA or GL call fails after registration succeeded.
  void write(unsigned texture, int width, int height, const void* device_rgba8, void* stream = nullptr);

  bool interop() const { return resource_ != nullptr; }
  // Empty while interop works; otherwise why the host-copy fallback is used (for the UI).
  const std::string& fallback_reason() const { return why_; }
  // Milliseconds of the last write's map, write and unmap (host-side, after the stream completed).
  double map_ms = 0, write_ms = 0, unmap_ms = 0;

 private:
  void release();
  void* resource_ = nullptr;  // cudaGraphicsResource_t
  unsigned long long surface_ = 0;  // cudaSurfaceObject_t of the last write
  unsigned texture_ = 0;
  int width_ = 0, height_ = 0;
  bool tried_ = false;
  std::string why_;
};

}  // namespace satlab::gpu
