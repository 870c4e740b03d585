// nppiIntegral_8u32s_C1R_Ctx writes a (W+1) x (H+1) table with a zero first row and column; the variant
// lets it fill a scratch table and copies the inclusive part into the output (cudaMemcpy2DAsync, 8 B
// per pixel more, about 5% of NPP's own time at 8192^2). Bytes model: 5 B per pixel, like every SAT.
#include "gpu/npp_baseline.hpp"

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <string>

#include "core/error.hpp"
#include "gpu/sat/sat.hpp"

namespace satlab::gpu {
namespace {

// The layout of NppStreamContext (nppdefs.h, CUDA 11 and later).
struct NppStreamContext {
  cudaStream_t hStream;
  int nCudaDeviceId, nMultiProcessorCount, nMaxThreadsPerMultiProcessor, nMaxThreadsPerBlock;
  size_t nSharedMemPerBlock;
  int nCudaDevAttrComputeCapabilityMajor, nCudaDevAttrComputeCapabilityMinor;
  unsigned int nStreamFlags;
  int nReserved0;
};
struct NppiSize {
  int width, height;
};
using IntegralFn = int (*)(const unsigned char*, int, int*, int, NppiSize, int, NppStreamContext);

struct Npp {
  IntegralFn integral = nullptr;
  std::string why;
};

const Npp& npp() {
  static const Npp lib = [] {
    Npp n;
    const char* core[] = {"libnppc.so", "libnppc.so.13", "libnppc.so.12", "/usr/local/cuda/lib64/libnppc.so"};
    const char* ist[] = {"libnppist.so", "libnppist.so.13", "libnppist.so.12", "/usr/local/cuda/lib64/libnppist.so"};
    void* hc = nullptr;
    for (const char* s : core)
      if ((hc = dlopen(s, RTLD_NOW | RTLD_GLOBAL))) break;
    void* hi = nullptr;
    for (const char* s : ist)
      if ((hi = dlopen(s, RTLD_NOW | RTLD_GLOBAL))) break;
    if (!hc || !hi) {
      n.why = "NPP libraries (libnppc, libnppist) not found";
      return n;
    }
    n.integral = reinterpret_cast<IntegralFn>(dlsym(hi, "nppiIntegral_8u32s_C1R_Ctx"));
    if (!n.integral) n.why = "libnppist has no nppiIntegral_8u32s_C1R_Ctx";
    return n;
  }();
  return lib;
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw Error(std::string("npp_integral: ") + what + ": " + cudaGetErrorString(e));
}

void npp_integral(const SatArgs& a) {
  if (!npp().integral) throw Error(npp().why);
  if (a.dtype != DType::U8 || a.channels != 1) throw Error("npp_integral takes 8-bit single-channel input");
  const cudaStream_t s = cudaStream_t(a.stream);
  const size_t pitch = (size_t(a.width) + 1) * 4;
  void* table = nullptr;
  check(cudaMallocAsync(&table, pitch * (size_t(a.height) + 1), s), "scratch allocation");
  NppStreamContext ctx{};
  ctx.hStream = s;
  int dev = 0;
  cudaGetDevice(&dev);
  cudaDeviceProp p{};
  cudaGetDeviceProperties(&p, dev);  // cached by the runtime after the first call
  ctx.nCudaDeviceId = dev, ctx.nMultiProcessorCount = p.multiProcessorCount;
  ctx.nMaxThreadsPerMultiProcessor = p.maxThreadsPerMultiProcessor, ctx.nMaxThreadsPerBlock = p.maxThreadsPerBlock;
  ctx.nSharedMemPerBlock = p.sharedMemPerBlock;
  ctx.nCudaDevAttrComputeCapabilityMajor = p.major, ctx.nCudaDevAttrComputeCapabilityMinor = p.minor;
  cudaStreamGetFlags(s, &ctx.nStreamFlags);
  const int status = npp().integral(static_cast<const unsigned char*>(a.in), a.width, static_cast<int*>(table),
                                    int(pitch), NppiSize{a.width, a.height}, 0, ctx);
  if (status != 0) {
    cudaFreeAsync(table, s);
    throw Error("nppiIntegral_8u32s_C1R_Ctx returned status " + std::to_string(status));
  }
  check(cudaMemcpy2DAsync(a.out, size_t(a.width) * 4, static_cast<char*>(table) + pitch + 4, pitch,
                          size_t(a.width) * 4, size_t(a.height), cudaMemcpyDeviceToDevice, s),
        "copy out of the NPP table");
  check(cudaFreeAsync(table, s), "scratch free");
}

}  // namespace

Variant npp_integral_variant() {
  Variant v;
  v.name = "npp_integral";
  v.family = Family::Sat;
  v.label = "NPP nppiIntegral (baseline)";
  v.source = "NVIDIA NPP nppiIntegral_8u32s_C1R_Ctx";
  v.dtypes = {DType::U8};
  v.bytes = sat_min_bytes;
  v.refuses = [](size_t n, DType t) -> std::string {
    if (t != DType::U8) return "8-bit single-channel only";
    if (!npp().integral) return npp().why;
    return n > (size_t(1) << 31) / 4 ? "NPP's int32 pitch limits the image size" : "";
  };
  v.sat = npp_integral;
  return v;
}

}  // namespace satlab::gpu
