// The CPU backend of the Pipeline interface: the fallback where there is no CUDA device and the
// reference the GPU backend is compared with. Stages are timed with a steady clock.
#include <algorithm>
#include <chrono>

#include "core/error.hpp"
#include "core/parallel.hpp"
#include "core/pipeline.hpp"
#include "core/reference.hpp"

namespace satlab {
namespace {

constexpr size_t kMaxPixels = size_t(1) << 28;

class CpuPipeline final : public Pipeline {
 public:
  explicit CpuPipeline(int threads) : threads_(threads <= 0 ? default_threads() : threads) {}

  std::string backend_name() const override { return "cpu (" + std::to_string(threads_) + " threads)"; }

  void set_image(const ImageRGBA8& image) override {
    if (image.empty()) throw Error("empty image");
    if (image.pixels() > kMaxPixels)
      throw Error("image of " + std::to_string(image.width) + "x" + std::to_string(image.height) +
                  " pixels is larger than the CPU backend's limit of 2^28 pixels");
    image_ = image;
    sat_valid_ = false;
    if (!depth_raw_.empty() && (depth_raw_.width != image.width || depth_raw_.height != image.height))
      depth_raw_ = ImageF();  // a depth map of the old size no longer applies
  }

  void set_depth(const ImageF& depth) override {
    if (depth.channels != 1) throw Error("depth map must have one channel");
    if (depth.width != image_.width || depth.height != image_.height)
      throw Error("depth map is " + std::to_string(depth.width) + "x" + std::to_string(depth.height) +
                  " but the image is " + std::to_string(image_.width) + "x" + std::to_string(image_.height));
    depth_raw_ = depth;
    depth_valid_ = false;
  }

  void set_params(const Params& params) override {
    validate(params);
    params_ = params;
  }

  void run() override {
    if (image_.empty()) throw Error("no image set");
    timings_.clear();
    const double n = double(image_.pixels());
    if (params_.filter == FilterKind::Dof) {
      // Without a depth map every pixel is taken to lie on the focus plane: the image stays sharp.
      if (depth_raw_.empty()) {
        depth_norm_ = ImageF(image_.width, image_.height, 1);
        std::fill(depth_norm_.data.begin(), depth_norm_.data.end(), params_.focus);
      } else if (!depth_valid_) {  // the normalised depth changes only with the depth map
        time("reduce", 4 * n, [&] { depth_norm_ = normalise_depth(depth_raw_, threads_); });
        depth_valid_ = true;
      }
      time("coc", 8 * n, [&] { coc_ = coc_map(depth_norm_, params_, threads_); });
    }
    if (!sat_valid_) {  // the SAT depends on the image only
      time("sat", 20 * n, [&] { sat_rgba8(image_, sat_, threads_); });
      sat_valid_ = true;
    }
    time("blur", 24 * n, [&] {
      result_ = params_.filter == FilterKind::Dof ? dof_blur(image_, sat_, coc_, threads_)
                                                  : box_blur(image_, sat_, params_.box_radius, threads_);
    });
  }

  const ImageRGBA8& result() override { return result_; }
  const ImageF& depth_normalised() override { return depth_norm_; }
  const ImageF& coc() override { return coc_; }
  const std::vector<StageTiming>& timings() const override { return timings_; }

 private:
  template <typename F>
  void time(const char* name, double bytes, F&& f) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    auto t1 = std::chrono::steady_clock::now();
    timings_.push_back({name, std::chrono::duration<double, std::milli>(t1 - t0).count(), bytes});
  }

  int threads_;
  ImageRGBA8 image_, result_;
  ImageF depth_raw_, depth_norm_, coc_;
  std::vector<uint32_t> sat_;
  bool sat_valid_ = false, depth_valid_ = false;
  Params params_;
  std::vector<StageTiming> timings_;
};

}  // namespace

std::unique_ptr<Pipeline> make_cpu_pipeline(int threads) { return std::make_unique<CpuPipeline>(threads); }

}  // namespace satlab
