// A registered scan variant as a building block of another family (the scan-based compaction, the LSD
// radix sort): found by name, then run as an exclusive uint32 scan on the caller's stream.
#pragma once
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "core/variant.hpp"
#include "gpu/device.hpp"

namespace satlab::gpu {

// The registered scan `name`; `user` names the caller in the error when there is none.
inline const Variant& registered_scan(const std::string& name, const std::string& user) {
  for (const Variant& s : variants())
    if (s.name == name && s.scan) return s;
  throw Error(user + ": scan variant '" + name + "' is not registered");
}

inline void exclusive_scan_u32(const Variant& scan, const uint32_t* in, uint32_t* out, size_t n,
                               void* stream) {
  ScanArgs a;
  a.in = in;
  a.out = out;
  a.n = n;
  a.dtype = DType::U32;
  a.inclusive = false;
  a.stream = stream;
  scan.scan(a);
}

}  // namespace satlab::gpu
