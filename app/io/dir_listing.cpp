#include "app/io/dir_listing.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <system_error>

#include "app/io/file_formats.hpp"

namespace satlab::io {
namespace fs = std::filesystem;
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool name_less(const DirEntry& a, const DirEntry& b) {
  if (a.is_dir != b.is_dir) return a.is_dir;
  const std::string la = lower(a.name), lb = lower(b.name);
  return la != lb ? la < lb : a.name < b.name;
}

bool exists(const std::string& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

}  // namespace

namespace {

// "png jpg jpeg ..." of the formats that pass `want` (app/io/file_formats.hpp).
std::string extension_list(bool FileFormat::*want) {
  std::string out;
  for (const std::string& e : format_extensions(want)) out += (out.empty() ? "" : " ") + e;
  return out;
}

// Videos the browser lists with the images (app/io/clip.hpp opens them).
constexpr const char* kClipExtensions = "mp4 m4v mov mkv webm avi";

}  // namespace

const char* to_string(FileFilter f) {
  static const std::string images = "images and clips (" + extension_list(&FileFormat::image) + " " + kClipExtensions + ")";
  static const std::string depth = "depth maps (" + extension_list(&FileFormat::depth_listed) + ")";
  switch (f) {
    case FileFilter::Images:
      return images.c_str();
    case FileFilter::Depth:
      return depth.c_str();
    case FileFilter::All:
      return "all files";
  }
  return "all files";
}

bool passes(FileFilter f, const std::string& file_name) {
  if (f == FileFilter::All) return true;
  const size_t dot = file_name.find_last_of('.');
  if (dot == std::string::npos || dot == 0) return false;
  const std::string ext = lower(file_name.substr(dot + 1));
  static const std::vector<std::string> images = [] {  // stills, and videos (opened as clips)
    std::vector<std::string> v = format_extensions(&FileFormat::image);
    for (const char* e : {"mp4", "m4v", "mov", "mkv", "webm", "avi"}) v.push_back(e);
    return v;
  }();
  static const std::vector<std::string> depth = format_extensions(&FileFormat::depth_listed);
  const std::vector<std::string>& listed = f == FileFilter::Images ? images : depth;
  return std::find(listed.begin(), listed.end(), ext) != listed.end();
}

std::string absolute_dir(const std::string& dir) {
  std::error_code ec;
  fs::path p = fs::absolute(dir.empty() ? "." : dir, ec);
  if (ec) p = dir;
  std::string s = p.lexically_normal().string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

std::string parent_dir(const std::string& dir) {
  const std::string d = absolute_dir(dir);
  const size_t slash = d.find_last_of('/');
  return slash == 0 || slash == std::string::npos ? "/" : d.substr(0, slash);
}

std::string join(const std::string& dir, const std::string& name) {
  return dir.empty() || dir.back() == '/' ? dir + name : dir + "/" + name;
}

DirListing list_directory(const std::string& dir, FileFilter filter, bool show_hidden) {
  DirListing out;
  out.path = absolute_dir(dir);
  std::error_code ec;
  if (!fs::is_directory(out.path, ec)) {
    out.error =
        "'" + out.path + "' is not a folder" + (fs::exists(out.path, ec) ? "" : " (it does not exist)");
    return out;
  }
  fs::directory_iterator it(out.path, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!show_hidden && name[0] == '.') continue;
    std::error_code ec2;
    const fs::file_status st = it->status(ec2);  // follows links
    if (ec2) continue;
    DirEntry e;
    e.name = name;
    e.is_dir = fs::is_directory(st);
    if (!e.is_dir) {
      if (!fs::is_regular_file(st) || !passes(filter, name)) continue;
      e.size = it->file_size(ec2);
    }
    out.entries.push_back(std::move(e));
  }
  if (ec) {
    out.entries.clear();
    out.error = "cannot read the folder '" + out.path + "': " + ec.message();
    return out;
  }
  std::sort(out.entries.begin(), out.entries.end(), name_less);
  return out;
}

std::vector<Place> places() {
  std::vector<Place> out;
  if (const char* home = std::getenv("HOME"); home && *home) out.push_back({"home", absolute_dir(home)});
  out.push_back({"/", "/"});
  out.push_back({"working folder", absolute_dir(".")});
  // Mounted drives: the folders under /media/$USER, /media and /mnt (not /media/$USER itself).
  std::vector<std::string> mounts = {"/media", "/mnt"};
  if (const char* user = std::getenv("USER"); user && *user)
    mounts.insert(mounts.begin(), join("/media", user));
  for (const std::string& m : mounts)
    for (const DirEntry& e : list_directory(m, FileFilter::All, false).entries) {
      const std::string path = join(m, e.name);
      const bool known = path == mounts[0] ||
                         std::any_of(out.begin(), out.end(), [&](const Place& p) { return p.path == path; });
      if (e.is_dir && !known) out.push_back({e.name, path});
    }
  return out;
}

std::string config_dir() {
  if (const char* x = std::getenv("XDG_CONFIG_HOME"); x && *x) return join(x, "satlab");
  if (const char* h = std::getenv("HOME"); h && *h) return join(h, ".config/satlab");
  return "";
}

std::string RecentFiles::default_path() {
  const std::string d = config_dir();
  return d.empty() ? "" : join(d, "recent.json");
}

void RecentFiles::load() {
  entries_.clear();
  load_error_.clear();
  if (path_.empty()) return;
  std::ifstream in(path_);
  if (!in) return;  // nothing opened yet
  try {
    const nlohmann::json j = nlohmann::json::parse(in);
    for (const auto& e : j.at("recent")) {
      if (entries_.size() == kMax) break;
      entries_.push_back({e.at("path").get<std::string>(), e.value("depth", false)});
    }
  } catch (const nlohmann::json::exception& e) {
    entries_.clear();
    load_error_ = "ignoring the recent-files list " + path_ + ": " + e.what();
  }
  prune();
}

void RecentFiles::add(const std::string& path, bool depth) {
  std::error_code ec;
  fs::path p = fs::absolute(path, ec);
  const std::string abs = ec ? path : p.lexically_normal().string();
  entries_.erase(std::remove_if(entries_.begin(), entries_.end(),
                                [&](const RecentFile& r) { return r.path == abs && r.depth == depth; }),
                 entries_.end());
  entries_.insert(entries_.begin(), {abs, depth});
  if (entries_.size() > kMax) entries_.resize(kMax);
}

void RecentFiles::prune() {
  entries_.erase(
      std::remove_if(entries_.begin(), entries_.end(), [](const RecentFile& r) { return !exists(r.path); }),
      entries_.end());
}

std::string RecentFiles::save() const {
  if (path_.empty()) return "no config folder (neither XDG_CONFIG_HOME nor HOME is set)";
  std::error_code ec;
  fs::create_directories(fs::path(path_).parent_path(), ec);
  if (ec) return "cannot create " + fs::path(path_).parent_path().string() + ": " + ec.message();
  nlohmann::json list = nlohmann::json::array();
  for (const RecentFile& r : entries_) list.push_back({{"path", r.path}, {"depth", r.depth}});
  // Written beside the old file and renamed over it: a crash never leaves half a list.
  const std::string tmp = path_ + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << nlohmann::json{{"recent", list}}.dump(2) << "\n";
    if (!out) return "cannot write " + tmp;
  }
  fs::rename(tmp, path_, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return "cannot write " + path_;
  }
  return "";
}

}  // namespace satlab::io
