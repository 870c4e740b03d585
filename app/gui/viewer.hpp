// Draws the pipeline's images with the shaders from shaders/: colour views (result, input, SAT) from
// RGBA8 textures (or a GL buffer an external writer filled), depth, CoC and the difference from R32F
// textures through colour maps. Each view has its own texture, so a compare shows two at once. Fits the
// image to its pane (aspect kept), with zoom to the cursor and pan shared by every pane. Where the
// framebuffer is a texture (headless) the panes are written by a compute pass of the same shader, else
// drawn as a fullscreen triangle: on GPUs that shade fragments on a few SMs only (the H100) the compute
// pass is 15-20x faster.
#pragma once
#include <algorithm>
#include <vector>

#include "app/gui/app_state.hpp"
#include "app/gui/viewer_texture.hpp"

namespace satlab::gui {

// One view in the image area, in window coordinates from the area's left edge: the image is fit into
// [x, x + w) across the area's full height, and only the columns [clip0, clip1) are painted.
struct Pane {
  View view;
  float x, w, clip0, clip1;
};
// The panes of an image area `width` wide: the view alone, or compare_view left of the divider and view
// right of it (Split: both fit the whole area, so the wipe lines up), or in two halves (SideBySide).
std::vector<Pane> panes(const AppState& s, float width);
// The pane that paints window x (x from the image area's left edge); nullptr outside all.
const Pane* pane_at(const std::vector<Pane>& panes, float x);

class Viewer {
 public:
  Viewer();  // compiles the shaders; throws satlab::Error with the GL log
  ~Viewer();
  Viewer(const Viewer&) = delete;
  Viewer& operator=(const Viewer&) = delete;

  // The texture that holds `view`; the session fills it (Session::show).
  ViewerTexture& texture(View view) { return textures_[int(view)]; }
  // The image size fixes the fit (and aspect) of every view.
  void set_image_size(int width, int height) { image_w_ = width, image_h_ = height; }
  // Set by a device-side writer of the result (CUDA-GL interop); empty: host uploads only.
  ExternalWriter external_writer;

  // Draws the panes into an image area `height` tall at the framebuffer's top left; window coordinates
  // times fb_scale are framebuffer pixels. Colour maps follow s (CoC scale, largest difference, SAT mode).
  // Every framebuffer pixel is written (the background outside the image area), so no clear is needed.
  void draw(const AppState& s, const std::vector<Pane>& panes, float height, float fb_scale, int fb_width,
            int fb_height);
  // Whether a framebuffer texture may be written by the compute pass (default yes); the app turns it off
  // on software GL, where the compute pass is the slow one, and with --viewer-pass fragment.
  void allow_compute_pass(bool allow) { allow_compute_ = allow; }
  // How the last draw reached the framebuffer, for the backend panel: "compute pass" or "fragment pass".
  const char* pass_name() const {
    return compute_target_ ? "compute pass into the framebuffer texture" : "fragment pass";
  }

  // A strip of the colour map of s.view (texture of 256 x 1; 0 for views without one), for legends:
  // depth 0 (near) .. 1 (far), CoC -max (far) .. 0 .. +max (near), difference 0 .. largest, log SAT.
  unsigned legend_texture(const AppState& s) const;

  // Zoom by `factor` keeping the image point under (mx, my) fixed; pan by pixels; both in framebuffer
  // pixels from the top left of a pane as last drawn.
  void zoom_at(float factor, float mx, float my);
  void pan(float dx, float dy);
  void reset_view() { zoom_ = 1.f, pan_x_ = pan_y_ = 0.f; }  // fit: the whole image in its pane
  // 100%: one image pixel per framebuffer pixel, about the pane's centre.
  void actual_size() {
    const float f = fit_scale();
    if (f > 0.f) zoom_ = std::min(std::max(1.f / f, 0.1f), 64.f), pan_x_ = pan_y_ = 0.f;
  }
  float zoom() const { return zoom_; }  // relative to fit
  // Framebuffer pixels per image pixel at fit (0 before the first draw), and as drawn now.
  float fit_scale() const {
    if (image_w_ <= 0 || image_h_ <= 0 || region_w_ <= 0 || region_h_ <= 0) return 0.f;
    return std::min(float(region_w_) / float(image_w_), float(region_h_) / float(image_h_));
  }
  float pixel_scale() const { return fit_scale() * zoom_; }
  // The image pixel under pane point (mx, my), false when outside the image.
  bool pixel_at(float mx, float my, int* px, int* py) const;
  // The image pixels the last draw showed in a pane, and its screen pixels per image pixel; false before
  // the first draw (or when no pixel of the image is in sight).
  bool visible_pixels(PixelRect* visible, double* display_scale) const;

 private:
  struct Rect {
    float u0, v0, du, dv;
  };
  // A linked view program and its uniforms (shaders/view.frag as fragment or compute stage).
  struct Program {
    unsigned id = 0;
    int mode = -1, scale = -1, uv_rect = -1, background = -1, legend = -1, clip = -1, from_buffer = -1,
        buffer_size = -1, nearest = -1, region = -1;
    void locate();
  };
  Rect visible_rect() const;  // image uv shown across a pane
  void render_legend(ViewerTexture& target, int mode);
  // Paints framebuffer pixels [x, x + w) x [y, y + h) (GL's lower-left origin) through the bound program:
  // the pane's view where `t` is set, the background otherwise.
  void paint(int x, int y, int w, int h, ViewerTexture* t, const Rect& r, int mode, float scale, float clip0,
             float clip1);
  unsigned target_texture() const;  // the draw framebuffer's RGBA8 colour texture, 0 when there is none
  Program fragment_, compute_;
  unsigned vao_ = 0, compute_target_ = 0;
  bool allow_compute_ = true;
  using F = ViewerTexture::Format;
  ViewerTexture depth_legend_{F::Rgba8}, coc_legend_{F::Rgba8}, diff_legend_{F::Rgba8};
  // Indexed by View: result, input, depth, coc, sat, diff, raw depth, truth.
  ViewerTexture textures_[kViewCount] = {ViewerTexture(F::Rgba8), ViewerTexture(F::Rgba8),
                                         ViewerTexture(F::R32f),  ViewerTexture(F::R32f),
                                         ViewerTexture(F::Rgba8), ViewerTexture(F::R32f),
                                         ViewerTexture(F::R32f),  ViewerTexture(F::Rgba8)};
  int image_w_ = 1, image_h_ = 1;
  int region_w_ = 1, region_h_ = 1;               // of a pane, framebuffer pixels
  bool drawn_ = false;                            // region_w_, region_h_ are a pane's
  float zoom_ = 1.f, pan_x_ = 0.f, pan_y_ = 0.f;  // pan in framebuffer pixels
};

}  // namespace satlab::gui
