#include "app/io/output_names.hpp"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "app/io/dir_listing.hpp"
#include "core/error.hpp"

namespace satlab::io {
namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

bool is_depth_name(const std::string& stem) {
  return ends_with(stem, ".depth") || ends_with(stem, "_depth");
}

}  // namespace

std::string file_stem(const std::string& path) {
  const auto slash = path.find_last_of('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  const auto dot = name.find_last_of('.');
  return dot == std::string::npos || dot == 0 ? name : name.substr(0, dot);
}

std::string folder_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string params_tag(const Params& p) {
  char buf[96];
  if (p.filter == FilterKind::Box)
    std::snprintf(buf, sizeof(buf), "box_r%d", p.box_radius);
  else
    std::snprintf(buf, sizeof(buf), "dof_f%.2f_a%g_r%g", double(p.focus), double(p.aperture),
                  double(p.max_radius));
  return buf;
}

bool path_exists(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0;
}

bool is_dir(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string next_free_base(const std::string& dir, const std::string& base,
                           const std::vector<std::string>& suffixes) {
  for (int n = 1;; ++n) {
    const std::string candidate = dir + "/" + base + (n == 1 ? "" : "-" + std::to_string(n));
    if (std::none_of(suffixes.begin(), suffixes.end(),
                     [&](const std::string& s) { return path_exists(candidate + s); }))
      return candidate;
  }
}

ExportTarget export_target(const std::string& dir, const std::string& base, const std::vector<std::string>& suffixes,
                           WhenTaken when_taken) {
  ExportTarget t;
  if (when_taken == WhenTaken::NextFree) {
    t.base = next_free_base(dir, base, suffixes);
    return t;
  }
  const std::string path = dir + "/" + base;
  if (when_taken == WhenTaken::Ask)
    for (const auto& s : suffixes)
      if (path_exists(path + s)) t.existing.push_back(path + s);
  if (t.existing.empty()) t.base = path;
  return t;
}

std::vector<std::string> images_in_dir(const std::string& dir) {
  std::unique_ptr<DIR, int (*)(DIR*)> d(opendir(dir.c_str()), closedir);
  if (!d) throw Error(dir + ": cannot list folder (" + std::strerror(errno) + ")");
  std::vector<std::string> out;
  while (const dirent* e = readdir(d.get())) {
    const std::string name = e->d_name;
    if (name[0] == '.' || !passes(FileFilter::Images, name) || is_depth_name(file_stem(lower(name))))
      continue;
    const std::string path = (ends_with(dir, "/") ? dir : dir + "/") + name;
    if (!is_dir(path)) out.push_back(path);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string depth_beside(const std::string& image_path) {
  const std::string base = folder_of(image_path) + "/" + file_stem(image_path);
  for (const char* suffix : {".depth.png", "_depth.png"})
    if (path_exists(base + suffix)) return base + suffix;
  return "";
}

}  // namespace satlab::io
