// satlab render's clip path: a video or an image sequence in, one out (app/io/clip.hpp). Frames are
// decoded ahead on their own thread while the filter works; each frame takes its depth from a depth clip
// (matched by time), a stereo pair (a right clip, or both views side by side or top and bottom in each
// frame: the left view is rendered), one depth map for every frame, or the synthetic depth (made again
// each frame where keys move it), refined to the frame's size as a still's is; its parameters come from
// the keys (core/timeline.hpp) at its time. The app's export runs the same function.
#pragma once
#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "core/params.hpp"
#include "core/pipeline.hpp"
#include "core/synthetic_depth.hpp"
#include "core/timeline.hpp"

namespace satlab::cli {

// What a clip's render measured (host clock, summed over its frames; `satlab bench video` reads it).
struct ClipStats {
  long long frames = 0, replaced = 0;
  double wall_ms = 0;          // the whole render, opening included
  double decode_ms = 0;        // waiting for the decoder (it decodes ahead on its own thread)
  double depth_ms = 0;         // the frame's depth: a depth clip's frame refined and filtered, stereo, synthetic
  double filter_ms = 0;        // the pipeline: upload, run, download of the result
  double encode_ms = 0;        // the writer, on a thread of its own (overlapping the next frames)
  double encode_wait_ms = 0;   // the loop waiting for the writer (a free buffer)
  double pipeline_ms = 0;      // the pipeline's own stage times (GPU: CUDA events), upload excluded, warm frames
  long long warm = 0;          // frames in pipeline_ms
  std::string refiner, backend;
};

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
  std::string right;              // the right views: a clip of as many frames (depth from stereo)
  std::string stereo;             // "sbs" | "tb": each frame holds both views, left (top) first; "": no
  bool skip_bad_frames = false;   // a frame that does not decode repeats the last good one (counted)
  // The video decoder (app/ops/clip_decoder.hpp): auto (NVDEC into the GPU pipeline where the frames need
  // not come to the host), cpu, nvdec.
  std::string decoder = "auto";
  // The app's export: polled between frames (set: the render stops, leaving nothing), and told of every
  // frame written (frames done, frames in all or -1 where unknown).
  const std::atomic<bool>* cancel = nullptr;
  std::function<void(long long done, long long total)> on_frame;
  ClipStats* stats = nullptr;  // filled when done
};

// Renders the clip; throws satlab::Error (one line) leaving no output (a cancel: "cancelled"). Returns the
// summary line's text.
std::string render_clip(const ClipRequest& r, const Params& p);

// "A:B" (either side may be empty) -> [first, last); throws satlab::Error.
void parse_frame_range(const std::string& spec, long long* first, long long* last);

}  // namespace satlab::cli
