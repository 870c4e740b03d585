#include "app/ops/clip_decoder.hpp"

#include <memory>

#include "core/error.hpp"
#include "gpu/convert/yuv_in_gpu.hpp"
#include "gpu/device.hpp"

namespace satlab {

io::ClipOptions clip_decoder(const std::string& name, bool gpu, bool host_frames, bool host_copy) {
  io::check_decoder(name);
  io::ClipOptions o;
  if (name == "cpu" || (name == "auto" && (!gpu || host_frames))) return o;
  if (!gpu) throw Error("--decoder nvdec: decodes into the GPU pipeline's memory, and the backend is the CPU");
  const gpu::DeviceInfo& dev = gpu::probe();
  if (!dev.available) {
    if (name == "nvdec") throw Error("--decoder nvdec: no GPU (" + dev.reason + ")");
    return o;
  }
  try {
    o.cuda_context = gpu::primary_context();  // the pipeline's: FFmpeg's frames are then its device memory
  } catch (const Error& e) {
    if (name == "nvdec") throw Error(std::string("--decoder nvdec: ") + e.what());
    return o;
  }
  o.decoder = name;
  auto converter = std::make_shared<gpu::GpuFrameConverter>();
  o.to_device = [converter](const Yuv420SP& in, const yuv::InCoeffs& k, int rotation) {
    return converter->convert(in, k, rotation);
  };
  o.host_copy = host_copy;
  o.to_host = [](const DeviceRGBA& d, ImageRGBA8& out) { gpu::download(d, out); };
  return o;
}

ImageRGBA8& host_image(io::ClipFrame& frame) {
  if (frame.image.empty() && !frame.device.empty()) gpu::download(frame.device, frame.image);
  return frame.image;
}

}  // namespace satlab
