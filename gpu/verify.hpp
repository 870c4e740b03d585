// Running reduction and scan variants on host data, and `satlab verify`: every registered reduction, scan
// and SAT builder against the CPU reference (core/reference.hpp) on fresh random inputs of awkward sizes. Plain
// C++; without CUDA every function throws satlab::Error saying so.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/variant.hpp"

namespace satlab::gpu {

// One launch of `v` on n host elements of type t: upload, poison the device output, run, download
// into `result` (one element of t). Throws satlab::Error on refusal or a CUDA error.
void run_reduce(const Variant& v, const void* in, size_t n, DType t, ReduceOp op, void* result);
// Likewise for a scan; `out` receives n elements (the device output is poisoned with 0xA5 bytes first,
// so an element the variant did not write shows up as a mismatch).
void run_scan(const Variant& v, const void* in, size_t n, DType t, bool inclusive, void* out);

// Float sums are compared within rel_tol * sum|x| over the summed elements (see verify.cpp).
constexpr double kFloatSumRelTol = 1e-5;

// Checks a reduction/scan result against the CPU reference; "" when it matches, else what differs.
std::string check_reduce(const void* in, size_t n, DType t, ReduceOp op, const void* result);
std::string check_scan(const void* in, size_t n, DType t, bool inclusive, const void* out);

// Random input of n elements: int32 in [-1000, 1000] (sums cross zero, min/max see negatives), uint32
// full range (scans wrap around), float in [-1, 1).
std::vector<uint32_t> random_input(size_t n, DType t, uint64_t seed);

struct VerifyLine {
  std::string variant;  // registry name
  std::string family;
  bool ok = true;
  int cases = 0;        // size/type/op combinations run
  std::string detail;   // first mismatch or refusal notes
};

// Every reduction and scan variant on fresh random sizes (0, 1, odd, around block and tile sizes, and
// one of millions), every SAT builder on awkward image sizes of each type it takes (random and all-255
// 8-bit, float with 1, 2, 4 channels); `on_line` is called as each variant finishes. Seeded by `seed`.
std::vector<VerifyLine> verify_variants(uint64_t seed, const std::function<void(const VerifyLine&)>& on_line);

}  // namespace satlab::gpu
