// The memory budget of a streamed render (`--memory-budget`): the host bytes, and on the GPU backend also
// the device bytes, that streaming an image in tiles may take (core/tiled.hpp's plan_tiles fits its
// tiles to it). Sizes are written as on the command line: 512M, 4G, 1.5G (K, M, G, T: powers of 1024),
// or a plain number of bytes.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace satlab {

// Throws satlab::Error "--memory-budget: expected a size such as 512M or 4G, got 'TEXT'" on anything else.
size_t parse_memory_size(const std::string& text);
// "" when parse_memory_size takes `text`, else its one-line error: the check of every --memory-budget option.
std::string memory_size_error(const std::string& text);
// "512 MiB", "1.50 GiB".
std::string format_bytes(uint64_t bytes);

// The default budget: half of the host memory available (MemAvailable), at most 3 GiB, and with `gpu` no
// more than three quarters of the device memory free now; 1 GiB where MemAvailable cannot be read.
size_t default_memory_budget(bool gpu);

// The process's resident set now and at its peak (VmRSS, VmHWM of /proc/self/status), bytes; 0 where
// they cannot be read.
uint64_t resident_bytes();
uint64_t peak_resident_bytes();

}  // namespace satlab
