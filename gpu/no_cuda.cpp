// Built instead of the CUDA library when no CUDA toolkit was found at configure time.
#include "core/error.hpp"
#include "gpu/bench/primitives.hpp"
#include "gpu/compare.hpp"
#include "gpu/depth/guided_filter_gpu.hpp"
#include "gpu/depth/stereo_gpu.hpp"
#include "gpu/device.hpp"
#include "gpu/refine/refine_gpu.hpp"
#include "gpu/sat/sat_host.hpp"
#include "gpu/select/select_gpu.hpp"
#include "gpu/temporal/temporal_gpu.hpp"
#include "gpu/convert/yuv_gpu.hpp"
#include "gpu/convert/yuv_in_gpu.hpp"
#include "gpu/verify.hpp"

namespace satlab::gpu {

const DeviceInfo& probe() {
  static const DeviceInfo info = [] {
    DeviceInfo d;
    d.reason = "satlab was built without CUDA (no CUDA toolkit at configure time)";
    return d;
  }();
  return info;
}

const std::vector<Variant>& variants() {
  static const std::vector<Variant> none;
  return none;
}

size_t device_memory_in_use() { return 0; }

Selection select_subject_gpu(const ImageRGBA8&, const std::vector<SelectClick>&, const SelectParams&) {
  throw Error("built without CUDA");
}
std::string check_select(const ImageRGBA8&, const std::vector<SelectClick>&, const SelectParams&, std::string*) {
  throw Error("built without CUDA");
}
SelectTiming time_select(int, int, const SelectParams&, int, int) { throw Error("built without CUDA"); }

struct GpuTemporalFilter::State {};
GpuTemporalFilter::GpuTemporalFilter(TemporalParams p) : p_(p) {}
GpuTemporalFilter::~GpuTemporalFilter() = default;
void GpuTemporalFilter::apply(ImageF&, const ImageRGBA8&) { throw Error("built without CUDA"); }
void GpuTemporalFilter::reset() {}
std::string check_temporal(int, int, int, uint64_t) { throw Error("built without CUDA"); }
double time_temporal(int, int, int, int) { throw Error("built without CUDA"); }

struct GpuYuv::State {};
GpuYuv::GpuYuv() = default;
GpuYuv::~GpuYuv() = default;
void GpuYuv::read(const void*, void*, int, int, Yuv420&) { throw Error("built without CUDA"); }
std::string check_yuv(int, int, uint64_t) { throw Error("built without CUDA"); }
struct GpuFrameConverter::State {};
GpuFrameConverter::GpuFrameConverter() { throw Error("built without CUDA"); }
GpuFrameConverter::~GpuFrameConverter() = default;
DeviceRGBA GpuFrameConverter::convert(const Yuv420SP&, const yuv::InCoeffs&, int) { throw Error("built without CUDA"); }
void download(const DeviceRGBA&, ImageRGBA8&) { throw Error("built without CUDA"); }
void* primary_context() { throw Error("built without CUDA"); }
std::string check_yuv_in(int, int, int, int, yuv::Matrix, bool, int, bool, uint64_t) { throw Error("built without CUDA"); }

std::unique_ptr<Pipeline> make_pipeline() { throw Error("built without CUDA"); }

std::vector<uint32_t> run_sat_u32(const Variant&, const uint8_t*, int, int, int, std::vector<std::string>*) {
  throw Error("built without CUDA");
}
std::vector<float> run_sat_f32(const Variant&, const float*, int, int, int) { throw Error("built without CUDA"); }
SatTiming time_sat(const Variant&, DType, int, int, int, int, int, bool, bool) { throw Error("built without CUDA"); }
SatTiming time_blur(int, int, const std::string&, bool, int, int, int) { throw Error("built without CUDA"); }
double copy_bandwidth_gbs(size_t, int) { throw Error("built without CUDA"); }
void set_lookback_epochs_left_for_testing(unsigned) {}
void set_bench_timing(BenchTiming) {}
void set_sat_trace_file(const std::string& path) {
  if (!path.empty()) throw Error("built without CUDA");
}
std::vector<Variant> sat_policy_variants() { return {}; }

void run_reduce(const Variant&, const void*, size_t, DType, ReduceOp, void*) { throw Error("built without CUDA"); }
void run_scan(const Variant&, const void*, size_t, DType, bool, void*) { throw Error("built without CUDA"); }
uint32_t run_compact(const Variant&, const int32_t*, size_t, int32_t, int32_t*) { throw Error("built without CUDA"); }
void run_sort(const Variant&, const uint32_t*, const uint32_t*, size_t, uint32_t*, uint32_t*) {
  throw Error("built without CUDA");
}
std::vector<VerifyLine> verify_variants(uint64_t, const std::function<void(const VerifyLine&)>&,
                                        const std::vector<Family>&) {
  throw Error("verify needs a CUDA device: satlab was built without CUDA");
}
Bandwidth measure_bandwidth(size_t, int) { throw Error("built without CUDA"); }
HostCopyBandwidth measure_host_copy(size_t, int) { throw Error("built without CUDA"); }
void force_first_poll_ns(long) {}

struct SatComparer::Impl {};
SatComparer::SatComparer() { throw Error(probe().reason); }  // nothing else can be reached
SatComparer::~SatComparer() = default;
void SatComparer::set_image(const ImageRGBA8&) {}
int SatComparer::width() const { return 0; }
int SatComparer::height() const { return 0; }
std::vector<const Variant*> SatComparer::candidates() const { return {}; }
SatComparison SatComparer::run(const Variant&) { return {}; }
void SatComparer::corrupt_next_output(size_t) {}
std::vector<PrimitiveResult> bench_primitives(const PrimitiveBenchOptions&,
                                              const std::function<void(const PrimitiveResult&)>&) {
  throw Error("bench needs a CUDA device: satlab was built without CUDA");
}

const Variant* guided_sat_builder(const std::string&) { throw Error("built without CUDA"); }
void guided_filter(const GuidedDeviceArgs&) { throw Error("built without CUDA"); }
GuidedResult guided_filter_gpu(const ImageF&, const ImageF&, const GuidedParams&, const std::string&) {
  throw Error("built without CUDA");
}
GuidedTiming time_guided(int, int, const GuidedParams&, int, int, const std::string&) {
  throw Error("built without CUDA");
}
StereoResult stereo_match(const ImageRGBA8&, const ImageRGBA8&, const StereoParams&, const std::string&) {
  throw Error(probe().reason);
}
StereoTiming time_stereo(int, int, const StereoParams&, int, int, const std::string&) { throw Error(probe().reason); }
void set_stereo_stack_pixels_for_testing(size_t) {}

std::vector<Variant> refine_variants() { return {}; }
ImageF refine_gpu(const std::string&, const RefineInput&) { throw Error(probe().reason); }
std::string check_refine(const std::string&, const RefineInput&, std::string*) { throw Error(probe().reason); }
std::vector<RefineCase> refine_cases(uint64_t) { throw Error(probe().reason); }
std::string check_refine_weights() { throw Error(probe().reason); }
RefineTiming time_refine(const std::string&, int, int, int, int, int, int) { throw Error(probe().reason); }

}  // namespace satlab::gpu
