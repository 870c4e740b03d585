// Puts the result on screen without a host round trip where it can: a backend that keeps its result on
// the GPU is written into the viewer's texture through CUDA-GL interop (gpu/interop); anything else, or
// a GL without interop, takes the host upload. What happened is shown in the backend panel, and the
// map, write and unmap times go into the timings table as stages of their own.
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
