// Registry glue of the compaction variants: the predicate of the registry's launches (x >= threshold),
// the bytes model and the refusal rule shared by every compaction variant.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "core/variant.hpp"
#include "gpu/check.hpp"

namespace satlab::gpu::compact {

struct AtLeast {
  int32_t threshold;
  __host__ __device__ bool operator()(int32_t x) const { return x >= threshold; }
};

// Builds a registry entry from an implementation struct with
//   static size_t temp_bytes(size_t n);
//   static void run(const int32_t* in, AtLeast keep, int32_t* out, uint32_t* count, size_t n, void* temp,
//                   cudaStream_t s);
// Bytes: what every compaction must move is n read plus the kept elements written; the kept count is
// data-dependent, so this model is the read alone and the bench adds 4 bytes per kept element (and the
// count) from the count it measured.
template <typename Impl>
Variant make_compact_variant(std::string name, std::string label, std::string source) {
  Variant v;
  v.name = std::move(name);
  v.family = Family::Compact;
  v.label = std::move(label);
  v.source = std::move(source);
  v.dtypes = {DType::I32};
  v.bytes = [](size_t n, DType t) { return double(n) * double(dtype_size(t)); };
  v.refuses = [](size_t n, DType t) -> std::string {
    if (t != DType::I32) return std::string("no ") + to_string(t) + " compaction";
    return n < (size_t(1) << 31) ? "" : "n >= 2^31";
  };
  v.temp_bytes = [](size_t n, DType) { return Impl::temp_bytes(n); };
  v.compact = [name = v.name](const CompactArgs& a) {
    if (a.dtype != DType::I32) throw Error(name + ": unsupported type " + to_string(a.dtype));
    Impl::run(static_cast<const int32_t*>(a.in), AtLeast{a.threshold}, static_cast<int32_t*>(a.out),
              static_cast<uint32_t*>(a.count), a.n, a.temp, cudaStream_t(a.stream));
  };
  return v;
}

}  // namespace satlab::gpu::compact
