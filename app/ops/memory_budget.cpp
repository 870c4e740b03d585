#include "app/ops/memory_budget.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "app/io/format_guard.hpp"
#include "core/error.hpp"
#include "gpu/device.hpp"

namespace satlab {
namespace {

// A field of /proc/self/status in bytes (its values are in kB).
uint64_t status_bytes(const char* field) {
  std::ifstream f("/proc/self/status");
  std::string key;
  while (f >> key) {
    if (key == field) {
      uint64_t kib = 0;
      f >> kib;
      return kib * 1024;
    }
    f.ignore(1 << 12, '\n');
  }
  return 0;
}

}  // namespace

size_t parse_memory_size(const std::string& text) {
  const auto bad = [&] {
    return Error("--memory-budget: expected a size such as 512M or 4G, got '" + text + "'");
  };
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end == text.c_str() || !std::isfinite(v) || v <= 0) throw bad();
  std::string unit(end);
  if (unit.size() == 3 && (unit[1] == 'i' || unit[1] == 'I') && (unit[2] == 'B' || unit[2] == 'b'))
    unit.resize(1);
  if (unit.size() == 2 && (unit[1] == 'B' || unit[1] == 'b')) unit.resize(1);
  double scale = 1;
  if (!unit.empty()) {
    const char* units = "KMGT";
    const char* u =
        unit.size() == 1 ? std::strchr(units, std::toupper(static_cast<unsigned char>(unit[0]))) : nullptr;
    if (!u || !*u) throw bad();
    scale = std::pow(1024.0, double(u - units + 1));
  }
  const double bytes = v * scale;
  if (bytes < 1 || bytes > 1e18) throw bad();
  return size_t(bytes);
}

std::string memory_size_error(const std::string& text) {
  try {
    parse_memory_size(text);
    return std::string();
  } catch (const Error& e) {
    return e.what();
  }
}

std::string format_bytes(uint64_t bytes) {
  char buf[32];
  if (bytes >= (uint64_t(1) << 30))
    std::snprintf(buf, sizeof(buf), "%.2f GiB", double(bytes) / double(uint64_t(1) << 30));
  else
    std::snprintf(buf, sizeof(buf), bytes < (uint64_t(10) << 20) ? "%.1f MiB" : "%.0f MiB",
                  double(bytes) / double(1 << 20));
  return buf;
}

size_t default_memory_budget(bool gpu) {
  const uint64_t host = io::host_memory_available();
  // At most 3 GiB: larger tiles save little halo work, and a 4 Gpx render then stays within 4 GB of host
  // memory whatever the machine has (H200, 2026-11-28: the uncapped 62.5 GiB default held 16 GiB of RSS
  // and 37 GiB of device memory streaming 1 Gpx, no faster).
  uint64_t budget = std::min<uint64_t>(host ? host / 2 : uint64_t(1) << 30, uint64_t(3) << 30);
  if (gpu) {
    const gpu::DeviceInfo& dev = gpu::probe();
    const size_t used = gpu::device_memory_in_use();
    if (dev.available && dev.total_memory > used)
      budget = std::min<uint64_t>(budget, (dev.total_memory - used) / 4 * 3);
  }
  return size_t(budget);
}

uint64_t resident_bytes() {
  return status_bytes("VmRSS:");
}
uint64_t peak_resident_bytes() {
  return status_bytes("VmHWM:");
}

}  // namespace satlab
