// Every key and mouse action of the app, in one table: the help overlay (F1), `satlab --keys` and the
// README's controls section are all this table (a test checks the README holds each row). Header-only
// and GUI-free, so the CLI and the tests have it in builds without the front end.
#pragma once
#include <string>

namespace satlab::gui {

// io.KeysDown indices of the keys that are not letters or digits: ImGui 1.86's GLFW backend indexes by
// GLFW key codes (letters and digits are their ASCII capitals).
constexpr int kKeyEscape = 256, kKeyTab = 258, kKeyF1 = 290, kKeySpace = 32, kKeyRight = 262, kKeyLeft = 263;

struct KeyBinding {
  const char* input;  // as the README writes it: `F1` or plain words ("mouse wheel")
  const char* action;
};

inline constexpr KeyBinding kKeyBindings[] = {
    {"click on the image", "focus at that pixel's depth"},
    {"mouse wheel", "zoom to the cursor (nearest-pixel sampling when magnified)"},
    {"drag", "pan (both halves of a compare view move together)"},
    {"drag the divider", "move the split of the wipe compare"},
    {"hover", "tooltip: input and result RGB, depth and CoC radius of the pixel"},
    {"`1` ... `8`", "view: result, input, depth, CoC, SAT, difference against the CPU reference, raw depth, ground truth"},
    {"`C`", "compare: off, split/wipe, side by side"},
    {"`R`", "fit: the whole image in view (reset zoom and pan)"},
    {"`A`", "100%: one image pixel per screen pixel"},
    {"`F`", "sweep the focus near to far and back (any key or click stops it)"},
    {"`V`", "vsync on or off"},
    {"`Ctrl+O`", "file browser (open an image or a depth map, recent files)"},
    {"`B`", "depth brush on or off (a drag paints depth instead of panning; strokes are refined)"},
    {"`E`", "with the depth brush on: eyedropper (the next click takes the depth there as the brush's)"},
    {"`G`", "with the depth brush on: fill (the next click paints the region it lies in, up to its edges)"},
    {"`S`", "subject select on or off: a click on the image selects the subject there and focuses on it"},
    {"`Shift+click`", "with subject select on: mark background (takes back what the click lies in)"},
    {"`Ctrl+Z` / `Ctrl+Y`", "undo / redo a depth brush stroke (with subject select on: take back the last click)"},
    {"`Ctrl+S`", "save the depth in use as a 16-bit PNG (NAME.depth.png beside the image, or the brush panel's path)"},
    {"`Tab`", "hide or show the panels"},
    {"`F1` or `?`", "show or hide this table of keys"},
    {"`Ctrl+E`", "export as the Files panel's export button does (the result streams at full resolution with a progress bar); a clip open: render the whole clip as the timeline's Export does"},
    {"`Esc`", "cancel a running export (no file is left); close the help or the file browser"},
    {"`Space`", "a clip open: play or pause"},
    {"`Left` / `Right`", "a clip open: a frame back or forward (the timeline's bar scrubs)"},
    {"`K` / `Ctrl+K`", "a clip open: set a key at the playhead from the sliders / delete the key there"},
    {"drop a file on the window", "open it (a file whose name contains `depth` is taken as the depth map; a video, a sequence folder: a clip)"},
};

// One markdown table row, as the README holds it: "| `R` | reset zoom and pan |".
inline std::string markdown_row(const KeyBinding& k) {
  return std::string("| ") + k.input + " | " + k.action + " |";
}

// Markdown text without its backticks, for the overlay.
inline std::string plain(const char* markdown) {
  std::string s;
  for (const char* c = markdown; *c; ++c)
    if (*c != '`') s += *c;
  return s;
}

}  // namespace satlab::gui
