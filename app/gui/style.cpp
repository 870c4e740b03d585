#include <imgui.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <string>

#include "app/gui/frame.hpp"
#include "app/gui/panels.hpp"
#include "app/io/dir_listing.hpp"

namespace satlab::gui {

void setup_imgui_style(float scale) {
  ImGuiIO& io = ImGui::GetIO();
  ImGui::StyleColorsDark();
  ImGuiStyle& style = ImGui::GetStyle();
  style.WindowRounding = 0.f;
  style.WindowBorderSize = 0.f;
  style.FrameRounding = 3.f;
  style.GrabRounding = 3.f;
  style.WindowPadding = ImVec2(10, 10);
  style.ItemSpacing = ImVec2(8, 6);
  style.Colors[ImGuiCol_WindowBg] = ImVec4(0.12f, 0.12f, 0.13f, 1.f);
  style.Colors[ImGuiCol_TitleBgActive] = style.Colors[ImGuiCol_TitleBg] = ImVec4(0.16f, 0.16f, 0.18f, 1.f);
  style.ScaleAllSizes(scale);
  // DejaVu (fonts-dejavu-core) reads better than ImGui's bitmap font, and scales cleanly.
  const char* font = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
  struct stat st {};
  if (stat(font, &st) == 0) {
    io.Fonts->AddFontFromFileTTF(font, std::round(15.f * scale));
  } else {
    ImFontConfig cfg;
    cfg.SizePixels = std::round(13.f * scale);
    io.Fonts->AddFontDefault(&cfg);
  }
}

void set_imgui_ini_file(bool scripted) {
  // ImGui's default is imgui.ini in the working directory: never there. Scripted runs keep no layout.
  static std::string path;
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;
  const std::string dir = io::config_dir();
  if (scripted || dir.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return;  // no config folder: no saved layout, nothing else lost
  path = dir + "/imgui.ini";
  io.IniFilename = path.c_str();
}

Layout layout_for(const AppState& s, float display_w, float display_h, float scale) {
  Layout l;
  l.panel_w = s.show_ui ? std::min(430.f * scale, display_w * 0.45f) : 0.f;
  l.panel_x = display_w - l.panel_w;
  l.image_w = display_w - l.panel_w;
  l.image_h = display_h;
  return l;
}

namespace {
struct TableHeight {
  size_t rows = 0;
  float content = 0;
};
std::map<std::string, TableHeight>& table_heights() {
  static std::map<std::string, TableHeight> m;
  return m;
}
}  // namespace

float scrolling_table_height(const char* id, size_t rows) {
  const ImGuiStyle& st = ImGui::GetStyle();
  const auto it = table_heights().find(id);
  const float content = it != table_heights().end() && it->second.rows == rows
                            ? it->second.content
                            : float(rows + 1) * (ImGui::GetTextLineHeightWithSpacing() + 2 * st.CellPadding.y);
  return content + st.ScrollbarSize + 2;  // the horizontal scrollbar and the outer border
}

void remember_table_height(const char* id, size_t rows) {
  // The cursor is below the last cell's content, inside the table's own (unscrolled) window.
  table_heights()[id] = {rows, ImGui::GetCursorPosY() - ImGui::GetStyle().ItemSpacing.y + ImGui::GetStyle().CellPadding.y};
}

}  // namespace satlab::gui
