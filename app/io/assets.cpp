#include "app/io/assets.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <vector>

#include "core/error.hpp"

#ifndef SATLAB_SOURCE_DIR
#define SATLAB_SOURCE_DIR "."
#endif
#ifndef SATLAB_BINARY_DIR
#define SATLAB_BINARY_DIR "."
#endif

namespace satlab::io {
namespace {

bool has_default(const std::string& dir) {
  struct stat st {};
  return stat((dir + "/default.png").c_str(), &st) == 0;
}

std::string exe_dir() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return ".";
  std::string p(buf, size_t(n));
  return p.substr(0, p.find_last_of('/'));
}

// Whether `path` lies in folder `dir` (both absolute; `dir` resolved through realpath).
bool inside(const std::string& path, const std::string& dir) {
  char buf[PATH_MAX];
  const std::string d = realpath(dir.c_str(), buf) ? buf : dir;
  return path.size() > d.size() && path.compare(0, d.size(), d) == 0 && path[d.size()] == '/';
}

}  // namespace

std::string assets_dir() {
  std::vector<std::string> tried;
  if (const char* env = std::getenv("SATLAB_ASSETS")) tried.push_back(env);
  const std::string exe = exe_dir();
  tried.push_back(exe + "/../share/satlab/assets");  // installed: PREFIX/bin/satlab
  // The source tree serves only the binaries of its own build tree: an installed or copied binary never
  // falls back to it silently.
  if (inside(exe, SATLAB_BINARY_DIR)) tried.push_back(SATLAB_SOURCE_DIR "/assets");
  for (const auto& d : tried)
    if (has_default(d)) return d;
  std::string msg = "bundled scene not found (looked in";
  for (const auto& d : tried) msg += " " + d;
  throw Error(msg + "); set SATLAB_ASSETS to the assets folder");
}

std::string default_scene_image() {
  return assets_dir() + "/default.png";
}
std::string default_scene_depth() {
  return assets_dir() + "/default_depth.png";
}

}  // namespace satlab::io
