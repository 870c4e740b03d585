// Puts an RGBA8 image that lives in device memory into a GL buffer object with no per-frame map: the
// buffer's memory is a CUDA allocation (cuMemCreate, exportable) handed to GL once as a POSIX file
// descriptor (GL_EXT_memory_object_fd) and imported as buffer storage. Per frame: copy on the stream and
// wait for it; GL may then read the buffer (the viewer's shaders sample it). The caller makes sure GL is
// done reading the previous frame first (the viewer leaves a fence behind its read). Where the driver cannot
// share memory this way (Mesa, no CUDA device, another GPU drives GL) available() is false and
// fallback_reason() says why; the caller then takes TextureWriter's mapped-texture path. Needs a current GL
// context on the calling thread.
#pragma once
#include <string>

namespace satlab::gpu {

class BufferWriter {
 public:
  BufferWriter();  // checks what the GL and the driver offer; allocates nothing yet
  ~BufferWriter();
  BufferWriter(const BufferWriter&) = delete;
  BufferWriter& operator=(const BufferWriter&) = delete;

  bool available() const { return why_.empty(); }
  const std::string& fallback_reason() const { return why_; }

  // `device_rgba8`: width * height * 4 bytes, tightly packed, top row first; `stream`: cudaStream_t.
  // The shared buffer is made (again when the size changes) on first use; when that fails available()
  // turns false and write() returns false. Throws satlab::Error when a call fails after that.
  bool write(int width, int height, const void* device_rgba8, void* stream = nullptr);
  unsigned buffer() const { return buffer_; }  // GL buffer name, 0 before the first write
  // The last write: `wait_ms`, host time until the work queued on the stream before it (the pipeline's
  // kernels) had finished; `write_ms`, the copy itself (CUDA events around it, which the stream reaches
  // only after that work).
  double wait_ms = 0, write_ms = 0;

 private:
  bool allocate(size_t bytes);
  void release();
  std::string why_;
  size_t bytes_ = 0, size_ = 0;             // image bytes, allocation size (a multiple of the granularity)
  unsigned long long handle_ = 0, va_ = 0;  // CUmemGenericAllocationHandle, CUdeviceptr
  unsigned memory_ = 0, buffer_ = 0;        // GL memory object and buffer
  void* copy_start_ = nullptr;              // cudaEvent_t around the copy, made at the first write
  void* copy_end_ = nullptr;
  int device_ = 0;
};

}  // namespace satlab::gpu
