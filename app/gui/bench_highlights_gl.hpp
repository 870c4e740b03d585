// The bench rows of the GL splat of bokeh highlights against the CUDA row splat, in one run
// (`satlab bench sat --pipeline-only`, rows highlights_gl.*; docs/performance.md, "Bokeh highlights").
#pragma once
#include <string>
#include <vector>

namespace satlab::gui {

struct HighlightBenchRow {
  std::string name, note;
  double ms = 0;
};

// Cases at width x height: the pipeline bench's frames (64k and 16k lights, tilted-plane depth,
// gather_linear) and a radius sweep (64k lights, every sprite of radius 4, 16 or 64, half far, half near).
// Per case, medians of `runs` after `warmup` of each phase: the CUDA path's compact, sort, splat, add
// (CUDA events) and the GL path's records, handover (shared and mapped), clear and draw (GL_TIME_ELAPSED)
// into RGBA32F and RGBA16F targets. Needs a CUDA device and a headless OpenGL 4.5 context; where either is
// missing, one row says why.
std::vector<HighlightBenchRow> bench_highlights_gl(int width, int height, int warmup, int runs);

}  // namespace satlab::gui
