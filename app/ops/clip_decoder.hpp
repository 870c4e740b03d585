// The one place that turns a clip decoder's name ("auto", "cpu" or "nvdec") into the clip reader's options
// (app/io/clip.hpp): NVDEC's frames converted on the device by the GPU library, for a GPU pipeline.
#pragma once
#include <string>

#include "app/io/clip.hpp"

namespace satlab {

// "cpu": the CPU decoders. "nvdec": NVDEC, or satlab::Error where the pipeline is not on the GPU (`gpu`
// false) or the build has no CUDA. "auto": NVDEC where `gpu` and the frames need not come to the host
// (`host_frames` false: a depth clip's refine, stereo), else the CPU. Another name: satlab::Error naming the
// three.
// `host_copy`: NVDEC's frames also come to the host (ClipFrame::image), downloaded on the reading thread.
io::ClipOptions clip_decoder(const std::string& name, bool gpu, bool host_frames = false, bool host_copy = false);

// A frame's pixels on the host: its image, or its device image downloaded into it (kept there).
ImageRGBA8& host_image(io::ClipFrame& frame);

}  // namespace satlab
