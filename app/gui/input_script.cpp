#include "app/gui/input_script.hpp"

#include <imgui.h>

#include <fstream>
#include <sstream>

#include "app/gui/keys.hpp"
#include "core/error.hpp"

namespace satlab::gui {
namespace {

int key_code(const std::string& name, char* typed) {
  if (name == "Tab") return kKeyTab;
  if (name == "Esc") return kKeyEscape;
  if (name == "F1") return kKeyF1;
  if (name == "Space") return kKeySpace;
  if (name == "Left") return kKeyLeft;
  if (name == "Right") return kKeyRight;
  if (name == "?") {
    *typed = '?';
    return -1;
  }
  if (name.size() == 1 && ((name[0] >= 'A' && name[0] <= 'Z') || (name[0] >= '0' && name[0] <= '9')))
    return name[0];
  return -2;
}

}  // namespace

InputScript::InputScript(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error("cannot read the input script " + path);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    line = line.substr(0, line.find('#'));
    std::istringstream ls(line);
    Event e;
    if (!(ls >> e.frame)) continue;  // blank or comment
    const std::string where = path + ":" + std::to_string(n) + ": ";
    if (!(ls >> e.what)) throw Error(where + "an event is missing after the frame number");
    if (e.what == "key" || e.what == "ctrl") {
      std::string name;
      ls >> name;
      e.ctrl = e.what == "ctrl";
      e.key = key_code(name, &e.typed);
      if (e.key == -2) throw Error(where + "unknown key '" + name + "' (A-Z, 0-9, F1, Tab, Esc, Space, Left, Right, ?)");
    } else if (e.what == "move") {
      if (!(ls >> e.x >> e.y)) throw Error(where + "move needs X Y");
    } else if (e.what == "wheel") {
      if (!(ls >> e.x)) throw Error(where + "wheel needs a number of notches");
    } else if (e.what != "down" && e.what != "up") {
      throw Error(where + "unknown event '" + e.what + "' (key, ctrl, move, down, up, wheel)");
    }
    events_.push_back(e);
  }
}

void InputScript::apply(int frame, ImGuiIO& io) {
  if (events_.empty()) return;
  // Headless surfaces have no platform backend: map the named keys as the GLFW backend does.
  io.KeyMap[ImGuiKey_Tab] = kKeyTab;
  io.KeyMap[ImGuiKey_Escape] = kKeyEscape;
  for (int k : release_) io.KeysDown[k] = false;
  release_.clear();
  if (ctrl_release_) io.KeyCtrl = ctrl_release_ = false;
  for (const Event& e : events_) {
    if (e.frame != frame) continue;
    if (e.what == "key" || e.what == "ctrl") {
      if (e.typed) io.AddInputCharacter(unsigned(e.typed));
      if (e.key >= 0) {
        io.KeysDown[e.key] = true;
        release_.push_back(e.key);
      }
      if (e.ctrl) io.KeyCtrl = ctrl_release_ = true;
    } else if (e.what == "move") {
      mx_ = e.x, my_ = e.y;
    } else if (e.what == "down" || e.what == "up") {
      down_ = e.what == "down";
    } else if (e.what == "wheel") {
      io.MouseWheel += e.x;
    }
  }
  io.MousePos = ImVec2(mx_, my_);
  io.MouseDown[0] = down_;
}

}  // namespace satlab::gui
