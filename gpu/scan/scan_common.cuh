// Registry glue of the scan variants: the dtype dispatch (int32 is scanned as uint32: wrap-around sums,
// same bits, no signed overflow), the bytes model and the refusal rule shared by every scan variant.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "core/variant.hpp"
#include "gpu/check.hpp"

namespace satlab::gpu::scan {

// Builds a registry entry from an implementation struct with
//   template <typename T> static void run(const T* in, T* out, size_t n, bool inclusive, cudaStream_t s);
// T is uint32_t or float. Bytes: the minimum of any scan, n read + n written; variants that move more
// (three-phase 4n, reduce-then-scan 3n) show it as a lower effective bandwidth.
template <typename Impl>
Variant make_scan_variant(std::string name, std::string label, std::string source) {
  Variant v;
  v.name = std::move(name);
  v.family = Family::Scan;
  v.label = std::move(label);
  v.source = std::move(source);
  v.dtypes = {DType::I32, DType::U32, DType::F32};
  v.bytes = [](size_t n, DType t) { return 2.0 * double(n) * double(dtype_size(t)); };
  v.refuses = [](size_t, DType t) -> std::string {
    return t == DType::I32 || t == DType::U32 || t == DType::F32 ? "" : std::string("no ") + to_string(t) + " scan";
  };
  v.scan = [name = v.name](const ScanArgs& a) {
    auto s = cudaStream_t(a.stream);
    if (a.n == 0) return;
    if (a.dtype == DType::I32 || a.dtype == DType::U32)
      Impl::template run<uint32_t>(static_cast<const uint32_t*>(a.in), static_cast<uint32_t*>(a.out), a.n,
                                   a.inclusive, s);
    else if (a.dtype == DType::F32)
      Impl::template run<float>(static_cast<const float*>(a.in), static_cast<float*>(a.out), a.n, a.inclusive, s);
    else
      throw Error(name + ": unsupported type " + to_string(a.dtype));
  };
  return v;
}

}  // namespace satlab::gpu::scan
