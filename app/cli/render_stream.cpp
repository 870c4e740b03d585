#include "app/cli/render_stream.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <vector>

#include "app/cli/progress.hpp"
#include "app/io/format_guard.hpp"
#include "app/io/icc.hpp"
#include "app/io/image_io.hpp"
#include "app/io/output_names.hpp"
#include "app/io/stream_io.hpp"
#include "app/ops/backend_choice.hpp"
#include "app/ops/memory_budget.hpp"
#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/refine.hpp"
#include "core/tiled.hpp"

namespace satlab::cli {
namespace {

// The whole-image path's memory: on the host io::kHostBytesPerPixel (decoded image, depth, the backend's
// copies, SAT, result); on the GPU the backend's buffers (image, SAT, result, depth, normalised depth, CoC)
// and its fixed scratch. The CPU backend takes at most 2^28 pixels whole (core/cpu_pipeline.cpp).
constexpr uint64_t kGpuBytesPerPixel = 36, kGpuFixedBytes = uint64_t(64) << 20;
constexpr uint64_t kCpuWholePixels = uint64_t(1) << 28;
// What a process using the GPU holds on the host beyond its buffers (the CUDA runtime and context): an
// estimate, kept out of the executor's share of the budget.
constexpr uint64_t kGpuContextHostBytes = uint64_t(256) << 20;
// Depth files are read this many rows at a time into a buffer of their own.
constexpr uint32_t kDepthChunkRows = 16;

void note(const std::string& what) {
  std::fprintf(stderr, "satlab: note: %s\n", what.c_str());
}

std::string size_text(uint64_t w, uint64_t h) {
  return std::to_string(w) + "x" + std::to_string(h);
}

// The image by rows, colour converted as the whole-image loader converts it (its ICC profile to sRGB).
// The orientation is not applied: a file that has one is refused (turning needs rows in another order).
class ImageRows {
 public:
  // `threads`: TIFF rows decoded by that many readers at once (io::open_image_reader).
  ImageRows(const std::string& path, int threads)
      : path_(path), reader_(io::open_image_reader(path, threads)) {
    io::check_pixel_limit(path, header().width, header().height);
  }
  // Before the first rows: refuses what streaming cannot apply, sets up what it can.
  void prepare() {
    const io::StreamHeader& hd = reader_->header();
    if (hd.orientation >= 2 && hd.orientation <= 8)
      throw Error(path_ + ": its orientation tag (" + std::to_string(hd.orientation) +
                  ") turns the image, which streaming does not do: remove the tag or render it whole");
    if (!hd.icc.empty()) {
      icc_ = std::make_unique<io::SrgbConverter>(hd.icc);
      notes_.push_back(icc_->why_not().empty() ? "ICC profile converted to sRGB"
                                               : icc_->why_not() + ": colours are shown as if sRGB");
    }
  }
  const io::StreamHeader& header() const { return reader_->header(); }
  void read(uint32_t y0, uint32_t y1, uint8_t* rgba8, size_t stride) {
    reader_->read_rows(y0, y1, rgba8, stride);
    if (icc_)
      for (uint32_t y = y0; y < y1; ++y) icc_->run(rgba8 + size_t(y - y0) * stride, header().width);
  }
  // What was done beside decoding: the reader's notes (CMYK conversion), then the colour profile's.
  std::vector<std::string> notes() const {
    std::vector<std::string> n = reader_->notes();
    n.insert(n.end(), notes_.begin(), notes_.end());
    return n;
  }

 private:
  std::string path_;
  std::unique_ptr<io::ImageReader> reader_;
  std::unique_ptr<io::SrgbConverter> icc_;
  std::vector<std::string> notes_;
};

// Raw depth by rows, as io::load_depth gives it: the first channel of a file in [0,1] (16-bit files at 16
// bits), or the synthetic map. A file is opened again when rows are asked for from the top a second time.
class DepthRows {
 public:
  DepthRows(const std::string& path, uint32_t width, uint32_t height)
      : path_(path), width_(width), height_(height) {
    if (io::row_format(path).empty())
      throw Error(path +
                  ": this depth map's format is read whole; streaming reads depth maps from TIFF, PNG or "
                  "JPEG files of the image's size");
    open();
    const io::StreamHeader& hd = reader_->header();
    if (hd.width != width || hd.height != height)
      throw Error(path + ": depth map is " + size_text(hd.width, hd.height) + " but the image is " +
                  size_text(width, height) +
                  ": streaming takes a depth map of the image's size (resample it, or render the image whole "
                  "with a larger --memory-budget)");
    if (hd.orientation >= 2 && hd.orientation <= 8)
      throw Error(path + ": the depth map's orientation tag (" + std::to_string(hd.orientation) +
                  ") turns it, which streaming does not do");
    // A colour JPEG is read as its luma (libjpeg's grey output), which no RGB row gives back exactly.
    if (hd.format == "JPEG" && hd.channels != 1)
      throw Error(path +
                  ": a colour JPEG depth map is read as its luma, which streaming does not do: save "
                  "it as greyscale");
    // As load_depth: 16-bit samples where the file has them (TIFF: up to 4 channels), else 8 bits.
    deep_ = hd.bits == 16 && (hd.format != "TIFF" || hd.channels <= 4);
  }
  // `threads`: the synthetic map's rows made on that many threads at once.
  DepthRows(const SyntheticDepth& s, uint32_t width, uint32_t height, int threads)
      : synthetic_(true), spec_(s), width_(width), height_(height), threads_(threads) {}

  bool synthetic() const { return synthetic_; }
  // The synthetic map's range and histogram from its formula (no pass over the rows).
  FrameStats synthetic_stats() const { return synthetic_frame_stats(spec_, int(width_), int(height_), threads_); }

  size_t buffer_bytes() const {
    return reader_ ? reader_->header().buffer_bytes + size_t(width_) * kDepthChunkRows * 12 : 0;
  }

  void read(uint32_t y0, uint32_t y1, float* out, size_t stride) {
    if (synthetic_) {
      parallel_for(long(y0), long(y1), [&](long a, long b) {
        synthetic_depth_rows(spec_, int(width_), int(height_), int(a), int(b), out + size_t(a - y0) * stride, stride);
      }, threads_);
      return;
    }
    if (y0 < next_) open();  // the second pass: PNG and JPEG read forward only
    const size_t w = width_;
    rgba8_.resize(w * 4 * kDepthChunkRows);
    if (deep_) rgba16_.resize(w * 4 * kDepthChunkRows);
    for (uint32_t y = y0; y < y1; y += kDepthChunkRows) {
      const uint32_t e = std::min(y1, y + kDepthChunkRows);
      reader_->read_rows(y, e, rgba8_.data(), w * 4, deep_ ? rgba16_.data() : nullptr, w * 4);
      for (uint32_t r = 0; r < e - y; ++r) {
        float* row = out + size_t(y - y0 + r) * stride;
        if (deep_)
          for (size_t x = 0; x < w; ++x) row[x] = float(rgba16_[(r * w + x) * 4]) / 65535.f;
        else
          for (size_t x = 0; x < w; ++x) row[x] = float(rgba8_[(r * w + x) * 4]) / 255.f;
      }
    }
    next_ = y1;
  }

 private:
  void open() {
    reader_.reset();
    reader_ = io::open_image_reader(path_);
    next_ = 0;
  }

  bool synthetic_ = false;
  SyntheticDepth spec_;
  std::string path_;
  uint32_t width_ = 0, height_ = 0, next_ = 0;
  int threads_ = 1;
  bool deep_ = false;
  std::unique_ptr<io::ImageReader> reader_;
  std::vector<uint8_t> rgba8_;
  std::vector<uint16_t> rgba16_;
};

// A row writer's own buffers: a few rows (libpng, libjpeg), or a TIFF strip being gathered and a batch of
// deflated strips (32 of 256 KiB, or of a row where rows are larger).
size_t writer_bytes(uint32_t width) {
  return size_t(width) * 4 * 64 + std::max<size_t>(size_t(9) << 20, size_t(width) * 4 * 33);
}

// "" where streaming `r` gives the bytes the whole-image path gives and can take the whole of it; else
// why not, in words (render_streamed streams by default every image it can).
std::string stream_differs(const StreamRequest& r, const Params& p, const io::StreamHeader& image) {
  if (image.orientation >= 2 && image.orientation <= 8) return "an orientation tag";
  if (const std::string why = tiled_support(p); !why.empty()) return why;
  // TIFF only: the whole-image path writes it through the same row writer (the same file); its PNG and
  // JPEG are encoded whole, with settings of their own.
  if (!io::is_tiff_path(r.output)) return "a result other than TIFF is encoded whole";
  if (p.filter != FilterKind::Dof) return "";
  if (r.depth.empty()) {
    if (image.format == "JPEG") return "a JPEG may hold its own depth map, which only the whole path reads";
    return resolve_refiner(r.refine, DepthOrigin::Synthetic, false) == "none" ? "" : "a depth refiner";
  }
  if (io::row_format(r.depth).empty()) return "a depth map read whole";
  try {
    const io::StreamHeader d = io::open_image_reader(r.depth)->header();
    if (d.width != image.width || d.height != image.height) return "a depth map of another size";
    if (d.orientation >= 2 && d.orientation <= 8) return "a depth map with an orientation tag";
    if (d.format == "JPEG" && d.channels != 1) return "a colour JPEG depth map";
  } catch (const Error& e) {
    return e.what();  // the whole path says it in its own words
  }
  return resolve_refiner(r.refine, DepthOrigin::File, false) == "none" ? "" : "a depth refiner";
}

}  // namespace

std::string whole_image_refusal(uint64_t width, uint64_t height, bool gpu, size_t budget) {
  const uint64_t pixels = width * height;
  if (!gpu && pixels > kCpuWholePixels)
    return "the CPU backend filters at most 2^28 pixels (268.4 Mpx) whole";
  const uint64_t host = pixels * io::kHostBytesPerPixel;
  if (host > budget)
    return "filtering it whole takes about " + format_bytes(host) + ", more than the memory budget of " +
           format_bytes(budget);
  const uint64_t device = pixels * kGpuBytesPerPixel + kGpuFixedBytes;
  if (gpu && device > budget)
    return "filtering it whole takes about " + format_bytes(device) +
           " of GPU memory, more than the memory budget of " + format_bytes(budget);
  return "";
}

std::string render_streamed(const StreamRequest& r, const Params& p, bool force) {
  const auto t0 = std::chrono::steady_clock::now();
  const BackendChoice choice = choose_backend(r.backend);
  const bool gpu = choice.gpu;
  const size_t budget = r.budget ? r.budget : default_memory_budget(gpu);

  // The header, checked; no pixel read yet. On the GPU the host's decoding bounds the run: TIFF rows are
  // decoded on several threads (on the CPU the filter's threads have the cores).
  ImageRows image(r.input, gpu ? io::io_threads() : 1);
  const uint32_t w = image.header().width, h = image.header().height;
  // An image that fits whole streams too wherever that gives the same bytes (8192^2 box: on the CPU a
  // tenth of the time and a fortieth of the memory, on the GPU half the time and a third of the memory;
  // docs/streaming.md), unless --whole.
  const bool needed = force || !whole_image_refusal(w, h, gpu, budget).empty();
  const bool depth_file = p.filter == FilterKind::Dof && !r.depth.empty();
  if (!needed && (r.whole || !stream_differs(r, p, image.header()).empty())) return "";
  // A depth map file is read three times when streaming (range, histogram, bands): measured faster only
  // without one on the GPU, so there it takes the whole-image path unless streaming is needed.
  if (!needed && gpu && depth_file) return "";
  // Streaming by choice, not need: as quiet as the whole-image path (no plan or stage notes).
  const auto say = [&](const std::string& what) {
    if (needed) note(what);
  };
  image.prepare();

  // Depth: a file of the image's size, or the synthetic map; a refiner needs the whole image.
  std::unique_ptr<DepthRows> depth;
  std::string depth_from = "no depth";
  bool sharp = false;  // DoF without any depth
  if (p.filter == FilterKind::Dof) {
    const DepthOrigin origin = r.depth.empty() ? DepthOrigin::Synthetic : DepthOrigin::File;
    const std::string refiner = resolve_refiner(r.refine, origin, false);
    if (refiner != "none")
      throw Error(
          "--refine " + refiner + " needs the whole image and depth map in memory, which a streamed " +
          "image never is: give --refine none (or auto), or a larger --memory-budget to render it whole");
    if (!r.depth.empty()) {
      depth = std::make_unique<DepthRows>(r.depth, w, h);
      depth_from = "depth " + io::file_stem(r.depth);
    } else if (r.synthetic.mode != SyntheticDepth::Mode::None) {
      depth = std::make_unique<DepthRows>(r.synthetic, w, h, gpu ? io::io_threads() : 1);
      depth_from = "synthetic depth " + to_spec(r.synthetic);
    } else {
      sharp = true;  // said below, once this path is sure to render it
    }
    if (r.depth.empty() && image.header().format == "JPEG")
      note(r.input + ": a depth map embedded in the JPEG is not looked for when streaming (give --depth)");
  }
  // Highlights tile exactly while the image has no more of them than the cap: the run reports whether it
  // had (below); any other reason is said now.
  const std::string support = tiled_support(p);
  if (!support.empty() && !(p.filter == FilterKind::Dof && p.highlights))
    note(r.input + ": not tiled exactly (" + support + ")");

  // The executor's share of the budget: what the process holds already, the readers' and the writer's
  // buffers and, on the GPU, the CUDA context stay outside it.
  const uint64_t io_bytes = resident_bytes() + image.header().buffer_bytes +
                            (depth ? depth->buffer_bytes() : 0) + writer_bytes(w) +
                            (gpu ? kGpuContextHostBytes : 0);
  if (io_bytes >= budget && !needed) return "";  // by choice only: the whole-image path takes it
  if (io_bytes >= budget)
    throw Error(r.input + ": a memory budget of " + format_bytes(budget) +
                " is too small: reading and writing " + size_text(w, h) + " by rows takes " +
                format_bytes(io_bytes) + " before any tile" +
                (image.header().buffer_bytes > budget / 2
                     ? " (the reader decodes " + format_bytes(image.header().buffer_bytes) + " at a time)"
                     : ""));
  // Two GPU pipelines: one tile's copies overlap another's kernels. On the CPU a pipeline for every 4
  // hardware threads, each with its share of them: a tile of a few hundred thousand pixels split 16 ways
  // spends its time in the splitting (16 cores, box r 10, 65536^2: 23.5 s busy filtering with one
  // pipeline of 16 threads).
  const int cpu_threads = default_threads();
  int workers = gpu ? 2 : std::max(1, cpu_threads / 4);
  TilePlan plan;
  try {
    plan = plan_tiles(w, h, p, size_t(budget - io_bytes), gpu, r.max_tile, workers);
  } catch (const Error& e) {
    if (!needed) return "";
    throw Error(r.input + ": " + e.what() + ", after the " + format_bytes(io_bytes) +
                " that reading and writing by rows take out of --memory-budget " + format_bytes(budget));
  }
  // By choice on the CPU, only where the halos add little work (the GPU has time for them: 4000x3000
  // spread at max radius 24 streamed in 0.53-0.56 s against 0.55-0.57 whole on the H200 machine). On 2
  // cores the whole-image path filters 8192^2 box r 10 twelve times slower per pixel than tiles (1.12x the
  // pixels with their halos: 0.71 against 7.96 s); at 4000x3000 gather_box (1.30x) 0.58 against 2.09 s,
  // layered at max radius 8 (1.33x) 6.71 against 7.25, spread at 8 (1.34x) 7.10 against 7.37, but spread
  // at 12 (1.49x) 8.53 against 7.52 and at 24 (1.72x) 9.26 against 7.54 (docs/streaming.md).
  constexpr double kChosenWork = 1.35;
  const auto chosen_work = [&] { return double(plan.frame_pixels) <= kChosenWork * double(w) * double(h); };
  // One pipeline's plan needs no tile per pipeline across a band: planned again with one before giving up.
  if (!needed && !gpu && !chosen_work() && workers > 1) {
    workers = 1;
    try {
      plan = plan_tiles(w, h, p, size_t(budget - io_bytes), gpu, r.max_tile, workers);
    } catch (const Error&) {
      return "";
    }
  }
  if (!needed && !gpu && !chosen_work()) return "";
  // No more CPU pipelines than tiles across a band (each with its share of the threads).
  if (!gpu) {
    const uint64_t across = (uint64_t(w) + plan.tile_width - 1) / plan.tile_width;
    workers = int(std::min<uint64_t>(uint64_t(workers), across));
  }
  if (sharp) note("no depth map for " + r.input + ": the dof filter keeps the image sharp");
  io::StreamSpec spec;
  spec.width = w, spec.height = h;
  spec.channels = io::is_tiff_path(r.output) ? io::result_channels(image.header()) : 4;
  spec.compress = r.compress;
  std::unique_ptr<io::ImageWriter> writer = io::open_image_writer(r.output, spec);

  say("streaming " + r.input + " (" + size_text(w, h) + ") in tiles of " +
       size_text(plan.tile_width, plan.tile_height) + " with a halo of " + std::to_string(plan.halo) +
       ": memory budget " + format_bytes(budget) + " (tiles " + format_bytes(plan.host_bytes) + " host" +
       (gpu ? ", " + format_bytes(plan.device_bytes) + " device" : "") + ", rows and process " +
       format_bytes(io_bytes) + ")");
  if (!choice.why_cpu.empty()) note("using the CPU backend: " + choice.why_cpu);

  RowSource source;
  source.width = w, source.height = h;
  source.read = [&](uint32_t y0, uint32_t y1, uint8_t* rgba8, size_t stride) {
    image.read(y0, y1, rgba8, stride);
  };
  DepthRowSource depth_source;
  depth_source.width = w, depth_source.height = h;
  if (depth) {
    depth_source.read = [&](uint32_t y0, uint32_t y1, float* d, size_t stride) {
      depth->read(y0, y1, d, stride);
    };
    if (depth->synthetic()) depth_source.known_stats = [&] { return depth->synthetic_stats(); };
  }
  RowSink sink;
  // An RGB result is packed from the tiles' RGBA rows kPackRows at a time (on several threads on the GPU,
  // where writing bounds the run).
  constexpr uint32_t kPackRows = 64;
  std::vector<uint8_t> packed;
  const int pack_threads = gpu ? io::io_threads() : 1;
  sink.write = [&](uint32_t n, const uint8_t* rgba8, size_t stride) {
    if (spec.channels == 4) return writer->write_rows(n, rgba8, stride);
    packed.resize(size_t(w) * 3 * std::min(n, kPackRows));
    for (uint32_t y = 0; y < n; y += kPackRows) {
      const uint32_t m = std::min(kPackRows, n - y);
      parallel_for(0, long(m), [&](long a, long b) {
        for (long i = a; i < b; ++i)
          io::rgba_to_rgb(rgba8 + (size_t(y) + size_t(i)) * stride, w, packed.data() + size_t(i) * w * 3);
      }, pack_threads);
      writer->write_rows(m, packed.data(), size_t(w) * 3);
    }
  };
  std::string backend_name;
  const auto make_pipeline = [&]() {
    std::unique_ptr<Pipeline> pipe =
        gpu ? make_backend("gpu") : make_cpu_pipeline(std::max(1, cpu_threads / workers));
    pipe->set_algorithms(r.algorithms);  // an unknown name: one line listing the valid ones
    if (backend_name.empty()) {
      const Algorithms used = pipe->algorithms();
      backend_name = pipe->backend_name() + ", SAT " + used.sat_builder + ", reduction " + used.reduction;
    }
    return pipe;
  };
  Progress bar(h);
  const TiledReport report = run_tiled(source, depth ? &depth_source : nullptr, p, plan, make_pipeline, sink,
                                       workers, [&](const TiledProgress& t) {
                                         bar.show(size_t(t.rows_done), "rows");
                                         return true;
                                       });
  bar.clear();
  char stages[160];
  std::snprintf(stages, sizeof(stages), kStageFormat, report.stats_s, report.read_s, report.filter_s,
                report.write_s, report.wall_s);
  say(kStageNote + std::string(stages));
  writer->finish();
  for (const auto& n : image.notes()) note(r.input + ": " + n);
  if (!report.exact)
    note(r.input + ": the result may differ from a whole-image render" +
         (support.empty() ? "" : " (" + support + ")"));

  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (depth) depth_from += ", refine none";  // as the whole-image path says it: nothing to refine
  char buf[320];
  std::snprintf(
      buf, sizeof(buf), "(%ux%u, %s filter, %s%s, streamed in %ux%u tiles + halo %u within %s, %.2f ms)", w,
      h, to_string(p.filter), p.filter == FilterKind::Dof ? (depth_from + ", ").c_str() : "",
      backend_name.c_str(), plan.tile_width, plan.tile_height, plan.halo, format_bytes(budget).c_str(), ms);
  return buf;
}

}  // namespace satlab::cli
