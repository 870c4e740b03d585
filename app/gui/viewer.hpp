// Draws the pipeline's images with the shaders from shaders/: colour views (result, input) from the RGBA8
// texture, depth and CoC from the R32F texture through colour maps. Fits the image to its region
// (aspect kept), with zoom to the cursor and pan.
#pragma once
#include "app/gui/app_state.hpp"
#include "app/gui/viewer_texture.hpp"

namespace satlab::gui {

class Viewer {
 public:
  Viewer();  // compiles the shaders; throws satlab::Error with the GL log
  ~Viewer();
  Viewer(const Viewer&) = delete;
  Viewer& operator=(const Viewer&) = delete;

  // The colour texture fixes the image size (and aspect) for every view.
  ViewerTexture& colour() { return colour_; }
  ViewerTexture& scalar() { return scalar_; }
  // Set by a device-side writer of the result (CUDA-GL interop); empty: host uploads only.
  ExternalWriter external_writer;

  // Draws `view` into the framebuffer region (x, y, w, h) in pixels, y from the top of a framebuffer
  // `fb_height` tall. CoC values are multiplied by coc_scale (1 / max radius) before the colour map.
  void draw(View view, int x, int y, int w, int h, int fb_height, float coc_scale);

  // A strip of the colour map of the depth or CoC view (texture of 256 x 1; 0 for other views), for
  // legends: depth 0 (near) .. 1 (far) and CoC -max (far) .. 0 .. +max (near), left to right.
  unsigned legend_texture(View view) const;

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
  unsigned program_ = 0, vao_ = 0;
  int loc_mode_ = -1, loc_coc_scale_ = -1, loc_uv_rect_ = -1, loc_background_ = -1, loc_legend_ = -1;
  ViewerTexture depth_legend_{ViewerTexture::Format::Rgba8};
  ViewerTexture coc_legend_{ViewerTexture::Format::Rgba8};
  void render_legend(ViewerTexture& target, int mode);
  ViewerTexture colour_{ViewerTexture::Format::Rgba8};
  ViewerTexture scalar_{ViewerTexture::Format::R32f};
  int region_w_ = 1, region_h_ = 1;
  float zoom_ = 1.f, pan_x_ = 0.f, pan_y_ = 0.f;  // pan in region pixels
};

}  // namespace satlab::gui
