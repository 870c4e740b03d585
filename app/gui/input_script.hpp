// Scripted input for tests: keys and mouse events fed to ImGui at given frames, so a headless run
// (--headless --input-script FILE) exercises the same key and mouse handling as a user at the window.
// One event per line, '#' starts a comment:
//   FRAME key NAME        press and release (next frame) a key: A-Z, 0-9, F1, Tab, Esc, Space, Left, Right; '?' types it
//   FRAME ctrl NAME       the same with Ctrl held
//   FRAME move X Y        the pointer to window coordinates (X, Y)
//   FRAME down | up       the left button
//   FRAME wheel N         N notches (positive: zoom in)
#pragma once
#include <string>
#include <vector>

struct ImGuiIO;

namespace satlab::gui {

class InputScript {
 public:
  InputScript() = default;
  explicit InputScript(const std::string& path);  // throws satlab::Error naming the line that is wrong
  // Applies this frame's events; call after the surface's new_frame, before ImGui::NewFrame.
  void apply(int frame, ImGuiIO& io);
  bool empty() const { return events_.empty(); }

 private:
  struct Event {
    int frame;
    std::string what;
    int key = -1;  // io.KeysDown index (GLFW key code)
    char typed = 0;
    bool ctrl = false;
    float x = 0, y = 0;
  };
  std::vector<Event> events_;
  std::vector<int> release_;  // keys to let go of on the next frame
  bool ctrl_release_ = false;
  float mx_ = -1e9f, my_ = -1e9f;
  bool down_ = false;
};

}  // namespace satlab::gui
