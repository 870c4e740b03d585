// The in-app file browser: places, the folder's listing (app/io/dir_listing), an extension filter and the
// recent files; a file is opened as the image or as the depth map through the session's requests.
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <tuple>

#include "app/gui/panels.hpp"
#include "app/io/assets.hpp"
#include "core/error.hpp"

namespace satlab::gui {
namespace {

std::string file_name(const std::string& path) {
  return path.substr(path.find_last_of('/') + 1);
}
std::string folder_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

std::string human_size(uintmax_t bytes) {
  char buf[32];
  if (bytes < 1024)
    std::snprintf(buf, sizeof(buf), "%ju B", bytes);
  else if (bytes < 1024 * 1024)
    std::snprintf(buf, sizeof(buf), "%.1f KB", double(bytes) / 1024);
  else
    std::snprintf(buf, sizeof(buf), "%.1f MB", double(bytes) / (1024 * 1024));
  return buf;
}

bool bundled(const std::string& path) {
  try {
    const std::string dir = io::assets_dir();
    return path.compare(0, dir.size() + 1, dir + "/") == 0;
  } catch (const Error&) {
    return false;
  }
}

void go_to(BrowserState& b, const std::string& dir) {
  b.dir = io::absolute_dir(dir);
  b.selected.clear();
  b.stale = true;
}

void open_file(AppState& s, const std::string& path, bool depth) {
  (depth ? s.open_depth : s.open_image) = path;
  s.show_browser = false;
}

void draw_places_and_recent(AppState& s, BrowserState& b) {
  ImGui::TextDisabled("places");
  for (const io::Place& p : io::places())
    if (ImGui::Selectable(p.label.c_str(), b.dir == p.path)) go_to(b, p.path);
  ImGui::Separator();
  ImGui::TextDisabled("recent files");
  if (b.recent.entries().empty()) ImGui::TextDisabled("(none yet)");
  for (size_t i = 0; i < b.recent.entries().size(); ++i) {
    const io::RecentFile& r = b.recent.entries()[i];
    ImGui::PushID(int(i));
    const std::string label = file_name(r.path) + (r.depth ? "  (depth)" : "");
    if (ImGui::Selectable(label.c_str(), false, ImGuiSelectableFlags_AllowDoubleClick)) {
      go_to(b, folder_of(r.path));
      b.selected = file_name(r.path);
      if (ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) open_file(s, r.path, r.depth);
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s%s", r.path.c_str(), r.depth ? " (as depth map)" : "");
    ImGui::PopID();
  }
}

void draw_listing(AppState& s, BrowserState& b) {
  if (!b.listing.error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.f, 0.45f, 0.4f, 1.f));
    ImGui::TextWrapped("%s", b.listing.error.c_str());
    ImGui::PopStyleColor();
  }
  if (b.dir != "/" && ImGui::Selectable("..", false, ImGuiSelectableFlags_AllowDoubleClick) &&
      ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left))
    return go_to(b, io::parent_dir(b.dir));
  for (const io::DirEntry& e : b.listing.entries) {
    const std::string label = e.is_dir ? e.name + "/" : e.name;
    if (ImGui::Selectable(label.c_str(), b.selected == e.name,
                          ImGuiSelectableFlags_AllowDoubleClick | ImGuiSelectableFlags_SpanAllColumns)) {
      b.selected = e.name;
      if (ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) {
        if (e.is_dir) return go_to(b, io::join(b.dir, e.name));
        return open_file(s, io::join(b.dir, e.name), b.filter == io::FileFilter::Depth);
      }
    }
    if (!e.is_dir) {
      const std::string size = human_size(e.size);
      ImGui::SameLine(ImGui::GetWindowContentRegionMax().x - ImGui::CalcTextSize(size.c_str()).x);
      ImGui::TextDisabled("%s", size.c_str());
    }
  }
}

}  // namespace

void track_recent_files(AppState& s) {
  BrowserState& b = s.browser;
  if (!b.recent_loaded) {
    b.recent.load();
    b.note = b.recent.load_error();
    b.recent_loaded = true;
  }
  bool changed = false;
  for (auto [path, last, depth] : {std::tuple{&s.image_path, &b.recent_image, false},
                                   std::tuple{&s.depth_path, &b.recent_depth, true}}) {
    if (*path == *last) continue;
    *last = *path;
    if (path->empty() || bundled(*path) || (depth && *path == s.image_path)) continue;  // embedded depth
    b.recent.add(*path, depth);
    changed = true;
  }
  if (changed) {
    const std::string err = b.recent.save();
    if (!err.empty()) b.note = "recent files not kept: " + err;
  }
}

void draw_file_browser(AppState& s, float display_w, float display_h) {
  if (!s.show_browser) return;
  BrowserState& b = s.browser;
  if (b.dir.empty()) go_to(b, s.image_path.empty() || bundled(s.image_path) ? "." : folder_of(s.image_path));
  if (b.stale) {
    b.listing = io::list_directory(b.dir, b.filter, b.show_hidden);
    b.dir = b.listing.path;  // absolute
    b.stale = false;
  }
  const float em = ImGui::GetFontSize();
  ImGui::SetNextWindowPos(ImVec2(0.5f * display_w, 0.5f * display_h), ImGuiCond_Appearing,
                          ImVec2(0.5f, 0.5f));
  ImGui::SetNextWindowSize(ImVec2(std::min(display_w * 0.9f, 52 * em), std::min(display_h * 0.85f, 34 * em)),
                           ImGuiCond_Appearing);
  if (!ImGui::Begin("Open a file", &s.show_browser,
                    ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoCollapse)) {
    ImGui::End();
    return;
  }
  if (ImGui::Button("up") && b.dir != "/") go_to(b, io::parent_dir(b.dir));
  ImGui::SameLine();
  char path[1024];
  std::snprintf(path, sizeof(path), "%s", b.dir.c_str());
  ImGui::SetNextItemWidth(-1);
  if (ImGui::InputText("##dir", path, sizeof(path), ImGuiInputTextFlags_EnterReturnsTrue)) go_to(b, path);

  int filter = int(b.filter);
  ImGui::SetNextItemWidth(18 * em);
  static const std::string filters = std::string(io::to_string(io::FileFilter::Images)) + '\0' +
                                     io::to_string(io::FileFilter::Depth) + '\0' +
                                     io::to_string(io::FileFilter::All) + '\0';
  if (ImGui::Combo("##filter", &filter, filters.c_str())) {
    b.filter = io::FileFilter(filter);
    b.stale = true;
  }
  ImGui::SameLine();
  if (ImGui::Checkbox("hidden files", &b.show_hidden)) b.stale = true;
  ImGui::SameLine();
  if (ImGui::Button("refresh")) b.stale = true;

  const float footer = ImGui::GetFrameHeightWithSpacing() * (b.note.empty() ? 1.f : 2.f);
  ImGui::BeginChild("##places", ImVec2(14 * em, -footer), true);
  draw_places_and_recent(s, b);
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("##listing", ImVec2(0, -footer), true);
  draw_listing(s, b);
  ImGui::EndChild();

  if (!b.note.empty()) ImGui::TextDisabled("%s", b.note.c_str());
  const bool file = !b.selected.empty() && b.listing.error.empty() && [&] {
    for (const io::DirEntry& e : b.listing.entries)
      if (e.name == b.selected) return !e.is_dir;
    return false;
  }();
  if (!file) ImGui::BeginDisabled();
  if (ImGui::Button("open as image")) open_file(s, io::join(b.dir, b.selected), false);
  ImGui::SameLine();
  if (ImGui::Button("open as depth map")) open_file(s, io::join(b.dir, b.selected), true);
  if (!file) ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::TextDisabled("%s", file ? b.selected.c_str() : "double-click a file to open it");
  ImGui::End();
}

}  // namespace satlab::gui
