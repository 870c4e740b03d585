// What the in-app file browser shows, without any GUI: a folder's listing (folders first, filtered by
// extension, hidden entries on request, an unreadable folder as a message), the places to jump to, and
// the recent files kept in the user's config folder.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace satlab::io {

// Which files a listing shows (by the extensions of app/io/file_formats.hpp); folders are always shown.
enum class FileFilter { Images, Depth, All };
const char* to_string(FileFilter f);                      // "images (png jpg jpeg ...)", ...
bool passes(FileFilter f, const std::string& file_name);  // by extension, case-insensitive

struct DirEntry {
  std::string name;
  bool is_dir = false;
  uintmax_t size = 0;  // bytes, files only
};

struct DirListing {
  std::string path;               // absolute, normalised
  std::vector<DirEntry> entries;  // folders first, then files, each sorted by name (case-insensitive)
  std::string error;              // set when the folder cannot be read (entries is then empty)
};

// Lists `dir`. Names starting with '.' only with show_hidden; "." and ".." never (use parent_dir).
// Entries that cannot be inspected (dangling links, sockets) are left out.
DirListing list_directory(const std::string& dir, FileFilter filter, bool show_hidden);

std::string absolute_dir(const std::string& dir);  // made absolute and normalised, no trailing '/'
std::string parent_dir(const std::string& dir);    // of an absolute dir; "/" stays "/"
std::string join(const std::string& dir, const std::string& name);

struct Place {
  std::string label, path;
};
// Home, the filesystem root, the working folder and mounted drives (/media/*, /media/$USER/*, /mnt/*).
std::vector<Place> places();

// $XDG_CONFIG_HOME/satlab, else $HOME/.config/satlab; empty when neither variable is set.
std::string config_dir();

struct RecentFile {
  std::string path;
  bool depth = false;  // opened as a depth map
};

// The most recently opened files, newest first, at most kMax, kept as JSON (recent.json in config_dir()).
// Nothing here throws: a missing or corrupt file starts an empty list, and a failed save is reported.
class RecentFiles {
 public:
  static constexpr size_t kMax = 10;
  explicit RecentFiles(std::string json_path) : path_(std::move(json_path)) {}
  static std::string default_path();  // config_dir() + "/recent.json", empty without a config dir

  void load();  // replaces the list; entries whose files no longer exist are pruned
  // Puts `path` (made absolute) in front, dropping an older entry of the same path and kind.
  void add(const std::string& path, bool depth);
  void prune();              // drops entries whose files are gone
  std::string save() const;  // creates the folder; returns the error, empty on success
  const std::vector<RecentFile>& entries() const { return entries_; }
  const std::string& load_error() const { return load_error_; }  // why load() started empty

 private:
  std::string path_;
  std::vector<RecentFile> entries_;
  std::string load_error_;
};

}  // namespace satlab::io
