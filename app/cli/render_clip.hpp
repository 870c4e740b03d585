// satlab render's clip path: a video or an image sequence in, one out (app/io/clip.hpp). Frames are
// decoded ahead on their own thread while the filter works; each frame takes its depth from a depth clip
// (matched by time), one depth map for every frame, or the synthetic depth, refined to the frame's size
// as a still's is; its parameters come from the keys (core/timeline.hpp) at its time.
#pragma once
#include <string>
#include <vector>

#include "core/params.hpp"
#include "core/pipeline.hpp"
#include "core/synthetic_depth.hpp"
#include "core/timeline.hpp"

namespace satlab::cli {

struct ClipRequest {
  std::string input, output;
  std::string depth;             // a depth clip (video or pattern), or one depth map file; "": synthetic
  SyntheticDepth synthetic;
  std::string refine = "auto";
  std::string backend = "auto";
  Algorithms algorithms;
  std::vector<ParamKey> keys;    // empty: the parameters as given, every frame
  long long first = 0, last = -1;  // --frames A:B, 0-based, B exclusive (-1: to the end)
  double fps = 24.0;             // a sequence's rate (a video's is its own)
  std::string codec;             // the output video's encoder ("": by extension)
  int quality = 18;              // its constant-rate factor
  // The temporal depth filter (core/temporal.hpp): auto (gated where a depth clip is refined: a noisy or
  // lower-resolution source; off for exact full-size depth and depth that is the same every frame), off, gated.
  std::string temporal = "auto";
};

// Renders the clip; throws satlab::Error (one line) leaving no output. Returns the summary line's text.
std::string render_clip(const ClipRequest& r, const Params& p);

// "A:B" (either side may be empty) -> [first, last); throws satlab::Error.
void parse_frame_range(const std::string& spec, long long* first, long long* last);

}  // namespace satlab::cli
