#include "app/gui/result_writer.hpp"

#include <cstdio>

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
    impl->writer->write(t.texture(), t.width(), t.height(), result, stream);
    char timing[96];
    std::snprintf(timing, sizeof(timing), " (map %.3f, write %.3f, unmap %.3f ms)", impl->writer->map_ms,
                  impl->writer->write_ms, impl->writer->unmap_ms);
    s.display_path = impl->writer->interop() ? std::string("CUDA-GL interop, no host copy") + timing
                                             : "host copy: " + impl->writer->fallback_reason();
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
