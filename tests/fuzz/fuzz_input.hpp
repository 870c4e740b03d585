// Fuzz inputs reach the loaders the way users' files do: through a path. Each input is written to a
// per-process file on tmpfs (/dev/shm when present) with the extension the loader dispatches on.
#pragma once
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace satlab::fuzz {

inline std::string write_input(const uint8_t* data, size_t size, const char* ext) {
  static const std::string dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : (std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp");
  const std::string path = dir + "/satlab-fuzz-" + std::to_string(getpid()) + "." + ext;
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();
  if (size && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
  return path;
}

}  // namespace satlab::fuzz
