// Temporal depth filtering for clips (issue 45): frame-to-frame depth noise (a phone's, stereo's, a
// refiner's) makes the blur flicker, since satlab's rendering is deterministic and follows the depth. The
// filter keeps a running depth per pixel and moves it toward each new frame's depth by a weight that
// falls where the pixel's colour changed (something moved there) or its new depth is far from the
// running one (a depth edge arrived): noise is averaged over the last few frames where the scene is
// still, and a moving object's depth is taken at once, never dragged behind it (after the gated
// recursive filters of Lang et al., "Practical temporal consistency for image-based graphics
// applications", SIGGRAPH 2012).
//
// Per pixel, with D the running depth, d the new depth, c and c' the new and previous colours (RGB):
//   w = history * g(|d - D|, depth_sigma * span) * g(|c - c'|, colour_sigma),  g(x, s) = (s^2 / (s^2 + x^2))^2
//   D <- d + w (D - d)
// span: the depth range of the first frame. The first frame, and NaN on either side, take d as it is.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/hd.hpp"
#include "core/image.hpp"

namespace satlab {

struct TemporalParams {
  float history = 0.9f;       // the weight of the running depth where nothing changed (about 1/(1-h) frames)
  float depth_sigma = 0.2f;   // the depth gate, a fraction of the depth's range
  float colour_sigma = 12.f;  // the colour gate, 8-bit units (Euclidean over R, G, B)
};

namespace temporal {
SATLAB_HD float gate(float x2, float s2) {
  const float g = s2 / (s2 + x2);
  return g * g;
}
// One pixel's step (no FMA contraction: the GPU version compiles this with -fmad=false).
SATLAB_HD float step(float running, float d, const uint8_t* c, const uint8_t* prev, float depth_s2,
                            float colour_s2, float history) {
  if (!(running == running) || !(d == d)) return d;
  const float dd = d - running;
  float dc2 = 0.f;
  for (int k = 0; k < 3; ++k) {
    const float e = float(int(c[k]) - int(prev[k]));
    dc2 = dc2 + e * e;
  }
  const float w = history * gate(dd * dd, depth_s2) * gate(dc2, colour_s2);
  return d + w * (running - d);
}
}  // namespace temporal

// The filter's state across a clip's frames (CPU reference).
class TemporalFilter {
 public:
  explicit TemporalFilter(TemporalParams p = {}) : p_(p) {}
  // depth (W x H, 1 channel) filtered in place, given the frame's image (W x H RGBA). A frame of another
  // size starts over.
  void apply(ImageF& depth, const ImageRGBA8& image, int threads = 0);
  void reset() { running_ = ImageF(), prev_.clear(); }
  float span() const { return span_; }
  const TemporalParams& params() const { return p_; }

 private:
  TemporalParams p_;
  ImageF running_;
  std::vector<uint8_t> prev_;  // the previous frame's RGB
  float span_ = 0.f;
};

// The filters by id (`render --temporal`): "off", "gated" (the above, the default for noisy depth).
const std::vector<std::string>& temporal_filter_names();
// The family's rows (the GPU registers one variant each, bound by name): gated.
struct TemporalRow {
  const char* name;
  const char* label;
  const char* source;
};
const std::vector<TemporalRow>& temporal_rows();
// The gates' squared scales for a depth of range `span` (the first frame's).
inline float temporal_depth_s2(const TemporalParams& p, float span) {
  const float ds = p.depth_sigma * span;
  return ds * ds;
}
inline float temporal_colour_s2(const TemporalParams& p) { return p.colour_sigma * p.colour_sigma; }
// The range of a depth map's finite values (1 where it has none or one value).
float depth_span(const ImageF& depth);
// "off" | "gated[:history=H,depth=S,colour=C]" -> whether to filter and with what (unnamed keys: the
// defaults). Throws satlab::Error naming the bad part.
bool parse_temporal(const std::string& spec, TemporalParams* p);

}  // namespace satlab
