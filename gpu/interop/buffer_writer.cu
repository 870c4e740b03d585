// A GL buffer on CUDA memory (see buffer_writer.hpp). Why: on the H100 every cudaGraphicsMapResources
// costs about 0.32 ms of GPU time (measured for textures and buffers alike), which a shared allocation
// never pays. The driver API calls are looked up through the runtime, so the program still starts where
// there is no CUDA driver. Bytes: 4 B read + 4 B written per pixel (the copy).
#include <cuda.h>
#include <cuda_runtime.h>
#include <glad/gl.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <string>

#include "gpu/check.hpp"
#include "gpu/interop/buffer_writer.hpp"

namespace satlab::gpu {
namespace {

// The virtual memory management calls, from the driver the runtime loaded.
struct Vmm {
  decltype(&cuMemGetAllocationGranularity) granularity = nullptr;
  decltype(&cuMemCreate) create = nullptr;
  decltype(&cuMemRelease) release = nullptr;
  decltype(&cuMemAddressReserve) reserve = nullptr;
  decltype(&cuMemAddressFree) free = nullptr;
  decltype(&cuMemMap) map = nullptr;
  decltype(&cuMemUnmap) unmap = nullptr;
  decltype(&cuMemSetAccess) set_access = nullptr;
  decltype(&cuMemExportToShareableHandle) export_handle = nullptr;
  std::string missing;  // the first call the driver lacks

  Vmm() {
    auto get = [this](const char* name, auto& fn) {
      void* p = nullptr;
      cudaDriverEntryPointQueryResult found{};
      if (cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &found) != cudaSuccess ||
          found != cudaDriverEntryPointSuccess || !p) {
        cudaGetLastError();
        if (missing.empty()) missing = name;
        return;
      }
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
    };
    get("cuMemGetAllocationGranularity", granularity);
    get("cuMemCreate", create);
    get("cuMemRelease", release);
    get("cuMemAddressReserve", reserve);
    get("cuMemAddressFree", free);
    get("cuMemMap", map);
    get("cuMemUnmap", unmap);
    get("cuMemSetAccess", set_access);
    get("cuMemExportToShareableHandle", export_handle);
  }
};

const Vmm& vmm() {
  static const Vmm v;
  return v;
}

CUmemAllocationProp exportable_on(int device) {
  CUmemAllocationProp p{};
  p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  p.location.id = device;
  p.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  return p;
}

std::string cu_error(const char* call, CUresult r) {
  return std::string(call) + " failed (CUresult " + std::to_string(int(r)) + ")";
}

// Whether the GL context runs on `device` (GL_EXT_memory_object lists its devices' UUIDs).
bool gl_runs_on(int device) {
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, device) != cudaSuccess) return false;
  GLint n = 0;
  glGetIntegerv(GL_NUM_DEVICE_UUIDS_EXT, &n);
  for (GLint i = 0; i < n; ++i) {
    GLubyte uuid[GL_UUID_SIZE_EXT] = {};
    glGetUnsignedBytei_vEXT(GL_DEVICE_UUID_EXT, GLuint(i), uuid);
    if (std::memcmp(uuid, prop.uuid.bytes, sizeof(uuid)) == 0) return true;
  }
  return false;
}

}  // namespace

BufferWriter::BufferWriter() {
  // Whether the device exports memory as a file descriptor shows at the first allocation (cuMemCreate).
  if (!GLAD_GL_EXT_memory_object || !GLAD_GL_EXT_memory_object_fd)
    why_ = "this OpenGL cannot import memory (no GL_EXT_memory_object_fd)";
  else if (cudaGetDevice(&device_) != cudaSuccess)
    why_ = "no CUDA device";
  else if (!vmm().missing.empty())
    why_ = "the CUDA driver lacks " + vmm().missing;
  else if (!gl_runs_on(device_))
    why_ = "OpenGL runs on another device than CUDA";
  cudaGetLastError();
  while (glGetError() != GL_NO_ERROR) {
  }
}

BufferWriter::~BufferWriter() {
  release();
  if (copy_start_) cudaEventDestroy(cudaEvent_t(copy_start_));
  if (copy_end_) cudaEventDestroy(cudaEvent_t(copy_end_));
}

void BufferWriter::release() {
  if (buffer_) glDeleteBuffers(1, &buffer_);
  if (memory_) glDeleteMemoryObjectsEXT(1, &memory_);
  buffer_ = memory_ = 0;
  if (va_) {
    cudaDeviceSynchronize();  // no copy may still be writing
    vmm().unmap(CUdeviceptr(va_), size_);
    vmm().free(CUdeviceptr(va_), size_);
  }
  if (handle_) vmm().release(CUmemGenericAllocationHandle(handle_));
  va_ = handle_ = 0;
  bytes_ = size_ = 0;
}

// The exportable allocation, mapped for this device, handed to GL as a buffer. False (with why_) when
// any step is refused; nothing is left behind then.
bool BufferWriter::allocate(size_t bytes) {
  release();
  const Vmm& v = vmm();
  const CUmemAllocationProp prop = exportable_on(device_);
  size_t granularity = 0;
  CUresult r = v.granularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED);
  if (r != CUDA_SUCCESS) return why_ = cu_error("cuMemGetAllocationGranularity", r), false;
  const size_t size = (bytes + granularity - 1) / granularity * granularity;
  CUmemGenericAllocationHandle handle = 0;
  if ((r = v.create(&handle, size, &prop, 0)) != CUDA_SUCCESS)
    return why_ = cu_error("cuMemCreate", r) + " for " + std::to_string(size) + " bytes", false;
  handle_ = handle, size_ = size;
  CUdeviceptr va = 0;
  if ((r = v.reserve(&va, size, 0, 0, 0)) != CUDA_SUCCESS)
    return release(), why_ = cu_error("cuMemAddressReserve", r), false;
  if ((r = v.map(va, size, 0, handle, 0)) != CUDA_SUCCESS) {
    v.free(va, size);
    return release(), why_ = cu_error("cuMemMap", r), false;
  }
  va_ = va;
  CUmemAccessDesc access{};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  if ((r = v.set_access(va, size, &access, 1)) != CUDA_SUCCESS)
    return release(), why_ = cu_error("cuMemSetAccess", r), false;
  int fd = -1;
  if ((r = v.export_handle(&fd, handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0)) != CUDA_SUCCESS)
    return release(), why_ = cu_error("cuMemExportToShareableHandle", r), false;
  while (glGetError() != GL_NO_ERROR) {
  }
  glCreateMemoryObjectsEXT(1, &memory_);
  glImportMemoryFdEXT(memory_, size, GL_HANDLE_TYPE_OPAQUE_FD_EXT, fd);  // GL owns the descriptor now
  if (const GLenum e = glGetError(); e != GL_NO_ERROR) {
    close(fd);  // a refused import leaves it with us
    return release(), why_ = "glImportMemoryFdEXT refused CUDA's memory (GL error " + std::to_string(e) + ")",
                      false;
  }
  glCreateBuffers(1, &buffer_);
  glNamedBufferStorageMemEXT(buffer_, GLsizeiptr(bytes), memory_, 0);
  if (const GLenum e = glGetError(); e != GL_NO_ERROR)
    return release(), why_ = "glNamedBufferStorageMemEXT failed (GL error " + std::to_string(e) + ")", false;
  bytes_ = bytes;
  return true;
}

bool BufferWriter::write(int w, int h, const void* src, void* stream) {
  if (!available()) return false;
  const size_t bytes = size_t(w) * size_t(h) * 4;
  if (bytes != bytes_ && !allocate(bytes)) return false;
  const std::string size = std::to_string(w) + "x" + std::to_string(h) + " shared buffer";
  for (void** e : {&copy_start_, &copy_end_})
    if (!*e) SATLAB_CUDA(cudaEventCreate(reinterpret_cast<cudaEvent_t*>(e)), size);
  const cudaEvent_t start = cudaEvent_t(copy_start_), end = cudaEvent_t(copy_end_);
  const auto t0 = std::chrono::steady_clock::now();
  const cudaStream_t s = cudaStream_t(stream);
  SATLAB_CUDA(cudaEventRecord(start, s), size);
  SATLAB_CUDA(cudaMemcpyAsync(reinterpret_cast<void*>(va_), src, bytes, cudaMemcpyDeviceToDevice, s), size);
  SATLAB_CUDA(cudaEventRecord(end, s), size);
  SATLAB_CUDA(cudaEventSynchronize(start), size);  // the work before the copy is done: the rest is the copy
  wait_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  SATLAB_CUDA(cudaStreamSynchronize(s), size);  // GL reads it next
  float copy_ms = 0;
  SATLAB_CUDA(cudaEventElapsedTime(&copy_ms, start, end), size);
  write_ms = copy_ms;
  return true;
}

}  // namespace satlab::gpu
