#include "app/gui/result_writer.hpp"

#ifdef SATLAB_HAVE_INTEROP
#include "gpu/interop/texture_writer.hpp"
#endif

namespace satlab::gui {

#ifdef SATLAB_HAVE_INTEROP
struct ResultWriter::Impl {
  std::unique_ptr<gpu::TextureWriter> writer;
  unsigned generation = ~0u;
};

ResultWriter::ResultWriter(AppState& s, Session& session, Viewer& viewer) : impl_(std::make_unique<Impl>()) {
  viewer.external_writer = [&s, &session, impl = impl_.get()](ViewerTexture& t) {
    void* stream = nullptr;
    const void* result = session.pipeline().device_result(&stream);
    if (!result) {
      s.display_path = "host upload (the backend keeps its result on the host)";
      return false;
    }
    if (!impl->writer || impl->generation != t.generation()) {  // a new texture: register it afresh
      impl->writer = std::make_unique<gpu::TextureWriter>();
      impl->generation = t.generation();
    }
    const gpu::TextureWriter& w = *impl->writer;
    impl->writer->write(t.texture(), t.width(), t.height(), result, stream);
    // Host time of each call (map waits for GL, unmap orders the write before GL's next use); the
    // write kernel's own GPU time lands in whatever waits for it next (the draw).
    // No bytes (no GB/s) for the interop calls: their host time says nothing of the GPU's copy.
    const double bytes = 8.0 * double(t.width()) * double(t.height());  // read 4 B, write 4 B per pixel
    const char* clock = "host time of the call (asynchronous: the GPU work is not in it)";
    if (w.interop()) {
      s.record_stage({"map", w.map_ms, 0, ""}, clock);
      s.record_stage({"write", w.write_ms, 0, ""}, clock);
      s.record_stage({"unmap", w.unmap_ms, 0, ""}, clock);
      s.display_path = "CUDA-GL interop, no host copy";
    } else {
      s.record_stage({"write", w.write_ms, bytes, ""}, "host time of download + glTexSubImage2D");
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
