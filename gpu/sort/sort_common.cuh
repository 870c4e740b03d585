// Registry glue of the sort variants and the pieces every LSD radix sort here shares: 8-bit digits,
// the ping-pong between the caller's output and a scratch copy so that the last pass lands in the
// output, and the bytes model.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "core/variant.hpp"
#include "gpu/check.hpp"

namespace satlab::gpu::sort {

constexpr int kDigitBits = 8, kDigits = 1 << kDigitBits;

__host__ __device__ inline int passes_of(int end_bit) {
  return (end_bit + kDigitBits - 1) / kDigitBits;
}
// Digit of pass p: bits [8p, min(8p + 8, end_bit)) of the key.
__host__ __device__ inline unsigned digit_mask(int pass, int end_bit) {
  const int bits = end_bit - kDigitBits * pass;
  return bits >= kDigitBits ? unsigned(kDigits - 1) : (1u << bits) - 1u;
}

// Where pass p of `passes` writes: the output on the last pass and every second one before it, the
// scratch copy on the others (pass 0 reads the input, pass p > 0 what pass p - 1 wrote).
inline bool pass_writes_output(int pass, int passes) {
  return (passes - 1 - pass) % 2 == 0;
}

// Builds a registry entry from an implementation struct with
//   static size_t temp_bytes(size_t n);
//   static void run(const uint32_t* keys_in, const uint32_t* values_in, uint32_t* keys_out,
//                   uint32_t* values_out, size_t n, void* temp, cudaStream_t s);
// Bytes: the minimum of any sort of pairs, every key and value read once and written once (16 bytes a
// pair); an LSD sort of 32-bit keys makes four passes over them, so its fraction of C is at most ~1/4.
template <typename Impl>
Variant make_sort_variant(std::string name, std::string label, std::string source, size_t max_n) {
  Variant v;
  v.name = std::move(name);
  v.family = Family::Sort;
  v.label = std::move(label);
  v.source = std::move(source);
  v.dtypes = {DType::U32};
  v.bytes = [](size_t n, DType) { return 16.0 * double(n); };
  v.refuses = [max_n](size_t n, DType t) -> std::string {
    if (t != DType::U32) return std::string("no ") + to_string(t) + " keys";
    return n <= max_n ? "" : "n > " + std::to_string(max_n);
  };
  v.temp_bytes = [](size_t n, DType) { return Impl::temp_bytes(n); };
  v.sort = [name = v.name](const SortArgs& a) {
    if (a.dtype != DType::U32) throw Error(name + ": unsupported key type " + to_string(a.dtype));
    Impl::run(static_cast<const uint32_t*>(a.keys_in), static_cast<const uint32_t*>(a.values_in),
              static_cast<uint32_t*>(a.keys_out), static_cast<uint32_t*>(a.values_out), a.n, a.temp,
              cudaStream_t(a.stream));
  };
  return v;
}

}  // namespace satlab::gpu::sort
