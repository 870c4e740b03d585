// File names of what satlab writes: derived from the input's name and the parameters
// (coffee_dof_f0.20_a40_r24.png), and the next free one where a name is taken, so that nothing is
// overwritten without being asked.
#pragma once
#include <string>
#include <vector>

#include "core/params.hpp"

namespace satlab::io {

std::string file_stem(const std::string& path);  // "/a/coffee.png" -> "coffee"
std::string folder_of(const std::string& path);  // "/a/coffee.png" -> "/a", "coffee.png" -> "."
// "dof_f0.20_a40_r24" (focus, aperture, max radius) or "box_r4".
std::string params_tag(const Params& p);
bool path_exists(const std::string& path);
bool is_dir(const std::string& path);
// dir/base + suffix, or dir/base-2 + suffix, -3, ... : the first name where none of the suffixes is taken,
// so that files exported together keep one base. Returns the base path (dir/base or dir/base-N).
std::string next_free_base(const std::string& dir, const std::string& base,
                           const std::vector<std::string>& suffixes);
// Where an export of dir/base + each suffix goes when some of those names are taken: Ask (the default)
// writes nothing and lists the taken files, so the caller asks the user; Overwrite and NextFree are the
// two answers. ExportTarget::base is empty while the user has to be asked.
enum class WhenTaken { Ask, Overwrite, NextFree };
struct ExportTarget {
  std::string base;                   // dir/base or dir/base-N; empty: ask about `existing` first
  std::vector<std::string> existing;  // with Ask: the files that would be overwritten
};
ExportTarget export_target(const std::string& dir, const std::string& base, const std::vector<std::string>& suffixes,
                           WhenTaken when_taken);
// The image files of a folder (by extension, as the file browser's image filter), sorted by name, without the
// depth maps that go with them (NAME.depth.png, NAME_depth.png).
std::vector<std::string> images_in_dir(const std::string& dir);  // throws satlab::Error
// The depth map that sits beside an image (NAME.depth.png, then NAME_depth.png), or "".
std::string depth_beside(const std::string& image_path);

}  // namespace satlab::io
