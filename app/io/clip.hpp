// Clips: videos (MP4, MOV, MKV, WebM, AVI through FFmpeg's libraries, opened at run time like libheif, so
// the binary starts where they are not installed) and image sequences (a printf pattern such as
// shot_%04d.png, or a folder of images, in every still format satlab reads). Frames come in display order
// with their times (variable frame rate kept), turned by the stream's rotation. Every failure throws
// satlab::Error with one line naming the file, and the frame and its time where one is at fault.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/device_rgba.hpp"
#include "core/image.hpp"
#include "core/yuv.hpp"

namespace satlab::io {

// A video container by extension (.mp4 .m4v .mov .mkv .webm .avi).
bool is_video_path(const std::string& path);
// A printf pattern of one integer (%d or %0Nd) in the file name.
bool is_sequence_pattern(const std::string& path);
// Either, or a folder (of a sequence's frames).
bool is_clip_path(const std::string& path);
// FFmpeg's libraries could be opened (else why not: the packages to install).
bool video_available(std::string* why = nullptr);

struct ClipInfo {
  int width = 0, height = 0;  // as displayed (rotation applied)
  double fps = 0;             // the nominal rate (sequences: the one asked for)
  long long frames = -1;      // the count where known (sequences; a video's header), else -1
  std::string kind;           // "video" or "sequence"
  std::string codec;          // the video's decoder ("h264", ...); a sequence: its first frame's format
  int rotation = 0;           // degrees turned on reading (0, 90, 180, 270)
  int bits = 8;               // bits per sample as stored
  double duration = 0;        // seconds where known (a sequence: frames / fps; a video: its header's), else 0
  std::string audio;          // a video's audio codec ("aac", ...); "": none
  std::string first_file;     // a sequence's first frame's file
  int color_primaries = 2, color_trc = 2;  // a video's primaries and transfer as stated (FFmpeg's AVColorPrimaries,
                                           // AVColorTransferCharacteristic; 2: unspecified)
  std::string depth_track;   // a video's own depth track (app/io/depth_track.hpp: Android's MP4-AT), "" none;
                             // open_clip(path, true) reads it
  bool inverse_depth = false;  // that track holds inverse depth (larger is nearer: a disparity)
  std::string decoder = "cpu";  // "nvdec": frames come decoded on the GPU (ClipFrame::device); else "cpu"
  std::string decoder_note;     // why NVDEC was not used where it was asked for with "auto" ("": it was, or not asked)
};

struct ClipFrame {
  long long index = 0;  // 0-based order in the clip
  long long number = 0; // a sequence's frame number (shot_0007: 7); a video's: index
  double time = 0;      // seconds from the clip's start
  ImageRGBA8 image;     // colour clips decoded on the CPU
  DeviceRGBA device;    // colour clips decoded on the GPU (ClipInfo::decoder "nvdec"): image is then empty
  ImageF depth;         // depth clips (open_clip(..., true)): the first channel in [0,1], 16-bit where stored so
};

class ClipReader {
 public:
  virtual ~ClipReader() = default;
  const ClipInfo& info() const { return info_; }
  // The next frame; false at the end. Throws satlab::Error naming the frame and its time for a damaged one.
  virtual bool next(ClipFrame& frame) = 0;
  // Moves so that next() returns the first frame at or after `time` (seconds; half a frame's slack); a
  // video seeks to the key frame before it and decodes forward. Throws satlab::Error where it cannot.
  virtual void seek(double time) = 0;

 protected:
  ClipInfo info_;
};

// How a colour video's frames are decoded.
struct ClipOptions {
  // "cpu": FFmpeg's software decoders, frames in host memory. "nvdec": NVIDIA's decoder through FFmpeg's
  // CUDA frames (H.264, HEVC, VP9, AV1 as the card decodes them; 4:2:0, 8 to 12 bits), converted on the
  // device by `to_device` and kept there (ClipFrame::device); one line where it cannot. "auto": nvdec
  // where it opens and decodes the first frame, else cpu with ClipInfo::decoder_note saying why.
  // Depth clips and sequences are decoded on the CPU whatever this says.
  std::string decoder = "cpu";
  // The conversion of a decoded frame's device planes (the GPU library's GpuFrameConverter), which this
  // CUDA-free library cannot do itself. Without it, "nvdec" is refused and "auto" means cpu.
  std::function<DeviceRGBA(const Yuv420SP&, const yuv::InCoeffs&, int rotation)> to_device;
  // The CUDA context (a CUcontext) FFmpeg's CUDA device is made on: the pipeline's, so that the frames'
  // device pointers are valid there (the GPU library's primary_context). Null: FFmpeg makes its own on the
  // primary context, which it refuses where that is already active with flags other than blocking sync.
  void* cuda_context = nullptr;
  // The CPU decoders' 4:2:0 frames converted as NVDEC's are (core/yuv.hpp's yuv420sp_to_rgba) instead of by
  // swscale: the two decoders' frames then agree bit for bit (tests/gpu/yuv_test.cpp). Slower.
  bool reference_conversion = false;
  // NVDEC's frames also downloaded into ClipFrame::image by `to_host`, on the reading thread (the app, which
  // keeps the frame's pixels on the host, while its GPU pipeline reads the device image).
  bool host_copy = false;
  std::function<void(const DeviceRGBA&, ImageRGBA8&)> to_host;
};
// "cpu", "nvdec", "auto"; else throws satlab::Error naming them.
void check_decoder(const std::string& name);

// A video, a pattern or a folder. `depth`: frames as depth maps (ClipFrame::depth); a video with its own depth
// track (ClipInfo::depth_track) gives that track's frames. `fps`: a sequence's rate.
// A sequence whose numbering has a gap, or whose frames differ in size, is refused with one line.
std::unique_ptr<ClipReader> open_clip(const std::string& path, bool depth = false, double fps = 24.0,
                                      const ClipOptions& options = {});
// Decodes `r` ahead on a thread of its own, up to `ahead` frames, while the caller works on earlier ones.
std::unique_ptr<ClipReader> read_ahead(std::unique_ptr<ClipReader> r, int ahead = 3);

struct ClipSpec {
  int width = 0, height = 0;
  double fps = 24.0;
  std::string codec;  // "": by extension (libx264 for .mp4/.mov/.mkv/.m4v/.avi, libvpx-vp9 for .webm); "ffv1": lossless;
                      // "hevc" (libx265), "h264", "vp9", "mpeg4", or an FFmpeg encoder's name
  int quality = 18;   // the encoder's constant-rate factor (x264/VP9 CRF), lower is better
  // A video whose audio stream is copied into this one, packet for packet, from audio_start to audio_end
  // seconds (< 0: its end), with its own times; the container must hold that codec (else one line).
  std::string audio_from;
  double audio_start = 0, audio_end = -1;
  // A video's orientation and colour kept from its input: frames are given upright (as read), written turned
  // back by `rotation` (ClipInfo::rotation: 0, 90, 180, 270) with the display matrix that turns them upright
  // again, so the file is laid out as the input was. Primaries and transfer as stated (FFmpeg's values; -1:
  // BT.709 and sRGB); the matrix is the one encoded (BT.709, limited range). A sequence is written upright.
  int rotation = 0;
  int color_primaries = -1, color_trc = -1;
};

// Writes frames in order. A video goes to PATH.tmp-PID and is renamed by finish(); a sequence's frames are
// each written whole (save_image) and removed again if the clip is not finished. A writer destroyed
// before finish() leaves nothing behind.
class ClipWriter {
 public:
  virtual ~ClipWriter() = default;
  // `number`: a sequence's frame number (the input's, so shot_1001 stays 1001); `time`: seconds.
  virtual void write(const ImageRGBA8& frame, double time, long long number) = 0;
  virtual void finish() = 0;
  virtual std::string summary() const = 0;  // "H.264 (libx264), CRF 18, 120 frames"
  // Whether write_yuv420 takes frames (an encoder fed 8-bit 4:2:0, BT.709 limited range: H.264, HEVC, VP9
  // at even sides), which are then encoded as they are, with no conversion on the host.
  virtual bool takes_yuv420() const { return false; }
  virtual void write_yuv420(const Yuv420& frame, double time, long long number);  // throws where it does not
};
std::unique_ptr<ClipWriter> open_clip_writer(const std::string& path, const ClipSpec& spec);

// FFmpeg's libraries alone, for a benchmark's anchor: `in` decoded and each frame, as the decoder gave it
// (no conversion), encoded into `out` as open_clip_writer would (`spec`'s codec and quality; its size is
// the input's). Returns the frames; throws satlab::Error where the pixel formats differ.
long long transcode_clip(const std::string& in, const std::string& out, const ClipSpec& spec);

// A sequence pattern's file for one number: printf of the pattern.
std::string sequence_file(const std::string& pattern, long long number);

}  // namespace satlab::io
