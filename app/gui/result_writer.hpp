// Puts the result on screen without a host round trip where it can: a backend that keeps its result on
// the GPU copies it into a GL buffer on CUDA memory that the viewer's shader reads (gpu/interop's
// BufferWriter, no per-frame map); where GL cannot import CUDA memory, into the viewer's texture through
// a mapped CUDA-GL resource (TextureWriter); anything else, or a GL without interop, takes the host
// upload. What happened is shown in the backend panel, and the write (and map, unmap) times go into the
// timings table as stages of their own.
#pragma once
#include <memory>

#include "app/gui/app_state.hpp"
#include "app/gui/session.hpp"
#include "app/gui/viewer.hpp"

namespace satlab::gui {

class ResultWriter {
 public:
  ResultWriter(AppState& s, Session& session, Viewer& viewer);  // installs viewer.external_writer
  ~ResultWriter();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace satlab::gui
