// The GPU backend of the Pipeline interface: upload -> reduce (depth min and max through the selected
// registry reduction; none where whole-frame statistics give them, set_frame_stats) -> normalise -> coc ->
// [highlights] -> dof (the DoF mode's GPU entry point, building its tables with the selected registry SAT
// builder) -> [highlights_add]; the box filter: sat -> blur. All on one stream. Each stage is bracketed by
// CUDA events, and its phases (SatArgs::phase, DofArgs::stage) get events of their own; a frame's events are
// read at the next run() (one frame late, so timing never stalls the pipeline), or when timings() finds them
// complete. CUDA errors become satlab::Error.
// The normalised depth and the SAT (the box filter's here, gather_box's in its workspace) are kept while
// their inputs do not change, unless set_every_stage(true) asks for every stage in every run. A stage's
// first run after new buffers or a variant switch is cold.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/chromatic.hpp"
#include "core/dof.hpp"
#include "core/dof_modes.hpp"
#include "core/error.hpp"
#include "core/pipeline.hpp"
#include "core/reference.hpp"
#include "gpu/device.hpp"
#include "gpu/fault.hpp"
#include "gpu/filter/chromatic_gpu.hpp"
#include "gpu/filter/filter.hpp"
#include "gpu/filter/grain_gpu.hpp"
#include "gpu/filter/highlights_gpu.hpp"

namespace satlab::gpu {
namespace {

void check(cudaError_t e, const std::string& what) {
  if (e != cudaSuccess) {
    cudaGetLastError();
    throw Error("GPU " + what + ": " + cudaGetErrorString(e));
  }
}

struct DeviceMemory {
  void* p = nullptr;
  size_t bytes = 0;
  void reset(size_t n, const char* what) {
    if (n == bytes) return;
    release();
    check(fault_due(Fault::Alloc) ? cudaErrorMemoryAllocation : cudaMalloc(&p, n),
          std::string("allocation of ") + std::to_string(n >> 20) + " MiB for the " + what);
    bytes = n;
  }
  void release() {
    cudaFree(p);
    p = nullptr, bytes = 0;
  }
  void swap(DeviceMemory& o) { std::swap(p, o.p), std::swap(bytes, o.bytes); }
  ~DeviceMemory() { cudaFree(p); }
  template <typename T>
  T* as() const {
    return static_cast<T*>(p);
  }
};

// Pinned host memory, grown on demand: the staging of uploads and of read_result's downloads, so that their
// copies are DMA at the bus's speed and an upload runs asynchronously to the host.
struct PinnedMemory {
  void* p = nullptr;
  size_t bytes = 0;
  void grow(size_t n, const char* what) {
    if (n <= bytes) return;
    cudaFreeHost(p);
    p = nullptr, bytes = 0;
    check(cudaHostAlloc(&p, n, cudaHostAllocDefault),
          std::string("allocation of ") + std::to_string(n >> 20) + " MiB of pinned memory for the " + what);
    bytes = n;
  }
  PinnedMemory() = default;
  PinnedMemory(const PinnedMemory&) = delete;
  PinnedMemory& operator=(const PinnedMemory&) = delete;
  ~PinnedMemory() { cudaFreeHost(p); }
};

// One frame's stage events: begin/end pair per stage (a phase's end is the next phase's begin, the last
// one's its stage's end).
struct FrameEvents {
  struct Stage {
    std::string name;
    double bytes;
    cudaEvent_t begin, end;
    std::string parent;
    bool cold;
    bool concurrent = false;  // a phase on a side stream (DofArgs::side_phase)
  };
  std::vector<Stage> stages;
  std::vector<cudaEvent_t> pool;
  size_t used = 0;
  cudaEvent_t last = nullptr;  // the frame's last recorded event
  bool pending = false;
  unsigned long run = 0;  // which run() recorded it
  bool highlights = false;             // the frame ran the highlight pass: hl_host receives its stats
  uint32_t hl_cap = 0;
  uint32_t* hl_host = nullptr;         // pinned: found, kept, far
  cudaEvent_t next() {
    if (used == pool.size()) {
      cudaEvent_t e;
      check(cudaEventCreate(&e), "cudaEventCreate");
      pool.push_back(e);
    }
    return pool[used++];
  }
  ~FrameEvents() {
    for (auto e : pool) cudaEventDestroy(e);
    if (hl_host) cudaFreeHost(hl_host);
  }
};

// The registry's variants the pipeline can use: SAT builders taking RGBA8, reductions taking float (the
// depth map) with min and max.
std::vector<const Variant*> usable(Family family) {
  std::vector<const Variant*> r;
  for (const Variant& v : variants()) {
    if (v.family != family || (family == Family::Sat ? !v.sat : !v.reduce)) continue;
    const DType t = family == Family::Sat ? DType::RGBA8 : DType::F32;
    const bool takes = std::find(v.dtypes.begin(), v.dtypes.end(), t) != v.dtypes.end();
    if (takes && (!v.refuses || v.refuses(1, t).empty())) r.push_back(&v);
  }
  return r;
}

std::vector<std::string> names(const std::vector<const Variant*>& vs) {
  std::vector<std::string> r;
  for (const Variant* v : vs) r.push_back(v->name);
  return r;
}

const Variant* by_name(Family family, const std::string& name) {
  for (const Variant* v : usable(family))
    if (v->name == name) return v;
  return nullptr;
}

// Defaults: the tiled 2D SAT (fewest bytes per pixel) and the single-pass reduction (one launch per min or
// max; the depth's at 3840x2160 on the H200: 0.027-0.030 ms for both against CUB's 0.041-0.083 in the same
// run). Its workspace is shared by every call in the process, one stream at a time:
// the app's GUI thread issues the pipeline's frames and the Lab's runs (which synchronise the device
// first) one after the other.
constexpr const char* kDefaultSat = "sat_tiled";
constexpr const char* kDefaultReduce = "single_pass";

class GpuPipeline final : public Pipeline {
 public:
  GpuPipeline() {
    check(cudaSetDevice(0), "cudaSetDevice");
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "stream creation");
    dof_ = &dof_variant(*mode_);
    sat_ = by_name(Family::Sat, kDefaultSat);
    reduce_ = by_name(Family::Reduce, kDefaultReduce);
    if (!sat_ || !reduce_) throw Error("GPU backend: the registry lacks its default SAT builder or reduction");
    for (FrameEvents& f : frames_)
      check(cudaHostAlloc(reinterpret_cast<void**>(&f.hl_host), 4 * sizeof(uint32_t), cudaHostAllocDefault),
            "pinned highlight stats");
  }
  ~GpuPipeline() override {
    cudaStreamSynchronize(stream_);  // no copy out of the pinned staging in flight as it is freed
    if (device_copied_) cudaEventDestroy(device_copied_);
    cudaStreamDestroy(stream_);
  }

  std::string backend_name() const override { return "gpu (" + probe().name + ")"; }

  void set_image(const ImageRGBA8& image) override {
    if (image.empty()) throw Error("empty image");
    resize(image.width, image.height);
    // Staged in pinned memory, uploaded (and timed) in the next run() asynchronously.
    try {
      stage_in(staged_image_, image.data.data(), image.pixels() * 4, "image upload");
    } catch (const Error&) {  // no pinned memory: no image (its buffers may be new)
      width_ = height_ = 0;
      throw;
    }
    image_rows_.clear();
    release_device_image();
    new_image();
  }

  // Copied on the device in the next run() (the upload stage), from where the decoder left it.
  bool set_image_device(const DeviceRGBA& image) override {
    if (image.empty()) throw Error("empty image");
    resize(image.width, image.height);
    release_device_image();
    if (!device_copied_) check(cudaEventCreateWithFlags(&device_copied_, cudaEventDisableTiming), "device image event");
    image_device_ = image;  // held (its pool does not reuse it) until the copy is done
    image_rows_.clear();
    new_image();
    return true;
  }

  // Uploaded in the next run() straight from the caller's rows (a 2D copy per stretch of evenly spaced
  // rows), by DMA where they are pinned.
  bool set_image_rows(const FrameRows& rows) override {
    if (rows.width <= 0 || rows.height <= 0) throw Error("empty image");
    resize(rows.width, rows.height);
    image_rows_ = row_runs(rows, size_t(rows.width) * 4);
    release_device_image();
    new_image();
    return true;
  }

  bool set_depth_rows(const FrameRows& rows) override {
    check_depth_size(rows.width, rows.height);
    const size_t pitch = size_t(width_) * 4;
    for (const RowRun& r : row_runs(rows, pitch))
      check(cudaMemcpy2DAsync(raw_.as<uint8_t>() + size_t(r.y0) * pitch, pitch, r.p, r.stride, pitch, size_t(r.n),
                              cudaMemcpyHostToDevice, stream_),
            "depth upload");
    new_depth();
    return true;
  }

  bool pin_host(void* p, size_t bytes) override {
    if (cudaHostRegister(p, bytes, cudaHostRegisterDefault) == cudaSuccess) return true;
    cudaGetLastError();  // not pinned (e.g. the locked-memory limit): copied as pageable memory instead
    return false;
  }
  void unpin_host(void* p) override {
    // Every stream's copies from or into it finished first (the tiled executor's workers each have one).
    cudaDeviceSynchronize();
    cudaHostUnregister(p);
    cudaGetLastError();
  }

 private:
  // A stretch of rows `stride` bytes apart, from row y0 of the frame.
  struct RowRun {
    const uint8_t* p;
    size_t stride;
    int y0, n;
  };
  static std::vector<RowRun> row_runs(const FrameRows& rows, size_t row_bytes) {
    std::vector<RowRun> runs;
    for (int y = 0; y < rows.height; ++y) {
      const auto* p = static_cast<const uint8_t*>(rows.row(y));
      if (!runs.empty()) {
        RowRun& r = runs.back();
        if (r.n == 1 && p >= r.p + row_bytes) {
          r.stride = size_t(p - r.p), r.n = 2;
          continue;
        }
        if (r.n > 1 && p == r.p + r.stride * size_t(r.n)) {
          ++r.n;
          continue;
        }
      }
      runs.push_back({p, row_bytes, y, 1});
    }
    return runs;
  }

  // The last device image back to its pool once the stream has copied it.
  void release_device_image() {
    if (image_device_.empty()) return;
    cudaEventSynchronize(device_copied_);
    image_device_ = DeviceRGBA();
  }

  void new_image() {
    upload_pending_ = true;
    grain_known_ = false;
    ++image_id_;  // new pixels (DofArgs::input_id)
    sat_valid_ = false;
    dirty_ = true;
  }
  void new_depth() {
    has_depth_ = true;
    depth_valid_ = false;
    hist_valid_ = false;
    dirty_ = true;
  }
  void check_depth_size(int w, int h) const {
    if (w != width_ || h != height_)
      throw Error("depth map is " + std::to_string(w) + "x" + std::to_string(h) + " but the image is " +
                  std::to_string(width_) + "x" + std::to_string(height_));
  }

  // The buffers for a frame of w x h (kept where the size is the same); no image pending after it.
  void resize(int w, int h) {
    upload_pending_ = false;
    const size_t n = size_t(w) * size_t(h);
    const size_t need = n * (4 + 16 + 4 + 4 + 4 + 4) + (64 << 20);
    size_t free_b = 0, total_b = 0;
    check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
    const size_t have = free_b + img_.bytes + table_.bytes + out_.bytes + raw_.bytes + dnorm_.bytes + coc_.bytes;
    if (need > have)
      throw Error("image of " + std::to_string(w) + "x" + std::to_string(h) + " needs " +
                  std::to_string(need >> 20) + " MiB of GPU memory, " + std::to_string(have >> 20) +
                  " MiB available (the CPU backend can still filter it)");
    if (w != width_ || h != height_) {
      // The new size's buffers are allocated beside the old ones and swapped in once all exist, so an
      // allocation failure leaves the previous image and state. Only where the old ones' memory is needed
      // to fit do they go first; a failure then leaves no image.
      DeviceMemory* mine[] = {&img_, &table_, &out_, &dnorm_, &coc_, &raw_};
      coc_rb_.release(), out_rb_.release();  // allocated again by the first frame with chromatic aberration
      if (need > free_b) {
        for (DeviceMemory* m : mine) m->release();
        width_ = height_ = 0;
      }
      DeviceMemory fresh[6];
      fresh[0].reset(n * 4, "image");
      fresh[1].reset(n * 16, "SAT");
      fresh[2].reset(n * 4, "result");
      fresh[3].reset(n * 4, "normalised depth");
      fresh[4].reset(n * 4, "CoC map");
      fresh[5].reset(n * 4, "depth map");
      mm_.reset(2 * sizeof(float), "depth min/max");
      hist_.reset((kDepthBins + 1) * sizeof(uint32_t), "depth histogram");
      for (int i = 0; i < 6; ++i) mine[i]->swap(fresh[i]);
      has_depth_ = false;
      warm_.clear();  // new buffers: every stage's next run is cold
    }
    width_ = w, height_ = h;
  }

 public:
  void set_depth(const ImageF& depth) override {
    if (depth.channels != 1) throw Error("depth map must have one channel");
    check_depth_size(depth.width, depth.height);
    stage_in(staged_depth_, depth.data.data(), depth.data.size() * 4, "depth upload");
    check(cudaMemcpyAsync(raw_.p, staged_depth_.p, depth.data.size() * 4, cudaMemcpyHostToDevice, stream_),
          "depth upload");
    new_depth();
  }

  void set_every_stage(bool every) override { every_stage_ = every; }

  void set_frame_stats(const FrameStats& stats) override {
    if (stats.valid && stats.has_depth && stats.histogram.count.size() != size_t(kDepthBins + 1))
      throw Error("frame statistics: the depth histogram has " +
                  std::to_string(stats.histogram.count.size()) + " bins, not " +
                  std::to_string(kDepthBins + 1));
    frame_ = stats;
    depth_valid_ = false;  // normalised again, with the given range or the frame's own
    hist_valid_ = false;
    dirty_ = true;
  }

  void set_params(const Params& params) override {
    validate(params);
    const DofMode* mode = &dof_mode_of(params);
    // Another DoF mode, layer count or aperture: its tables and rectangles are new (the first run is cold).
    // Another aperture (shape, blades, rotation, max radius) or camera response: the first run uploads the
    // aperture and transfer tables and waits for them (upload_aperture), and a larger radius may grow the
    // buffers, so that run is cold too, for the DoF modes and the highlights alike.
    const bool aperture =
        params.aperture_shape != params_.aperture_shape || params.blades != params_.blades ||
        params.blade_rotation != params_.blade_rotation || params.max_radius != params_.max_radius ||
        params.response_shoulder != params_.response_shoulder;
    if (mode != mode_ || params.dof_layers != params_.dof_layers || aperture) warm_.erase("dof");
    // The highlights' aperture is the mode's (DofMode::aperture), so a switch of mode may re-upload theirs.
    if (aperture || mode != mode_) warm_.erase("highlights");
    dof_ = &dof_variant(*mode);
    mode_ = mode;
    params_ = params;
    dirty_ = true;
  }

  std::vector<std::string> sat_builders() const override { return names(usable(Family::Sat)); }
  std::vector<std::string> reductions() const override { return names(usable(Family::Reduce)); }
  Algorithms algorithms() const override { return {sat_->name, reduce_->name}; }
  void set_algorithms(const Algorithms& a) override {
    if (!a.sat_builder.empty()) check_choice("SAT builder", a.sat_builder, sat_builders());
    if (!a.reduction.empty()) check_choice("reduction", a.reduction, reductions());
    if (!a.sat_builder.empty() && a.sat_builder != sat_->name) {
      sat_ = by_name(Family::Sat, a.sat_builder);
      sat_valid_ = false;
      warm_.erase("sat");
      warm_.erase("dof");
    }
    if (!a.reduction.empty() && a.reduction != reduce_->name) {
      reduce_ = by_name(Family::Reduce, a.reduction);
      depth_valid_ = false;
      warm_.erase("reduce");
    }
  }

  void run() override {
    if (width_ == 0) throw Error("no image set");
    const size_t pixels = size_t(width_) * size_t(height_);
    for (const Variant* v : {sat_, reduce_}) {
      const std::string why = v->refuses ? v->refuses(pixels, v == sat_ ? DType::RGBA8 : DType::F32) : "";
      if (!why.empty()) throw Error(v->name + " refuses this " + std::to_string(width_) + "x" +
                                    std::to_string(height_) + " image: " + why);
    }
    collect(frames_[cur_ ^ 1]);  // last frame's timings, one frame late
    FrameEvents& f = frames_[cur_];
    f.stages.clear();
    f.used = 0;
    f.last = nullptr;
    f.run = ++runs_;
    f.highlights = false;
    const size_t n = size_t(width_) * size_t(height_);
    const double dn = double(n);
    if (upload_pending_) {
      stage(f, "upload", (image_device_.empty() ? 4 : 8) * dn, [&] {
        const size_t pitch = size_t(width_) * 4;
        if (!image_device_.empty()) {  // a frame decoded on the GPU: a copy on the device (read and write)
          check(cudaMemcpy2DAsync(img_.p, pitch, image_device_.data, image_device_.pitch, pitch, size_t(height_),
                                  cudaMemcpyDeviceToDevice, stream_),
                "device image copy");
          check(cudaEventRecord(device_copied_, stream_), "device image event");
        } else if (image_rows_.empty())
          check(cudaMemcpyAsync(img_.p, staged_image_.p, n * 4, cudaMemcpyHostToDevice, stream_), "image upload");
        for (const RowRun& r : image_rows_)
          check(cudaMemcpy2DAsync(img_.as<uint8_t>() + size_t(r.y0) * pitch, pitch, r.p, r.stride, pitch,
                                  size_t(r.n), cudaMemcpyHostToDevice, stream_),
                "image upload");
      });
    }
    if (params_.filter == FilterKind::Dof) {
      if (!has_depth_) {
        stage(f, "coc", 4 * dn, [&] {
          fill(dnorm_.as<float>(), n, params_.focus, stream_);
          coc_map(dnorm_.as<float>(), coc_.as<float>(), n, params_, stream_);
        });
      } else if (frame_.valid && frame_.has_depth) {
        // A tile of a larger image (set_frame_stats): the whole image's range and histogram replace the
        // reduction's and the histogram's, so no reduce stage runs; normalise uploads the range (8 B).
        if (!depth_valid_ || every_stage_) {
          stage(f, "normalise", 8 * dn, [&] {
            frame_mm_[0] = frame_.depth_min, frame_mm_[1] = frame_.depth_max;
            check(cudaMemcpyAsync(mm_.p, frame_mm_, sizeof(frame_mm_), cudaMemcpyHostToDevice, stream_),
                  "depth range upload");
            depth_normalise(raw_.as<float>(), mm_.as<float>(), dnorm_.as<float>(), n, stream_, nullptr);
          });
          hist_host_ = frame_.histogram;
          hist_valid_ = true;
          depth_valid_ = true;
        }
        stage(f, "coc", 8 * dn, [&] { coc_map(dnorm_.as<float>(), coc_.as<float>(), n, params_, stream_); });
      } else {
        if (!depth_valid_ || every_stage_) {
          stage(f, "reduce", 8 * dn, [&] {  // min and max: two reads of the depth map
            ReduceArgs a;
            a.in = raw_.p, a.n = n, a.dtype = DType::F32, a.stream = stream_;
            for (ReduceOp op : {ReduceOp::Min, ReduceOp::Max}) {
              a.op = op, a.out = mm_.as<float>() + (op == ReduceOp::Max);
              reduce_->reduce(a);
            }
          });
          // The first time after a new depth map, with its histogram (the occlusion-aware modes' layer
          // edges, frame_layers; counted in shared memory beside the normalisation): a one-off per depth map,
          // like its read-back below. A rerun on the same depth (a new reduction, every_stage) leaves it out.
          stage(f, "normalise", 8 * dn, [&] {
            depth_normalise(raw_.as<float>(), mm_.as<float>(), dnorm_.as<float>(), n, stream_,
                            hist_valid_ ? nullptr : hist_.as<uint32_t>());
          });
          if (!hist_valid_) {
            // One round trip per depth map (not per frame: a new focus or aperture maps the same counts).
            hist_host_.count.resize(kDepthBins + 1);
            check(cudaMemcpyAsync(hist_host_.count.data(), hist_.p, (kDepthBins + 1) * sizeof(uint32_t),
                                  cudaMemcpyDeviceToHost, stream_), "depth histogram");
            check(cudaStreamSynchronize(stream_), "depth histogram");
            hist_valid_ = true;
          }
          depth_valid_ = true;
        }
        stage(f, "coc", 8 * dn, [&] { coc_map(dnorm_.as<float>(), coc_.as<float>(), n, params_, stream_); });
      }
    }
    // Bokeh highlights (gpu/filter/highlights_gpu.hpp): sprites out of the gather's input, splatted after it.
    const bool highlights = params_.filter == FilterKind::Dof && params_.highlights;
    const void* gather_in = img_.p;
    HighlightArgs hl;
    if (highlights) {
      hl.image = img_.p, hl.coc = coc_.as<float>(), hl.width = width_, hl.height = height_, hl.params = &params_;
      hl.mode = mode_;
      hl.ws = &hl_ws_, hl.stream = stream_;
      hl.phase = [&](const char* name) { phase(f, "highlights", name); };
      // Minimum bytes: the compaction reads the image and the CoC, the gather's copy reads and writes the image.
      stage(f, "highlights", 16 * dn, [&] { gather_in = highlights_prepare(hl); });
      f.highlights = true, f.hl_cap = uint32_t(params_.highlight_cap);
    }
    const auto add_highlights = [&] {
      if (!highlights) return;
      stage(f, "highlights_add", 0, [&] { highlights_add(hl, out_.p); });
      check(cudaMemcpyAsync(f.hl_host, highlight_stats_device(hl_ws_), 3 * sizeof(uint32_t), cudaMemcpyDeviceToHost,
                            stream_), "highlight stats");
      record(f);  // the frame's last event comes after the stats' copy
    };
    if (params_.filter == FilterKind::Dof) {
      // The mode's stage; its phases are its entry point's (DofArgs::stage, side_phase).
      stage(f, "dof", mode_->dram_bytes(width_, height_, params_, probe().l2_bytes), [&] {
        DofArgs a;
        a.image = gather_in, a.coc = coc_.p, a.out = out_.p, a.width = width_, a.height = height_;
        a.params = &params_, a.sat = sat_, a.workspace = &dof_ws_, a.stream = stream_;
        a.stage = [&](const char* name) { phase(f, "dof", name); };
        a.side_phase = [&](const char* name, void* side, bool begin) {
          side_phase(f, "dof", name, cudaStream_t(side), begin);
        };
        a.depth = has_depth_ && hist_valid_ ? &hist_host_ : nullptr;
        a.layer_sums = frame_.valid && frame_.has_depth && has_depth_ && frame_.layers.count > 0
                           ? &frame_.layers
                           : nullptr;
        // The image as uploaded, unless this frame masks its highlights.
        a.input_id = highlights ? 0 : image_id_;
        a.rebuild = every_stage_;
        // gather_box builds the image's SAT in the box filter's table: one such table a frame.
        dof_ws_.box.borrowed = table_.p, dof_ws_.box.borrowed_bytes = table_.bytes;
        dof_->dof(a);
      });
      sat_valid_ = false;  // the table may hold gather_box's SAT (of a masked image, with highlights)
      add_highlights();
      // Chromatic aberration (core/chromatic.hpp): red and blue from a second pass of the same mode, its CoC
      // green's plus the offset; one stage (its CoC, highlights, filter and the merge).
      if (uses_chromatic(params_)) stage(f, "chromatic", 0, [&] { red_blue_pass(); });
      // Grain (core/grain.hpp): the frame's noise, estimated once per image (a wait for its sums).
      if (params_.grain > 0.f)
        stage(f, "grain", 9 * dn, [&] {
          if (!grain_known_) {
            grain_scratch_.reset(6 * sizeof(unsigned long long), "grain sums");
            grain_ = grain_noise(
                grain_sums_gpu(img_.p, width_, height_, grain_scratch_.as<unsigned long long>(), stream_));
            grain_known_ = true;
          }
          apply_grain_gpu(out_.p, coc_.as<float>(), width_, height_, params_.grain, grain_, stream_);
        });
      finish_frame(f);
      return;
    }
    // The box filter: one radius over the image's SAT, kept while the image and the builder stay.
    if (!sat_valid_ || every_stage_) {
      stage(f, "sat", 20 * dn, [&] {
        SatArgs a;
        a.in = img_.p, a.out = table_.p, a.width = width_, a.height = height_, a.channels = 4;
        a.dtype = DType::RGBA8, a.stream = stream_;
        a.phase = [&](const char* name) { phase(f, "sat", name); };
        sat_->sat(a);
      });
      sat_valid_ = true;
      dof_ws_.box.input = 0;  // gather_box's SAT, kept in the same table, is overwritten
    }
    stage(f, "blur", 20 * dn, [&] {
      blur_rgba8(table_.as<uint32_t>(), nullptr, params_.box_radius, width_, height_, out_.as<uint8_t>(), stream_);
    });
    finish_frame(f);
  }

  void finish_frame(FrameEvents& f) {
    f.pending = true;
    const cudaError_t e = fault_due(Fault::Launch) ? cudaErrorLaunchFailure : cudaPeekAtLastError();
    check(e, "frame");
    upload_pending_ = false;  // its staging is rewritten only after the stream has passed it (stage_in)
    image_rows_.clear();      // the caller's rows are theirs again once this frame is read back
    cur_ ^= 1;
    result_ready_ = depth_ready_ = coc_ready_ = false;
  }

  const void* device_result(void** stream) override {
    if (stream) *stream = stream_;
    return out_.p;
  }

  const ImageRGBA8& result() override {
    if (!result_ready_) {
      result_ = ImageRGBA8(width_, height_);
      download(result_.data.data(), out_.p, result_.data.size(), "result download");
      result_ready_ = true;
    }
    return result_;
  }
  void read_result(const PixelRect& r, uint8_t* dst, size_t stride) override {
    if (r.empty() || r.x0 < 0 || r.y0 < 0 || r.x1 > width_ || r.y1 > height_)
      throw Error("read_result: region " + std::to_string(r.width()) + "x" + std::to_string(r.height()) +
                  " at (" + std::to_string(r.x0) + ", " + std::to_string(r.y0) + ") is not within the result of " +
                  std::to_string(width_) + "x" + std::to_string(height_));
    const size_t row = size_t(r.width()) * 4;
    const uint8_t* src = out_.as<uint8_t>() + (size_t(r.y0) * size_t(width_) + size_t(r.x0)) * 4;
    cudaPointerAttributes at{};
    if (cudaPointerGetAttributes(&at, dst) == cudaSuccess && at.type == cudaMemoryTypeHost) {
      // pinned (pin_host): straight into the caller's rows
      check(cudaMemcpy2DAsync(dst, stride, src, size_t(width_) * 4, row, size_t(r.height()),
                              cudaMemcpyDeviceToHost, stream_),
            "result download");
      check(cudaStreamSynchronize(stream_), "result download");
      return;
    }
    cudaGetLastError();
    staged_result_.grow(row * size_t(r.height()), "result download");
    check(cudaMemcpy2DAsync(staged_result_.p, row, src, size_t(width_) * 4, row, size_t(r.height()),
                            cudaMemcpyDeviceToHost, stream_),
          "result download");
    check(cudaStreamSynchronize(stream_), "result download");
    for (int y = 0; y < r.height(); ++y)
      std::memcpy(dst + size_t(y) * stride, static_cast<const uint8_t*>(staged_result_.p) + size_t(y) * row, row);
  }

  const ImageF& depth_normalised() override {
    if (!depth_ready_) {
      depth_host_ = ImageF(width_, height_, 1);
      download(depth_host_.data.data(), dnorm_.p, depth_host_.data.size() * 4, "depth download");
      depth_ready_ = true;
    }
    return depth_host_;
  }
  const ImageF& coc() override {
    if (!coc_ready_) {
      coc_host_ = ImageF(width_, height_, 1);
      download(coc_host_.data.data(), coc_.p, coc_host_.data.size() * 4, "CoC download");
      coc_ready_ = true;
    }
    return coc_host_;
  }

  HighlightStats highlight_stats() const override {
    timings();  // collects the frame just run when it has completed
    return hl_stats_;
  }

  const std::vector<StageTiming>& timings() const override {
    // The frame just run, once its last event has completed (never waits); else the one before.
    const FrameEvents& f = frames_[cur_ ^ 1];
    if (f.pending && f.last && cudaEventQuery(f.last) == cudaSuccess)
      const_cast<GpuPipeline*>(this)->collect(const_cast<FrameEvents&>(f));
    return timings_;
  }

 private:
  // Red and blue's pass (core/chromatic.hpp) into out_rb_, merged into out_. The highlights' and the
  // mode's buffers are reused: the stream has passed the first pass's use of them.
  void red_blue_pass() {
    const size_t n = size_t(width_) * size_t(height_);
    const Params q = chromatic_pass(params_);
    coc_rb_.reset(n * sizeof(float), "red and blue CoC map");
    out_rb_.reset(n * 4, "red and blue result");
    coc_map(dnorm_.as<float>(), coc_rb_.as<float>(), n, q, stream_);
    const bool highlights = q.highlights;
    const void* gather_in = img_.p;
    HighlightArgs hl;
    if (highlights) {
      hl.image = img_.p, hl.coc = coc_rb_.as<float>(), hl.width = width_, hl.height = height_, hl.params = &q;
      hl.mode = mode_, hl.ws = &hl_ws_, hl.stream = stream_;
      gather_in = highlights_prepare(hl);
    }
    DofArgs a;
    a.image = gather_in, a.coc = coc_rb_.p, a.out = out_rb_.p, a.width = width_, a.height = height_;
    a.params = &q, a.sat = sat_, a.workspace = &dof_ws_, a.stream = stream_;
    a.depth = has_depth_ && hist_valid_ ? &hist_host_ : nullptr;
    a.input_id = highlights ? 0 : image_id_;
    a.rebuild = every_stage_;
    dof_ws_.box.borrowed = table_.p, dof_ws_.box.borrowed_bytes = table_.bytes;
    dof_->dof(a);
    if (highlights) highlights_add(hl, out_rb_.p);
    merge_red_blue_gpu(out_.p, out_rb_.p, n, stream_);
  }

  cudaEvent_t record(FrameEvents& f) {
    cudaEvent_t e = f.next();
    check(cudaEventRecord(e, stream_), "event record");
    return f.last = e;
  }

  // A stage, listed before the phases its body reports; open phases end with it.
  template <typename F>
  void stage(FrameEvents& f, const char* name, double bytes, F&& body) {
    const size_t i = f.stages.size();
    stage_cold_ = warm_.insert(name).second;
    f.stages.push_back({name, bytes, record(f), nullptr, "", stage_cold_});
    const unsigned long growths = buffer_growths();
    body();
    const cudaEvent_t end = record(f);
    const bool grew = buffer_growths() != growths;  // it paid an allocation: no warm measurement
    for (size_t j = i; j < f.stages.size(); ++j) {
      if (!f.stages[j].end) f.stages[j].end = end;
      f.stages[j].cold = f.stages[j].cold || grew;
    }
  }

  // A phase of `parent`'s body: from now to the next phase, or to the end of the stage.
  void phase(FrameEvents& f, const char* parent, const char* name) {
    const cudaEvent_t e = record(f);
    for (auto it = f.stages.rbegin(); it != f.stages.rend() && !it->parent.empty(); ++it)
      if (!it->concurrent && !it->end) it->end = e;  // the open phase of this stream ends here
    f.stages.push_back({name, 0.0, e, nullptr, parent, stage_cold_});
  }

  // A phase of `parent`'s body on the stream `side`, beside the others: its begin and end are recorded
  // there (begin = false: its end).
  void side_phase(FrameEvents& f, const char* parent, const char* name, cudaStream_t side, bool begin) {
    const cudaEvent_t e = f.next();
    check(cudaEventRecord(e, side), "event record");
    if (begin) {
      f.stages.push_back({name, 0.0, e, nullptr, parent, stage_cold_, true});
      return;
    }
    for (auto it = f.stages.rbegin(); it != f.stages.rend(); ++it)
      if (it->concurrent && it->name == name && !it->end) {
        it->end = e;
        return;
      }
  }

  void collect(FrameEvents& f) {
    if (!f.pending) return;
    f.pending = false;
    timings_.clear();
    for (const auto& s : f.stages) {
      check(cudaEventSynchronize(s.end), "stage '" + s.name + "'");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, s.begin, s.end), "event timing");
      timings_.push_back({s.name, double(ms), s.bytes, s.parent, s.cold, f.run, s.concurrent});
    }
    if (f.highlights) {
      check(cudaEventSynchronize(f.last), "highlight stats");
      hl_stats_.valid = true;
      hl_stats_.found = f.hl_host[0], hl_stats_.kept = f.hl_host[1], hl_stats_.far = f.hl_host[2];
      hl_stats_.cap = f.hl_cap;
    }
  }

  // Copies `bytes` from `src` into the pinned staging `to` (grown to them), once the stream has passed any
  // earlier copy out of it.
  void stage_in(PinnedMemory& to, const void* src, size_t bytes, const char* what) {
    if (to.p) check(cudaStreamSynchronize(stream_), what);
    to.grow(bytes, what);
    std::memcpy(to.p, src, bytes);
  }

  void download(void* dst, const void* src, size_t bytes, const char* what) {
    check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream_), what);
    check(cudaStreamSynchronize(stream_), what);
  }

  cudaStream_t stream_ = nullptr;
  int width_ = 0, height_ = 0;
  DeviceMemory img_, table_, out_, raw_, dnorm_, coc_, mm_, hist_, grain_scratch_;
  DeviceMemory coc_rb_, out_rb_;  // red and blue's CoC map and result (chromatic aberration)
  GrainNoise grain_;
  bool grain_known_ = false;
  DepthHistogram hist_host_;  // hist_'s copy, read back once per depth map (or the given one)
  FrameStats frame_;          // set_frame_stats: whole-frame statistics of a tile's image
  float frame_mm_[2] = {};    // their range, the source of its upload to mm_
  DofWorkspace dof_ws_;  // the DoF modes' buffers (gather_box's SAT among them)
  HighlightWorkspace hl_ws_;  // the highlight pass's buffers
  HighlightStats hl_stats_;   // of the last collected frame with highlights on
  const Variant* sat_ = nullptr;     // the selected SAT builder (registry entry)
  const Variant* reduce_ = nullptr;  // the selected min/max reduction
  const DofMode* mode_ = &dof_mode_of(Params{});  // params_'s DoF mode, resolved in set_params
  const Variant* dof_ = nullptr;                   // its registry entry (GPU entry point), set with it
  unsigned long long image_id_ = 0;                // counts set_image calls: names the uploaded pixels
  PinnedMemory staged_image_, staged_depth_, staged_result_;  // stage_in's and read_result's
  bool upload_pending_ = false;  // the next run() uploads staged_image_, or image_rows_ where any
  std::vector<RowRun> image_rows_;  // set_image_rows's rows, until this frame's run()
  DeviceRGBA image_device_;         // set_image_device's image, until its copy is done (device_copied_)
  cudaEvent_t device_copied_ = nullptr;
  ImageRGBA8 result_;
  ImageF depth_host_, coc_host_;
  bool has_depth_ = false, depth_valid_ = false, hist_valid_ = false, sat_valid_ = false, dirty_ = true;
  bool every_stage_ = false;  // set_every_stage: no stage skipped for unchanged inputs
  std::set<std::string> warm_;  // stages run since the buffers were made or their variant switched
  bool stage_cold_ = false;     // of the stage being recorded (its phases share it)
  unsigned long runs_ = 0;
  bool result_ready_ = false, depth_ready_ = false, coc_ready_ = false;
  Params params_;
  FrameEvents frames_[2];
  int cur_ = 0;
  std::vector<StageTiming> timings_;
};

}  // namespace

std::unique_ptr<Pipeline> make_pipeline() {
  if (!probe().available) throw Error(probe().reason);
  return std::make_unique<GpuPipeline>();
}

}  // namespace satlab::gpu
