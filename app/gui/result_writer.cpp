#include "app/gui/result_writer.hpp"

#ifdef SATLAB_HAVE_INTEROP
#include <cstdlib>
#include <string>

#include "gpu/interop/buffer_writer.hpp"
#include "gpu/interop/texture_writer.hpp"
#endif

namespace satlab::gui {

#ifdef SATLAB_HAVE_INTEROP
namespace {

// SATLAB_INTEROP=texture skips the shared buffer: the user's switch (README) for a driver that accepts it
// but draws it wrong, and a way to measure the mapped-texture path against it.
bool buffer_allowed() {
  const char* e = std::getenv("SATLAB_INTEROP");
  return !(e && std::string(e) == "texture");
}

}  // namespace

// The shared buffer first (no per-frame map); where it is unavailable, the mapped texture; where that
// fails too, TextureWriter's own host copy.
struct ResultWriter::Impl {
  std::unique_ptr<gpu::BufferWriter> buffer;
  std::unique_ptr<gpu::TextureWriter> writer;
  unsigned generation = ~0u;
};

ResultWriter::ResultWriter(AppState& s, Session& session, Viewer& viewer) : impl_(std::make_unique<Impl>()) {
  if (buffer_allowed()) impl_->buffer = std::make_unique<gpu::BufferWriter>();
  viewer.external_writer = [&s, &session, impl = impl_.get()](ViewerTexture& t) {
    void* stream = nullptr;
    const void* result = session.pipeline().device_result(&stream);
    if (!result) {
      s.display_path = "host upload (the backend keeps its result on the host)";
      return false;
    }
    const char* clock = "host time of the call (asynchronous: the GPU work is not in it)";
    if (impl->buffer) t.wait_for_reads();  // the last frame's draw may still read the shared buffer
    if (impl->buffer && impl->buffer->write(t.width(), t.height(), result, stream)) {
      t.set_pixel_buffer(impl->buffer->buffer());
      // The copy apart from the wait before it: the wait is the pipeline's kernels finishing, which their
      // stages time already. No GB/s: the result may still sit in L2, so its bytes need not cross DRAM.
      s.record_stage({"wait for GPU", impl->buffer->wait_ms, 0, ""},
                     "host clock: until the pipeline's kernels queued before the copy had finished",
                     "host time waiting for the pipeline's kernels, which their stages time");
      s.record_stage({"write", impl->buffer->write_ms, 0, ""},
                     "CUDA events around the copy into the shared buffer (they start once the pipeline's "
                     "kernels have finished)");
      s.display_path =
          "CUDA-GL interop through a shared buffer (CUDA memory imported by GL, read by the viewer's "
          "shader): no map, no host copy";
      return true;
    }
    const std::string buffer_why = impl->buffer ? impl->buffer->fallback_reason() : "SATLAB_INTEROP=texture";
    t.set_pixel_buffer(0);
    if (!impl->writer || impl->generation != t.generation()) {  // a new texture: register it afresh
      impl->writer = std::make_unique<gpu::TextureWriter>();
      impl->generation = t.generation();
    }
    const gpu::TextureWriter& w = *impl->writer;
    impl->writer->write(t.texture(), t.width(), t.height(), result, stream);
    // Host time of each call (map waits for GL, unmap orders the write before GL's next use); the
    // write kernel's own GPU time lands in whatever waits for it next (the draw).
    // No bytes (no GB/s) for any of them: host times say nothing of the GPU's copy.
    if (w.interop()) {
      s.record_stage({"map", w.map_ms, 0, ""}, clock);
      s.record_stage({"write", w.write_ms, 0, ""}, clock);
      s.record_stage({"unmap", w.unmap_ms, 0, ""}, clock);
      s.display_path = "CUDA-GL interop, texture mapped per frame (no shared buffer: " + buffer_why + ")";
    } else {
      // Its download waits for the pipeline's kernels first, which their stages time already: in no total.
      s.record_stage({"write", w.write_ms, 0, ""},
                     "host time of download + glTexSubImage2D, the wait for the pipeline's kernels included",
                     "it holds the wait for the pipeline's kernels, which their stages time");
      s.display_path = "host copy: " + w.fallback_reason();
    }
    return true;
  };
}
#else
struct ResultWriter::Impl {};

ResultWriter::ResultWriter(AppState& s, Session&, Viewer&) : impl_(std::make_unique<Impl>()) {
  s.display_path = "host upload (built without CUDA-GL interop)";
}
#endif

ResultWriter::~ResultWriter() = default;

}  // namespace satlab::gui
