#include "app/gui/export_stream.hpp"

#include <chrono>
#include <cstdio>
#include <cstring>

#include "app/cli/render_stream.hpp"
#include "app/io/image_io.hpp"
#include "app/io/reduced_read.hpp"
#include "app/io/stream_io.hpp"
#include "app/ops/backend_choice.hpp"
#include "app/ops/memory_budget.hpp"
#include "core/error.hpp"
#include "core/tiled.hpp"

namespace satlab::gui {

StreamExport::StreamExport(Request r) : request_(std::move(r)) {
  if (request_.image) rows_total_ = uint64_t(request_.image->height);
  thread_ = std::thread([this] { run(); });
}

StreamExport::~StreamExport() {
  cancel();
  wait();
}

void StreamExport::wait() {
  if (thread_.joinable()) thread_.join();
}

void StreamExport::run() {
  const auto t0 = std::chrono::steady_clock::now();
  try {
    const Request& r = request_;
    std::unique_ptr<io::ImageReader> reader;
    if (!r.image) reader = io::open_srgb_reader(r.file);  // the header; rows as the bands ask
    if (r.image && r.image->empty()) throw Error("nothing to export: no image");
    const uint32_t w = r.image ? uint32_t(r.image->width) : reader->header().width;
    const uint32_t h = r.image ? uint32_t(r.image->height) : reader->header().height;
    rows_total_ = h;
    const ImageF* depth = r.depth && !r.depth->empty() ? r.depth.get() : nullptr;
    if (depth && (depth->width != int(w) || depth->height != int(h) || depth->channels != 1))
      throw Error("the depth in use is not of the image's size");
    const bool synthetic = reader && r.synthetic.mode != SyntheticDepth::Mode::None;
    const bool gpu = choose_backend(r.backend).gpu;
    const int workers = gpu ? 2 : 1;  // as `satlab render`: one tile's copies overlap another's kernels
    // The image and depth are in memory already: the tiles' buffers take what is left of the budget.
    const size_t budget = default_memory_budget(gpu);
    const uint64_t held = std::min<uint64_t>(resident_bytes(), budget / 2);  // the app's own, at most half
    const TilePlan plan = plan_tiles(w, h, r.params, size_t(budget - held), gpu, r.max_tile, workers);
    const bool whole = !r.stream && cli::whole_image_refusal(w, h, gpu, budget).empty();

    RowSource source;
    source.width = w, source.height = h;
    source.read = [&](uint32_t y0, uint32_t y1, uint8_t* rgba8, size_t stride) {
      if (reader) return reader->read_rows(y0, y1, rgba8, stride);
      for (uint32_t y = y0; y < y1; ++y)
        std::memcpy(rgba8 + size_t(y - y0) * stride, r.image->px(0, int(y)), size_t(w) * 4);
    };
    DepthRowSource depth_source;
    depth_source.width = w, depth_source.height = h;
    if (synthetic) {
      depth_source.read = [&](uint32_t y0, uint32_t y1, float* d, size_t stride) {
        synthetic_depth_rows(r.synthetic, int(w), int(h), int(y0), int(y1), d, stride);
      };
      depth_source.known_stats = [&] { return synthetic_frame_stats(r.synthetic, int(w), int(h)); };
    }
    if (depth)
      depth_source.read = [&](uint32_t y0, uint32_t y1, float* d, size_t stride) {
        for (uint32_t y = y0; y < y1; ++y)
          std::memcpy(d + size_t(y - y0) * stride, depth->data.data() + size_t(y) * w,
                      size_t(w) * sizeof(float));
      };
    io::StreamSpec spec;
    spec.width = w, spec.height = h;
    spec.channels = 4;
    std::unique_ptr<io::ImageWriter> writer;
    ImageRGBA8 result;
    uint32_t rows = 0;
    if (whole)
      result = ImageRGBA8(int(w), int(h));
    else
      writer = io::open_image_writer(r.path, spec);
    RowSink sink;
    sink.write = [&](uint32_t n, const uint8_t* rgba8, size_t stride) {
      if (writer) return writer->write_rows(n, rgba8, stride);
      for (uint32_t i = 0; i < n; ++i, ++rows)
        std::memcpy(result.px(0, int(rows)), rgba8 + size_t(i) * stride, size_t(w) * 4);
    };
    std::string backend_name;
    const auto make_pipeline = [&]() {
      std::unique_ptr<Pipeline> pipe = make_backend(r.backend);
      pipe->set_algorithms(r.algorithms);
      if (backend_name.empty()) backend_name = pipe->backend_name();
      return pipe;
    };
    const TiledReport report =
        run_tiled(source, depth || synthetic ? &depth_source : nullptr, r.params, plan, make_pipeline, sink,
                  workers, [&](const TiledProgress& t) {
                    rows_done_ = t.rows_done;
                    if (r.band_delay_ms > 0 && t.rows_done < t.rows_total)
                      std::this_thread::sleep_for(std::chrono::milliseconds(r.band_delay_ms));
                    return !cancel_;
                  });
    if (cancel_) throw Error("cancelled");  // after the last band: still no file
    if (writer)
      writer->finish();
    else
      io::save_image(r.path, result);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    char buf[256];
    std::snprintf(buf, sizeof(buf), "%ux%u in %llu tiles of %ux%u + halo %u, %s, %s, %.2f s%s", w, h,
                  static_cast<unsigned long long>(report.tiles), plan.tile_width, plan.tile_height, plan.halo,
                  backend_name.c_str(), whole ? "written whole" : "written by rows", s,
                  report.exact ? "" : " (more highlights than the cap: may differ from the full frame)");
    summary_ = buf;
  } catch (const std::exception& e) {
    cancelled_ = cancel_.load();
    if (!cancelled_) error_ = e.what()[0] ? e.what() : "unknown error";
  } catch (...) {
    cancelled_ = cancel_.load();
    if (!cancelled_) error_ = "unknown error";
  }
  done_ = true;
}

}  // namespace satlab::gui
