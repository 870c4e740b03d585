// Depth maps made from a few numbers, for images that come without one: a linear gradient (tilt-shift:
// near at one side, far at the other, the focus plane a line across the image) or a radial one (near at
// a centre, far from a radius on). Values are normalised depth in [0,1], 0 near.
#pragma once
#include <cstddef>
#include <string>

#include "core/frame_stats.hpp"
#include "core/image.hpp"

namespace satlab {

struct SyntheticDepth {
  enum class Mode { None, Gradient, Radial };
  Mode mode = Mode::Gradient;
  // Gradient: depth grows along the direction `angle` (degrees, counter-clockwise from +x with y up on
  // screen; 90: near at the bottom, far at the top). The ramp from 0 to 1 is `width` long (a fraction of
  // the image's extent along that direction) and centred at `position` (0 and 1: the image's edges).
  float angle = 90.f;
  float position = 0.5f;
  float width = 1.f;
  // Radial: depth 0 at (centre_x, centre_y) (fractions of width and height), 1 at `radius` and beyond
  // (a fraction of the image's shorter side).
  float centre_x = 0.5f;
  float centre_y = 0.5f;
  float radius = 0.5f;
};

const char* to_string(SyntheticDepth::Mode m);
// Throws satlab::Error naming the first out-of-range field.
void validate(const SyntheticDepth& s);
// "none", "gradient[:angle=A,pos=P,width=W]" or "radial[:x=X,y=Y,radius=R]"; unspecified keys keep
// their defaults. Throws satlab::Error naming the bad key or value.
SyntheticDepth parse_synthetic_depth(const std::string& spec);
// The spec that parses back to `s` (every key of its mode spelled out).
std::string to_spec(const SyntheticDepth& s);
// A width x height depth map; Mode::None gives an empty image (no depth: everything in focus).
ImageF make_synthetic_depth(const SyntheticDepth& s, int width, int height);
// Rows [y0, y1) of the same map (`stride` floats apart), bit for bit, for an image streamed in bands
// (core/tiled.hpp); Mode::None writes nothing.
void synthetic_depth_rows(const SyntheticDepth& s, int width, int height, int y0, int y1, float* out, size_t stride);
// The range and histogram that the statistics passes over the whole map find (core/tiled.hpp's
// depth_frame_stats, bit for bit), from the formula, without making the map: along a row the map is
// monotone (the gradient) or falls then rises (the radial map, about the centre's column), so a row's range
// lies at the ends of its runs and its pixels of one bin are contiguous. A row costs a few evaluations a
// bin it crosses, not one a pixel. Mode::None: valid = false.
FrameStats synthetic_frame_stats(const SyntheticDepth& s, int width, int height, int threads = 0);

}  // namespace satlab
