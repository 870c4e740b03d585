// The variant registry's types. A variant is one GPU algorithm (a reduction, a scan, a SAT builder, a
// stream compaction, a radix sort, a DoF mode, a depth refiner) with
// its name, where it comes from, its bytes-moved model and its launch function. The UI, `satlab bench`,
// `satlab verify`, `satlab variants` and the tests all iterate the registry (gpu/registry), so adding a
// variant is one file and one line in the table. Plain C++: device pointers travel as void*.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace satlab {

enum class Family { Reduce, Scan, Sat, Dof, Compact, Sort, Refine, Select, Temporal };
enum class DType { I32, U32, F32, U8, RGBA8, RGBA16 };  // RGBA16: 4 x uint16 per pixel
enum class ReduceOp { Sum, Min, Max };

const char* to_string(Family f);
const char* to_string(DType t);
const char* to_string(ReduceOp op);
size_t dtype_size(DType t);

// Device-side arguments of one launch. Pointers are device pointers; `stream` is a cudaStream_t.
struct ReduceArgs {
  const void* in = nullptr;
  void* out = nullptr;  // one element of `dtype`
  size_t n = 0;
  DType dtype = DType::I32;
  ReduceOp op = ReduceOp::Sum;
  void* stream = nullptr;
};
struct ScanArgs {
  const void* in = nullptr;
  void* out = nullptr;  // n elements of `dtype`
  size_t n = 0;
  DType dtype = DType::I32;
  bool inclusive = true;
  void* stream = nullptr;
};
struct SatArgs {
  const void* in = nullptr;  // width*height pixels of `dtype` (U8, RGBA8 or F32 with `channels`)
  void* out = nullptr;       // width*height*channels of uint32 (8-bit input) or float
  int width = 0;
  int height = 0;
  int channels = 1;
  DType dtype = DType::U8;
  void* stream = nullptr;
  std::function<void(const char* phase)> phase;  // optional, host-side: called before each phase is enqueued
};

struct Params;
struct Variant;
// One depth-of-field mode over a frame: image and signed CoC in, result out (core/dof_modes.hpp). `sat` is
// the registry's SAT builder the mode builds its tables with; `workspace` the caller's gpu::DofWorkspace,
// which keeps device buffers from frame to frame.
struct DepthHistogram;  // core/frame_stats.hpp
struct LayerSums;       // core/frame_stats.hpp
struct DofArgs {
  const void* image = nullptr;  // RGBA8, width*height
  const void* coc = nullptr;    // float, width*height
  void* out = nullptr;          // RGBA8, width*height
  int width = 0;
  int height = 0;
  const Params* params = nullptr;
  const Variant* sat = nullptr;
  void* workspace = nullptr;
  void* stream = nullptr;
  std::function<void(const char* stage)> stage;  // optional, host-side: called before each stage is enqueued
  // Optional, host-side: a phase enqueued on another stream (`side`, a cudaStream_t) beside the stages
  // above, called with begin = true before its work is enqueued there and false after. It overlaps them.
  std::function<void(const char* phase, void* side, bool begin)> side_phase;
  // Host copy of the histogram of the depth the CoC map came from: the occlusion-aware modes' layer edges
  // (frame_layers); nullptr: fixed edges.
  const DepthHistogram* depth = nullptr;
  // The whole image's CoC sums per layer, for the layered mode's layer means where the frame is a tile of
  // it (core/tiled.hpp); nullptr: the frame's own.
  const LayerSums* layer_sums = nullptr;
  // Names the pixels at `image`: two calls with the same non-zero id had the same input, so a mode may keep
  // what it built from it (gather_box its SAT); 0: new pixels.
  unsigned long long input_id = 0;
  // Build everything even where input_id says the input is unchanged (Pipeline::set_every_stage); what is
  // built is kept for the next call as usual.
  bool rebuild = false;
};
// Stream compaction: the elements x of `in` with x >= threshold, in input order (stable), into `out`;
// their count into *count (one uint32). Element type I32 (signed compare).
struct CompactArgs {
  const void* in = nullptr;
  void* out = nullptr;    // room for n elements
  void* count = nullptr;  // one uint32
  size_t n = 0;
  DType dtype = DType::I32;
  int32_t threshold = 0;
  void* temp = nullptr;   // Variant::temp_bytes(n, dtype) bytes of device scratch, allocated by the caller
  void* stream = nullptr;
};
// Radix sort of n (uint32 key, uint32 value) pairs by key, ascending and stable: equal keys keep the
// order of their values in the input. Inputs are not modified; in and out must not overlap.
struct SortArgs {
  const void* keys_in = nullptr;
  const void* values_in = nullptr;
  void* keys_out = nullptr;
  void* values_out = nullptr;
  size_t n = 0;
  DType dtype = DType::U32;  // of the keys
  void* temp = nullptr;      // Variant::temp_bytes(n, dtype) bytes of device scratch, allocated by the caller
  void* stream = nullptr;
};

// A depth refiner (core/refine.hpp): the image's RGBA8 and a depth map of any size (plus optional
// confidence) in, depth at the image's size out. Scratch comes from the device's stream-ordered pool
// (warm calls allocate nothing from the driver).
struct RefineArgs {
  const void* image = nullptr;         // RGBA8, width*height (alpha ignored)
  const float* depth = nullptr;        // depth_width*depth_height; NaN: no sample
  const float* confidence = nullptr;   // nullptr (all 1), or depth_width*depth_height in [0,1]
  float* out = nullptr;                // width*height
  int width = 0, height = 0;           // the image's
  int depth_width = 0, depth_height = 0;
  void* stream = nullptr;
  std::function<void(const char* phase)> phase;  // optional, host-side: called before each phase is enqueued
  // guided only, optional: a device float[5] that receives the centring offsets the guided filter used
  // (guide R, G, B, depth) and the value that filled missing depth, so that a check can rebuild the
  // reference with them (core/guided_filter.hpp).
  float* guided_offsets = nullptr;
};

// Subject selection (core/select.hpp): the image's RGBA8 and clicks in, the alpha matte (and the working
// resolution's label) out. Scratch from the device's stream-ordered pool.
struct SelectClick;
struct SelectParams;
struct SelectArgs {
  const void* image = nullptr;                   // RGBA8, width*height
  int width = 0, height = 0;
  const std::vector<SelectClick>* clicks = nullptr;  // host
  const SelectParams* params = nullptr;
  float* alpha = nullptr;    // width*height
  uint8_t* label = nullptr;  // the working image's (core's select_scale), nullptr: not wanted
  bool* flood = nullptr;     // host, optional: no background seed was found
  std::string* note = nullptr;  // host, optional: what the user should know
  void* stream = nullptr;
  std::function<void(const char* phase)> phase;  // optional, host-side: called before each phase is enqueued
  float* guided_offsets = nullptr;  // optional: a device float[4], the matte's guided filter's centring offsets
};

// Temporal depth filtering (core/temporal.hpp): one frame's step on device arrays. `running` (the filter's
// depth) and `prev_rgb` (the last frame's RGB, 3 bytes a pixel) carry the state from frame to frame; on
// the first frame (first = true) they are set from this frame.
struct TemporalArgs {
  const float* depth = nullptr;   // this frame's depth, width*height
  const void* image = nullptr;    // this frame's RGBA8, width*height
  float* running = nullptr;       // in/out
  uint8_t* prev_rgb = nullptr;    // in/out
  int width = 0, height = 0;
  bool first = false;
  float depth_s2 = 0, colour_s2 = 0, history = 0;  // the gates' squared scales and the history weight
  void* stream = nullptr;
};

struct Variant {
  std::string name;          // stable id used on the command line: "harris7", "blelloch_padded", ...
  Family family = Family::Reduce;
  std::string label;         // shown in the UI: "#7 multiple adds per thread"
  std::string source;        // seed file, paper or library
  std::vector<DType> dtypes; // element types it accepts
  // Minimum bytes moved through device memory for a problem of n elements (SAT: width*height pixels),
  // the denominator of its GB/s.
  std::function<double(size_t n, DType t)> bytes;
  // "" when the variant can run this size/type, else the reason it refuses (never a wrong answer).
  std::function<std::string(size_t n, DType t)> refuses;
  // Compactions and sorts (CUB-style temp-storage query): the device scratch one launch needs in
  // args.temp, so that a caller allocates it once, outside any timed loop. Unset for other families.
  std::function<size_t(size_t n, DType t)> temp_bytes;
  // Exactly one of these is set, matching `family`. They enqueue on args.stream and return; they throw
  // satlab::Error on a CUDA error (with the failing call and sizes).
  std::function<void(const ReduceArgs&)> reduce;
  std::function<void(const ScanArgs&)> scan;
  std::function<void(const SatArgs&)> sat;
  std::function<void(const DofArgs&)> dof;
  std::function<void(const CompactArgs&)> compact;
  std::function<void(const SortArgs&)> sort;
  std::function<void(const RefineArgs&)> refine;
  std::function<void(const SelectArgs&)> select;
  std::function<void(const TemporalArgs&)> temporal;
};

}  // namespace satlab
