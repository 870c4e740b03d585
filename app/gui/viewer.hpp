// Draws the pipeline's images with the shaders from shaders/: colour views (result, input) from an RGBA8
// texture, depth and CoC from an R32F texture through colour maps. Fits the image to its region with
// zoom (to the cursor) and pan. The colour texture is the one an external writer (CUDA-GL interop) may
// fill directly: colour_texture() / resize_colour().
#pragma once
#include <cstdint>

#include "app/gui/app_state.hpp"
#include "core/image.hpp"

namespace satlab::gui {

class Viewer {
 public:
  Viewer();  // compiles the shaders; throws satlab::Error with the GL log
  ~Viewer();
  Viewer(const Viewer&) = delete;
  Viewer& operator=(const Viewer&) = delete;

  void upload_colour(const ImageRGBA8& image);
  void upload_scalar(const ImageF& image);
  // Allocates the colour texture at this size without uploading (for an external writer).
  void resize_colour(int width, int height);
  unsigned colour_texture() const { return colour_tex_; }

  // Draws `view` into the framebuffer region (x, y, w, h) in pixels, y from the top of a framebuffer
  // `fb_height` tall. Scalars are scaled by coc_scale for the CoC view.
  void draw(View view, int x, int y, int w, int h, int fb_height, float coc_scale);

  // Zoom by `factor` keeping the image point under (mx, my) (region pixels) fixed; pan by pixels.
  void zoom_at(float factor, float mx, float my);
  void pan(float dx, float dy);
  void reset_view() { zoom_ = 1.f, pan_x_ = pan_y_ = 0.f; }
  float zoom() const { return zoom_; }
  // The image pixel under region point (mx, my), false when outside the image.
  bool pixel_at(float mx, float my, int* px, int* py) const;

 private:
  struct Rect {
    float u0, v0, du, dv;
  };
  Rect visible_rect() const;  // image uv shown across the region
  unsigned program_ = 0, vao_ = 0, colour_tex_ = 0, scalar_tex_ = 0;
  int colour_w_ = 0, colour_h_ = 0, scalar_w_ = 0, scalar_h_ = 0;
  int region_w_ = 1, region_h_ = 1;
  float zoom_ = 1.f, pan_x_ = 0.f, pan_y_ = 0.f;  // pan in region pixels
};

}  // namespace satlab::gui
