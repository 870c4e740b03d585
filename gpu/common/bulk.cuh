// Hopper's bulk asynchronous copies and the mbarriers that track them (PTX ISA 8.0, sm_90: cp.async.bulk,
// mbarrier.expect_tx / try_wait.parity; the CUDA programming guide's "Asynchronous Data Copies using the
// Tensor Memory Accelerator"; CUTLASS's SM90 pipelines use the same instructions). One thread hands the copy
// engine a contiguous block of global memory (a multiple of 16 bytes, 16-byte aligned at both ends) to
// land in shared memory; the bytes arriving complete a transaction count on an mbarrier, on which the
// block's threads wait by phase parity. Loads in flight cost no registers, so one block keeps several
// tiles in flight. The reverse copy (shared to global) is tracked by bulk groups: wait_read<N> returns once
// every group but the newest N has finished reading its shared memory, so that buffer may be refilled.
//
// Used by the scan and reduction variants that stream through a ring of shared-memory stages
// (gpu/scan/lookback_bulk.cu, gpu/reduce/bulk_ring.cu). Compiled for sm_90 and later only: on older
// architectures every function is empty and bulk::kAvailable is false; the variants refuse such a device
// (bulk::device_supported on the host).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

namespace satlab::gpu::bulk {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define SATLAB_BULK_SM90 1
#else
#define SATLAB_BULK_SM90 0
#endif

__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// One thread: an mbarrier expecting `count` arrivals. Then fence_init() and a block barrier before use.
__device__ __forceinline__ void init(uint64_t* bar, unsigned count) {
#if SATLAB_BULK_SM90
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(count) : "memory");
#endif
}

// Makes initialised mbarriers visible to the async proxy (the copy engine).
__device__ __forceinline__ void fence_init() {
#if SATLAB_BULK_SM90
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
}

// The issuing thread's arrival, announcing `bytes` of transactions for the barrier's current phase.
__device__ __forceinline__ void arrive_expect_tx(uint64_t* bar, unsigned bytes) {
#if SATLAB_BULK_SM90
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)), "r"(bytes)
               : "memory");
#endif
}

// Global -> shared, `bytes` (a multiple of 16; both addresses 16-byte aligned), completing on `bar`.
__device__ __forceinline__ void load(void* dst_smem, const void* src, unsigned bytes, uint64_t* bar) {
#if SATLAB_BULK_SM90
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
          smem_addr(dst_smem)),
      "l"(src), "r"(bytes), "r"(smem_addr(bar))
      : "memory");
#endif
}

// Waits until the barrier's phase of parity `parity` has completed (every arrival and every byte).
__device__ __forceinline__ void wait(uint64_t* bar, unsigned parity) {
#if SATLAB_BULK_SM90
  asm volatile(
      "{\n"
      ".reg .pred done;\n"
      "WAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra WAIT_%=;\n"
      "}" ::"r"(smem_addr(bar)),
      "r"(parity)
      : "memory");
#endif
}

// Every thread that wrote shared memory with ordinary stores calls this before the block barrier after
// which one thread hands that memory to a bulk store (generic-proxy writes made visible to the async proxy).
__device__ __forceinline__ void fence_proxy_async() {
#if SATLAB_BULK_SM90
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}

// Shared -> global, `bytes` (a multiple of 16, 16-byte aligned), in the thread's current bulk group.
__device__ __forceinline__ void store(void* dst, const void* src_smem, unsigned bytes) {
#if SATLAB_BULK_SM90
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(smem_addr(src_smem)),
               "r"(bytes)
               : "memory");
#endif
}

__device__ __forceinline__ void commit() {
#if SATLAB_BULK_SM90
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
#endif
}

// Until all but the newest N committed groups have read their shared memory.
template <int N>
__device__ __forceinline__ void wait_read() {
#if SATLAB_BULK_SM90
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
#endif
}

// Until all but the newest N committed groups have completed (their writes done).
template <int N>
__device__ __forceinline__ void wait_all() {
#if SATLAB_BULK_SM90
  asm volatile("cp.async.bulk.wait_group %0;" ::"n"(N) : "memory");
#endif
}

// Host: "" when the current device runs `kernel` with these copies (compute capability 9.0 or later, and
// the kernel built for it: a binary for sm_90 or later, not PTX of an older architecture whose body is
// empty), else the reason, naming `who`. Checked once per process and kernel.
template <typename Kernel>
std::string unsupported(Kernel* kernel, const char* who) {
  int device = 0, major = 0, minor = 0;
  if (cudaGetDevice(&device) != cudaSuccess) {
    (void)cudaGetLastError();
    return std::string(who) + ": no CUDA device";
  }
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
  if (major < 9)
    return std::string(who) + " needs compute capability 9.0 (Hopper's bulk copies); this device has " +
           std::to_string(major) + "." + std::to_string(minor);
  cudaFuncAttributes fa{};
  if (cudaFuncGetAttributes(&fa, reinterpret_cast<const void*>(kernel)) != cudaSuccess) {
    (void)cudaGetLastError();
    return std::string(who) + ": its kernel has no image for this device";
  }
  if (fa.ptxVersion < 90)  // the virtual architecture it was compiled for
    return std::string(who) + ": built without sm_90 code (CMAKE_CUDA_ARCHITECTURES 90 or later)";
  return "";
}

// Wraps a registry row's `refuses` so that it also refuses devices and builds where `kernel` cannot run
// (`unsupported`, asked once per row). The row's own reasons come first.
template <typename Variant, typename Kernel>
void refuse_without_sm90(Variant& v, Kernel* kernel, const char* who) {
  struct Once {
    std::once_flag flag;
    std::string why;
  };
  auto once = std::make_shared<Once>();
  v.refuses = [inner = v.refuses, kernel, who, once](size_t n, auto t) -> std::string {
    std::string why = inner(n, t);
    if (!why.empty()) return why;
    std::call_once(once->flag, [&] { once->why = unsupported(kernel, who); });
    return once->why;
  };
}

}  // namespace satlab::gpu::bulk
