// Bokeh highlights splatted by GL: the alternative to the CUDA row splat (core/highlights.hpp), measured
// against it (`satlab bench sat --pipeline-only`, rows highlights_gl.*; docs/performance.md, "Bokeh
// highlights") and not used by the app's frame. It draws a buffer of sprite records
// (core/highlight_sprite.hpp: a header of two indirect draw commands, then one 32-byte record per sorted
// sprite) as instanced quads, one per sprite over its aperture's bounding square; the fragment shader keeps
// the aperture's rectangles' pixels (the same table as the CUDA path, as a storage buffer) and additive
// blending (GL_ONE, GL_ONE) sums each sprite's energy and a coverage count into one of two float targets: the
// far sprites (the first draw command) into the far target, the near ones into the near target. Needs a
// current OpenGL 4.5 core context.
#pragma once
#include <vector>

#include "core/dof.hpp"

namespace satlab::gui {

class GlHighlightSplat {
 public:
  GlHighlightSplat();  // compiles shaders/highlight_splat.*; throws satlab::Error
  ~GlHighlightSplat();
  GlHighlightSplat(const GlHighlightSplat&) = delete;
  GlHighlightSplat& operator=(const GlHighlightSplat&) = delete;

  void set_aperture(const ApertureTable& t);
  // The two targets (far, near), width x height, RGBA32F or (half) RGBA16F; made again when these change.
  void set_target(int width, int height, bool half);
  void clear();  // both targets to 0
  // Draws the records in GL buffer `buffer` (header at offset 0, records after it) with
  // glDrawArraysIndirect: the sprite counts never come back to the host.
  void draw(unsigned buffer);
  // Bench only: false draws every pixel of the sprites' bounding squares (no aperture test), to show
  // what the raster and blend cost alone. Default true.
  void set_aperture_test(bool on) { aperture_test_ = on; }
  // A target's texels, RGBA, row y = image row y: width * height * 4 floats.
  std::vector<float> read(int slice) const;
  // GPU time of the last clear() and draw() (GL_TIME_ELAPSED; waits for the results).
  double clear_ms() const;
  double draw_ms() const;

 private:
  unsigned program_ = 0, vao_ = 0, rects_ = 0, counts_ = 0, queries_[2] = {};
  unsigned tex_[2] = {}, fbo_[2] = {};
  int width_ = 0, height_ = 0, size_loc_ = -1, test_loc_ = -1;
  bool aperture_test_ = true;
  bool half_ = false;
};

}  // namespace satlab::gui
