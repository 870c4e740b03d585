// The CUDA side of the GL splat of bokeh highlights (app/gui/highlight_splat_gl.hpp), for its test and the
// bench that measures it against the CUDA row splat: one frame (image, CoC) on the device and, per run,
// both paths' CUDA work on one stream, each phase timed with CUDA events:
//   compact, sort  the highlight pass (gpu/filter/highlights_gpu.hpp), shared by both paths;
//   splat, add     the CUDA path (the kept one): row spans into the fixed-point planes, then added to a
//                  scratch result (which also clears the planes);
//   records        the GL path: the sorted sprites as records (gpu/filter/highlight_records.hpp);
//   handover       the records into a GL buffer, one of two ways:
//                    shared: CUDA memory GL imported once (BufferWriter: no per-frame map), a copy and a
//                            wait for the stream before GL reads;
//                    mapped: a GL buffer registered once with cudaGraphicsGLRegisterBuffer and mapped,
//                            copied into and unmapped every frame.
// Needs a current GL context (the one GL draws in) and a CUDA device.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/highlight_sprite.hpp"
#include "core/highlights.hpp"

namespace satlab::gpu {

class HighlightGlFrame {
 public:
  HighlightGlFrame(const ImageRGBA8& image, const ImageF& coc);  // uploads; throws satlab::Error
  ~HighlightGlFrame();
  HighlightGlFrame(const HighlightGlFrame&) = delete;
  HighlightGlFrame& operator=(const HighlightGlFrame&) = delete;

  struct Times {  // ms, CUDA events
    double compact = 0, sort = 0, splat = 0, add = 0, records = 0, handover = 0;
    double handover_host = 0;  // host wall time of the handover (the shared way waits for the stream)
  };
  // Both paths' CUDA work on `p` (highlights on), then the records handed to GL the `mapped` way or the
  // shared way (where the driver shares memory; else the mapped way). Returns when GL may read
  // gl_buffer().
  Times run(const Params& p, bool mapped);
  unsigned gl_buffer() const { return last_buffer_; }
  // Why the shared way is not available ("" when it is).
  std::string shared_unavailable() const;
  HighlightStats stats() const;                   // of the last run
  std::vector<hl::SpriteRecord> records() const;  // of the last run: header + kept records

 private:
  struct Impl;
  std::unique_ptr<Impl> d_;
  unsigned last_buffer_ = 0;
};

}  // namespace satlab::gpu
