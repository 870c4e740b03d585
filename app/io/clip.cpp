#include "app/io/clip.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <filesystem>
#include <functional>
#include <mutex>
#include <regex>
#include <thread>
#include <unistd.h>
#include <utility>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/display.h>
#include <libavutil/hwcontext.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
}

#include "app/io/atomic_file.hpp"
#include "app/io/depth_track.hpp"
#include "app/io/dynlib.hpp"
#include "app/io/image_io.hpp"
#include "app/io/output_names.hpp"
#include "core/error.hpp"

namespace satlab::io {
namespace {

std::string lower_extension(const std::string& path) {
  const size_t slash = path.find_last_of('/'), dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string e = path.substr(dot);
  for (char& c : e) c = char(std::tolower(static_cast<unsigned char>(c)));
  return e;
}

std::string time_text(double t) {
  char b[32];
  std::snprintf(b, sizeof(b), "%.3f s", t);
  return b;
}

// AV_CUDA_USE_PRIMARY_CONTEXT of libavutil/hwcontext_cuda.h (which needs CUDA's cuda.h, and this library
// builds without CUDA): FFmpeg's CUDA device on the primary context, the CUDA runtime's.
constexpr int kCudaUsePrimaryContext = 1 << 0;
// AVCUDADeviceContext's layout (libavutil/hwcontext_cuda.h, libavutil57's ABI): a CUDA device made on a
// context of the caller's (FFmpeg's own on the primary context refuses one that is already active with other
// flags than blocking sync, as the CUDA runtime's is).
struct FfCudaDeviceContext {
  void* cuda_ctx;  // CUcontext
  void* stream;    // CUstream; null: the legacy default stream
  void* internal;  // FFmpeg's, made by av_hwdevice_ctx_init
};

// FFmpeg's libraries (Debian 12: libavformat59, libavcodec59, libavutil57, libswscale6), opened once.
struct Av {
  DynLib util{"libavutil.so.57"}, codec{"libavcodec.so.59"}, format{"libavformat.so.59"}, scale{"libswscale.so.6"};
#define SATLAB_AV(lib, name) decltype(&::name) name = nullptr;
#define SATLAB_AV_FUNCTIONS(X)                                                                                  \
  X(util, av_frame_alloc) X(util, av_frame_free) X(util, av_frame_get_buffer) X(util, av_strerror)              \
  X(util, av_frame_make_writable)              \
  X(util, av_display_rotation_get) X(util, av_log_set_level) X(util, av_opt_set) X(util, av_dict_set)           \
  X(util, av_dict_free) X(util, av_pix_fmt_desc_get) X(util, av_hwdevice_ctx_create) X(util, av_buffer_ref)     \
  X(util, av_hwdevice_ctx_alloc) X(util, av_hwdevice_ctx_init)                                                   \
  X(util, av_buffer_unref) X(util, av_get_pix_fmt_name) X(codec, avcodec_get_hw_config)                          \
  X(codec, avcodec_find_decoder) X(codec, avcodec_find_encoder_by_name) X(codec, avcodec_alloc_context3)         \
  X(codec, avcodec_free_context) X(codec, avcodec_parameters_to_context)                                        \
  X(codec, avcodec_parameters_from_context) X(codec, avcodec_open2) X(codec, avcodec_send_packet)               \
  X(codec, avcodec_receive_frame) X(codec, avcodec_flush_buffers) X(codec, avcodec_send_frame) X(codec, avcodec_receive_packet)                 \
  X(codec, av_packet_alloc) X(codec, av_packet_free) X(codec, av_packet_unref) X(codec, av_packet_rescale_ts)   \
  X(codec, avcodec_parameters_copy) X(codec, avcodec_get_name)                                                 \
  X(format, avformat_open_input) X(format, avformat_find_stream_info) X(format, av_find_best_stream)            \
  X(format, av_read_frame) X(format, avformat_close_input) X(format, avformat_alloc_output_context2)            \
  X(format, avformat_new_stream) X(format, avio_open) X(format, avio_closep) X(format, avformat_write_header)    \
  X(format, av_interleaved_write_frame) X(format, av_write_trailer) X(format, avformat_free_context)            \
  X(format, av_stream_get_side_data) X(format, av_stream_new_side_data) X(util, av_display_rotation_set)             \
  X(format, av_seek_frame) X(format, avformat_query_codec)                                                                             \
  X(scale, sws_getContext) X(scale, sws_scale) X(scale, sws_freeContext) X(scale, sws_setColorspaceDetails)     \
  X(scale, sws_getCoefficients) X(scale, sws_alloc_context) X(scale, sws_init_context) X(util, av_opt_set_int)     \
  X(util, av_malloc) X(util, av_freep) X(format, avformat_alloc_context) X(format, avio_alloc_context)                \
  X(format, avio_context_free)
  SATLAB_AV_FUNCTIONS(SATLAB_AV)
#undef SATLAB_AV
  std::string error;

  Av() {
#define SATLAB_AV(lib, name) lib.get(name, #name);
    SATLAB_AV_FUNCTIONS(SATLAB_AV)
#undef SATLAB_AV
    for (const DynLib* l : {&util, &codec, &format, &scale})
      if (!l->ok() && error.empty()) error = l->error();
    if (!error.empty()) {
      error = "video needs FFmpeg's libraries (" + error +
              "): install libavformat59, libavcodec59 and libswscale6 (Debian 12)";
      return;
    }
    // Quiet: failures are reported as one line (SATLAB_FFMPEG_LOG=1 shows FFmpeg's own messages).
    const char* log = std::getenv("SATLAB_FFMPEG_LOG");
    av_log_set_level(log && *log == '1' ? AV_LOG_INFO : AV_LOG_QUIET);
  }
  std::string what(int e) const {
    char b[128] = "";
    av_strerror(e, b, sizeof(b));
    return b;
  }
};
#undef SATLAB_AV_FUNCTIONS

const Av& av() {
  static const Av a;
  if (!a.error.empty()) throw Error(a.error);
  return a;
}

// A conversion between pixel formats at one size, cut into bands of rows converted at once on threads,
// each band with a context of its own: FFmpeg 5.1's sws_scale runs on one thread (on 2 cores, decoding
// a 1080p H.264 clip to RGBA went from 38.8 to 48.0 frames a second with bands). `setup` sets each context's colour
// details. A band starts on a row that every plane's subsampling divides (16), so that its planes' rows
// are whole; the chroma of a band's edge rows is interpolated within the band.
class BandScaler {
 public:
  // chroma_pos: the source's chroma siting for swscale (src_h_chr_pos, src_v_chr_pos in 1/256 of a luma
  // sample; -513 each: swscale's own default, centred).
  BandScaler(const Av& a, int w, int h, AVPixelFormat from, AVPixelFormat to, int flags,
             const std::function<void(SwsContext*)>& setup, std::pair<int, int> chroma_pos = {-513, -513})
      : a_(a), from_(from), to_(to) {
    const int threads = int(std::clamp(std::thread::hardware_concurrency(), 1u, 16u));
    const int bands = std::max(1, std::min(threads, h / 64));
    const int step = (h / bands + 15) / 16 * 16;
    for (int y = 0; y < h; y += step) {
      const int rows = std::min(step, h - y);
      SwsContext* c = a_.sws_alloc_context();
      if (c) {
        const std::pair<const char*, int64_t> opts[] = {{"srcw", w}, {"srch", rows}, {"src_format", from},
                                                       {"dstw", w}, {"dsth", rows}, {"dst_format", to},
                                                       {"sws_flags", flags}, {"src_h_chr_pos", chroma_pos.first},
                                                       {"src_v_chr_pos", chroma_pos.second}};
        bool ok = true;
        for (const auto& o : opts) ok = ok && a_.av_opt_set_int(c, o.first, o.second, 0) >= 0;
        if (!ok || a_.sws_init_context(c, nullptr, nullptr) < 0) a_.sws_freeContext(c), c = nullptr;
      }
      if (!c) {
        release();
        throw Error("cannot convert pixel format " + std::to_string(int(from)) + " to " + std::to_string(int(to)));
      }
      if (setup) setup(c);
      bands_.push_back({y, rows, c});
    }
  }
  ~BandScaler() { release(); }
  BandScaler(const BandScaler&) = delete;
  BandScaler& operator=(const BandScaler&) = delete;
  AVPixelFormat from() const { return from_; }

  void scale(const uint8_t* const src[4], const int src_stride[4], uint8_t* const dst[4], const int dst_stride[4]) const {
    auto band = [&](const Band& b) {
      const uint8_t* s[4] = {};
      uint8_t* d[4] = {};
      for (int i = 0; i < 4; ++i) {
        if (src[i]) s[i] = src[i] + ptrdiff_t(b.y0 >> shift(from_, i)) * src_stride[i];
        if (dst[i]) d[i] = dst[i] + ptrdiff_t(b.y0 >> shift(to_, i)) * dst_stride[i];
      }
      a_.sws_scale(b.ctx, s, src_stride, 0, b.rows, d, dst_stride);
    };
    std::vector<std::thread> workers;
    for (size_t i = 1; i < bands_.size(); ++i) workers.emplace_back(band, bands_[i]);
    band(bands_[0]);
    for (auto& t : workers) t.join();
  }

 private:
  struct Band {
    int y0, rows;
    SwsContext* ctx;
  };
  // Rows of plane i per image row, as a shift: the chroma planes of a YUV format are subsampled.
  int shift(AVPixelFormat f, int plane) const {
    const AVPixFmtDescriptor* d = a_.av_pix_fmt_desc_get(f);
    if (!d || (d->flags & AV_PIX_FMT_FLAG_RGB) || (plane != 1 && plane != 2)) return 0;
    return d->log2_chroma_h;
  }
  void release() {
    for (Band& b : bands_) a_.sws_freeContext(b.ctx);
    bands_.clear();
  }
  const Av& a_;
  AVPixelFormat from_, to_;
  std::vector<Band> bands_;
};

// An RGBA image turned counter-clockwise by deg (0, 90, 180, 270) degrees, as a display matrix asks.
ImageRGBA8 rotated(const ImageRGBA8& in, int deg) {
  if (deg == 0) return in;
  const bool side = deg == 90 || deg == 270;
  ImageRGBA8 out(side ? in.height : in.width, side ? in.width : in.height);
  for (int y = 0; y < out.height; ++y)
    for (int x = 0; x < out.width; ++x) {
      int sx = x, sy = y;
      if (deg == 90) sx = in.width - 1 - y, sy = x;          // counter-clockwise
      if (deg == 180) sx = in.width - 1 - x, sy = in.height - 1 - y;
      if (deg == 270) sx = y, sy = in.height - 1 - x;        // clockwise
      const uint8_t* p = in.px(sx, sy);
      std::copy(p, p + 4, out.px(x, y));
    }
  return out;
}

ImageF rotated(const ImageF& in, int deg) {
  if (deg == 0) return in;
  const bool side = deg == 90 || deg == 270;
  ImageF out(side ? in.height : in.width, side ? in.width : in.height, 1);
  for (int y = 0; y < out.height; ++y)
    for (int x = 0; x < out.width; ++x) {
      int sx = x, sy = y;
      if (deg == 90) sx = in.width - 1 - y, sy = x;
      if (deg == 180) sx = in.width - 1 - x, sy = in.height - 1 - y;
      if (deg == 270) sx = y, sy = in.height - 1 - x;
      out.at(x, y) = in.at(sx, sy);
    }
  return out;
}

struct FileSizeProbe {
  uint64_t size = 0;
  explicit FileSizeProbe(const std::string& path) {
    std::error_code ec;
    const auto n = std::filesystem::file_size(path, ec);
    if (!ec) size = n;
  }
};

// A byte range of a file with patches laid over it, as FFmpeg's input (an MP4-AT file's auxiliary MP4:
// app/io/depth_track.hpp's mp4at_view).
class ViewFile {
 public:
  ViewFile(const std::string& path, Mp4AtView v) : f_(std::fopen(path.c_str(), "rb")), v_(std::move(v)) {
    if (!f_) throw Error(path + ": cannot open (" + std::strerror(errno) + ")");
  }
  ~ViewFile() { std::fclose(f_); }
  ViewFile(const ViewFile&) = delete;
  ViewFile& operator=(const ViewFile&) = delete;
  static int read(void* opaque, uint8_t* buf, int n) {
    auto* self = static_cast<ViewFile*>(opaque);
    const uint64_t len = self->v_.end - self->v_.start;
    if (self->pos_ >= len || n <= 0) return AVERROR_EOF;
    const size_t want = size_t(std::min<uint64_t>(uint64_t(n), len - self->pos_));
    const uint64_t at = self->v_.start + self->pos_;
    if (std::fseek(self->f_, long(at), SEEK_SET) != 0) return AVERROR(EIO);
    const size_t got = std::fread(buf, 1, want, self->f_);
    if (got == 0) return AVERROR_EOF;
    for (const auto& [off, bytes] : self->v_.patches)  // the patches within [at, at + got)
      for (size_t i = 0; i < bytes.size(); ++i)
        if (off + i >= at && off + i < at + got) buf[off + i - at] = bytes[i];
    self->pos_ += got;
    return int(got);
  }
  static int64_t seek(void* opaque, int64_t offset, int whence) {
    auto* self = static_cast<ViewFile*>(opaque);
    const int64_t len = int64_t(self->v_.end - self->v_.start);
    whence &= ~AVSEEK_FORCE;
    if (whence == AVSEEK_SIZE) return len;
    const int64_t to = whence == SEEK_SET ? offset : whence == SEEK_CUR ? int64_t(self->pos_) + offset
                                                   : whence == SEEK_END ? len + offset : -1;
    if (to < 0) return AVERROR(EINVAL);
    self->pos_ = uint64_t(to);
    return to;
  }

 private:
  std::FILE* f_;
  Mp4AtView v_;
  uint64_t pos_ = 0;
};

class VideoReader final : public ClipReader {
 public:
  VideoReader(const std::string& path, bool depth, const ClipOptions& options = {})
      : a_(av()), path_(path), depth_(depth), options_(options) {
    try {
      open();
    } catch (...) {
      release();  // a constructor that throws runs no destructor
      throw;
    }
  }
  ~VideoReader() override { release(); }

 private:
  void open() {
    const std::string& path = path_;
    // Its own depth track (Android's MP4-AT): a depth clip reads it, a colour clip says it is there.
    Mp4AtInfo at;
    try {
      at = find_mp4at(path);
    } catch (const Error& e) {
      if (depth_) throw;
      info_.decoder_note = e.what();  // the primary tracks still play
    }
    if (at.found && at.depth_track >= 0)
      info_.depth_track = at.describe(), info_.inverse_depth = at.inverse;
    const bool track = depth_ && at.found;
    if (track && at.depth_track < 0) throw Error(path + ": its MP4-AT auxiliary tracks hold no depth track");
    if (track) {  // FFmpeg reads the auxiliary MP4 through a view of the file
      FileSizeProbe probe(path);
      view_ = std::make_unique<ViewFile>(path, mp4at_view(at, probe.size));
      fmt_ = a_.avformat_alloc_context();
      auto* buf = static_cast<uint8_t*>(a_.av_malloc(1 << 16));
      if (fmt_ && buf) pb_ = a_.avio_alloc_context(buf, 1 << 16, 0, view_.get(), &ViewFile::read, nullptr, &ViewFile::seek);
      if (!pb_) {
        a_.av_freep(&buf);
        throw Error(path + ": out of memory");
      }
      fmt_->pb = pb_;
      fmt_->flags |= AVFMT_FLAG_CUSTOM_IO;
    }
    if (int r = a_.avformat_open_input(&fmt_, path.c_str(), nullptr, nullptr); r < 0)
      throw Error(path + ": cannot open " + (track ? "its depth track" : "as a video") + " (" + a_.what(r) + ")");
    if (int r = a_.avformat_find_stream_info(fmt_, nullptr); r < 0)
      throw Error(path + ": no stream information (" + a_.what(r) + "): the file may be cut short");
    const AVCodec* dec = nullptr;
    if (track) {
      stream_ = at.depth_track;
      if (stream_ >= int(fmt_->nb_streams) || fmt_->streams[stream_]->codecpar->codec_type != AVMEDIA_TYPE_VIDEO)
        throw Error(path + ": " + at.describe() + " is not a video track of its auxiliary MP4");
      dec = a_.avcodec_find_decoder(fmt_->streams[stream_]->codecpar->codec_id);
      info_.depth_track = at.describe();
    } else {
      stream_ = a_.av_find_best_stream(fmt_, AVMEDIA_TYPE_VIDEO, -1, -1, &dec, 0);
    }
    if (stream_ < 0) throw Error(path + ": no video stream");
    AVStream* st = fmt_->streams[stream_];
    if (!dec) throw Error(path + ": no decoder for its video codec (id " + std::to_string(int(st->codecpar->codec_id)) + ")");
    ctx_ = a_.avcodec_alloc_context3(dec);
    if (!ctx_ || a_.avcodec_parameters_to_context(ctx_, st->codecpar) < 0) throw Error(path + ": out of memory");
    ctx_->thread_count = 0;  // FFmpeg's own frame and slice threads
    ctx_->pkt_timebase = st->time_base;
    const bool want_gpu = !depth_ && options_.decoder != "cpu" && !cpu_only_;
    std::string why_not;  // why NVDEC is not used where it was asked for
    if (want_gpu) why_not = setup_nvdec(dec);
    if (int r = a_.avcodec_open2(ctx_, dec, nullptr); r < 0)
      throw Error(path + ": cannot open the " + dec->name + " decoder (" + a_.what(r) + ")");
    size_t n = 0;
    if (const uint8_t* m = a_.av_stream_get_side_data(st, AV_PKT_DATA_DISPLAYMATRIX, &n); m && n >= 36) {
      const double r = a_.av_display_rotation_get(reinterpret_cast<const int32_t*>(m));
      if (std::isfinite(r)) info_.rotation = ((int(std::lround(r / 90.0)) % 4) + 4) % 4 * 90;
    }
    pkt_ = a_.av_packet_alloc();
    frame_ = a_.av_frame_alloc();
    if (!pkt_ || !frame_) throw Error(path + ": out of memory");
    info_.kind = "video";
    info_.codec = dec->name;
    const bool side = info_.rotation == 90 || info_.rotation == 270;
    info_.width = side ? ctx_->height : ctx_->width;
    info_.height = side ? ctx_->width : ctx_->height;
    if (info_.width <= 0 || info_.height <= 0) throw Error(path + ": the video has no frame size");
    const AVRational fr = st->avg_frame_rate.num > 0 ? st->avg_frame_rate : st->r_frame_rate;
    info_.fps = fr.num > 0 && fr.den > 0 ? av_q2d(fr) : 0;
    info_.frames = st->nb_frames > 0 ? st->nb_frames : -1;
    info_.bits = ctx_->bits_per_raw_sample > 0 ? ctx_->bits_per_raw_sample : 8;
    info_.color_primaries = int(st->codecpar->color_primaries), info_.color_trc = int(st->codecpar->color_trc);
    if (const int as = a_.av_find_best_stream(fmt_, AVMEDIA_TYPE_AUDIO, -1, stream_, nullptr, 0); as >= 0)
      info_.audio = a_.avcodec_get_name(fmt_->streams[as]->codecpar->codec_id);
    tb_ = av_q2d(st->time_base);
    start_ = st->start_time != AV_NOPTS_VALUE ? st->start_time : 0;
    if (st->duration > 0) info_.duration = double(st->duration) * tb_;
    else if (fmt_->duration > 0) info_.duration = double(fmt_->duration) / AV_TIME_BASE;
    if (want_gpu && why_not.empty()) {
      // FFmpeg falls back to its CPU decoder where the card's cannot open (the codec's profile, the size,
      // no libnvcuvid): the first frame says which one decodes.
      try {
        peeked_ = decode();
      } catch (const Error& e) {
        why_not = e.what();
      }
      if (peeked_ && frame_->format == AV_PIX_FMT_CUDA) info_.decoder = "nvdec";
      else if (why_not.empty()) why_not = peeked_ ? "FFmpeg's NVDEC path did not open for this stream (SATLAB_FFMPEG_LOG=1 says why)" : "no frame decoded";
    }
    if (want_gpu && info_.decoder != "nvdec") {
      if (options_.decoder == "nvdec") throw Error(path + ": NVDEC: " + why_not);
      const std::string note = "decoded on the CPU: NVDEC " + why_not;
      if (!hw_) {  // never set up: the decoder is the CPU's as it stands
        info_.decoder_note = note;
        return;
      }
      // A decoder set up for NVDEC that did not take it (one thread, the first frame taken): opened again on the
      // CPU, from the start.
      release();
      cpu_only_ = true, peeked_ = flushed_ = dead_ = false, index_ = 0, last_ = 0;
      info_ = ClipInfo();
      open();
      info_.decoder_note = note;
    }
  }

  // Sets the decoder up for NVDEC (FFmpeg's CUDA frames on the CUDA runtime's primary context, so that
  // their device pointers are the pipeline's); "" where it did, else why not.
  std::string setup_nvdec(const AVCodec* dec) {
    if (!options_.to_device) return "is not available in this build (no CUDA)";
    bool cuda = false;
    for (int i = 0;; ++i) {
      const AVCodecHWConfig* c = a_.avcodec_get_hw_config(dec, i);
      if (!c) break;
      cuda = cuda || (c->device_type == AV_HWDEVICE_TYPE_CUDA && (c->methods & AV_CODEC_HW_CONFIG_METHOD_HW_DEVICE_CTX));
    }
    if (!cuda) return std::string("has no path for the ") + dec->name + " decoder";
    const AVPixelFormat f = ctx_->pix_fmt;
    if (f != AV_PIX_FMT_YUV420P && f != AV_PIX_FMT_YUVJ420P && f != AV_PIX_FMT_YUV420P10LE && f != AV_PIX_FMT_YUV420P12LE) {
      const char* n = a_.av_get_pix_fmt_name(f);
      return std::string("is used for 4:2:0 only, and the stream is ") + (n ? n : "of an unknown pixel format");
    }
    if (options_.cuda_context) {  // the pipeline's own context: FFmpeg's device pointers are then its
      hw_ = a_.av_hwdevice_ctx_alloc(AV_HWDEVICE_TYPE_CUDA);
      if (!hw_) return "out of memory";
      auto* dc = reinterpret_cast<AVHWDeviceContext*>(hw_->data);
      auto* cu = static_cast<FfCudaDeviceContext*>(dc->hwctx);
      cu->cuda_ctx = options_.cuda_context, cu->stream = nullptr;
      if (int r = a_.av_hwdevice_ctx_init(hw_); r < 0) return "cannot use the CUDA context (" + a_.what(r) + ")";
    } else if (int r = a_.av_hwdevice_ctx_create(&hw_, AV_HWDEVICE_TYPE_CUDA, nullptr, nullptr, kCudaUsePrimaryContext);
               r < 0) {
      return "cannot open the CUDA device (" + a_.what(r) + ")";
    }
    ctx_->hw_device_ctx = a_.av_buffer_ref(hw_);
    if (!ctx_->hw_device_ctx) return "out of memory";
    ctx_->opaque = this;
    ctx_->get_format = &VideoReader::pick_format;
    ctx_->thread_count = 1;  // the card decodes; FFmpeg's frame threads would each hold surfaces
    return "";
  }
  // CUDA frames where the decoder offers them, else its first software format.
  static AVPixelFormat pick_format(AVCodecContext* c, const AVPixelFormat* fmts) {
    const VideoReader* self = static_cast<const VideoReader*>(c->opaque);
    for (const AVPixelFormat* f = fmts; *f != AV_PIX_FMT_NONE; ++f)
      if (*f == AV_PIX_FMT_CUDA) return *f;
    for (const AVPixelFormat* f = fmts; *f != AV_PIX_FMT_NONE; ++f) {
      const AVPixFmtDescriptor* d = self->a_.av_pix_fmt_desc_get(*f);
      if (d && !(d->flags & AV_PIX_FMT_FLAG_HWACCEL)) return *f;
    }
    return AV_PIX_FMT_NONE;
  }

  void release() {
    sws_.reset();
    a_.av_frame_free(&frame_);
    a_.av_packet_free(&pkt_);
    a_.avcodec_free_context(&ctx_);
    if (hw_) a_.av_buffer_unref(&hw_);
    if (fmt_) a_.avformat_close_input(&fmt_);
    if (pb_) {  // a custom input stays the caller's: its buffer (perhaps FFmpeg's own by now) and context
      a_.av_freep(&pb_->buffer);
      a_.avio_context_free(&pb_);
    }
  }

 public:
  bool next(ClipFrame& out) override {
    if (peeked_) {
      peeked_ = false;
    } else if (!decode()) {
      return false;
    }
    convert(out);
    return true;
  }

  // The next decoded frame as the decoder gave it (valid until the next call), with its time in seconds;
  // null at the end. For a transcode, which needs no RGBA.
  const AVFrame* next_raw(double* time) {
    if (!decode()) return nullptr;
    const int64_t pts = frame_->best_effort_timestamp != AV_NOPTS_VALUE ? frame_->best_effort_timestamp : frame_->pts;
    *time = pts != AV_NOPTS_VALUE ? double(pts - start_) * tb_ : double(index_) / std::max(1.0, info_.fps);
    ++index_;
    return frame_;
  }

 private:
  // The next frame into frame_; false at the end.
  bool decode() {
    for (;;) {
      const int r = a_.avcodec_receive_frame(ctx_, frame_);
      if (r == 0) {
        if (skip_before_ > -1e300) {  // after a seek: the frames before the time asked for are dropped
          const int64_t pts = frame_->best_effort_timestamp != AV_NOPTS_VALUE ? frame_->best_effort_timestamp : frame_->pts;
          const double t = pts != AV_NOPTS_VALUE ? double(pts - start_) * tb_ : skip_before_;
          if (t < skip_before_) continue;
          skip_before_ = -1e301;
          index_ = std::llround(t * std::max(1.0, info_.fps));
        }
        return true;
      }
      if (r == AVERROR_EOF) return false;
      if (r != AVERROR(EAGAIN)) throw Error(path_ + ": frame " + std::to_string(index_) + " (near " + time_text(last_) + ") does not decode (" + a_.what(r) + ")");
      if (flushed_) return false;
      if (dead_) return false;
      const int rd = a_.av_read_frame(fmt_, pkt_);
      if (rd < 0) {
        if (rd != AVERROR_EOF) dead_ = true;  // reported once; the clip ends there
        if (rd != AVERROR_EOF)
          throw Error(path_ + ": reading stopped after frame " + std::to_string(index_) + " (" + time_text(last_) + "): " + a_.what(rd));
        a_.avcodec_send_packet(ctx_, nullptr);
        flushed_ = true;
        continue;
      }
      if (pkt_->stream_index == stream_) {
        const int s = a_.avcodec_send_packet(ctx_, pkt_);
        const double t = pkt_->pts != AV_NOPTS_VALUE ? double(pkt_->pts - start_) * tb_ : last_;
        a_.av_packet_unref(pkt_);
        if (s < 0 && s != AVERROR(EAGAIN))
          throw Error(path_ + ": the frame at " + time_text(t) + " (after frame " + std::to_string(index_) + ") is damaged (" + a_.what(s) + ")");
      } else {
        a_.av_packet_unref(pkt_);
      }
    }
  }


 public:
  void seek(double time) override {
    const double slack = 0.5 / std::max(1.0, info_.fps);
    const int64_t ts = start_ + int64_t(std::floor(std::max(0.0, time - slack) / tb_));
    if (int r = a_.av_seek_frame(fmt_, stream_, ts, AVSEEK_FLAG_BACKWARD); r < 0)
      throw Error(path_ + ": cannot seek to " + time_text(time) + " (" + a_.what(r) + ")");
    a_.avcodec_flush_buffers(ctx_);
    peeked_ = false;
    flushed_ = dead_ = false;
    skip_before_ = time - slack;
    last_ = std::max(0.0, time);
  }

 private:
  void convert(ClipFrame& out) {
    const int64_t pts = frame_->best_effort_timestamp != AV_NOPTS_VALUE ? frame_->best_effort_timestamp : frame_->pts;
    const double t = pts != AV_NOPTS_VALUE ? double(pts - start_) * tb_ : (index_ > 0 ? last_ + 1.0 / std::max(1.0, info_.fps) : 0.0);
    if ((frame_->flags & AV_FRAME_FLAG_CORRUPT) || frame_->decode_error_flags) {
      const long long bad = index_++;  // the next frame keeps its own index
      last_ = t;
      throw Error(path_ + ": frame " + std::to_string(bad) + " at " + time_text(t) + " is damaged");
    }
    // FFmpeg crops hardware frames at the right and bottom only: the left and top crop are to_device's.
    const bool cuda = frame_->format == AV_PIX_FMT_CUDA;
    const int w = frame_->width - (cuda ? int(frame_->crop_left) : 0), h = frame_->height - (cuda ? int(frame_->crop_top) : 0);
    const bool side = info_.rotation == 90 || info_.rotation == 270;
    if ((side ? h : w) != info_.width || (side ? w : h) != info_.height)
      throw Error(path_ + ": frame " + std::to_string(index_) + " at " + time_text(t) + " is " + std::to_string(w) + "x" +
                  std::to_string(h) + ", the clip's first " + std::to_string(side ? info_.height : info_.width) + "x" +
                  std::to_string(side ? info_.width : info_.height) + ": frames of mixed sizes are not read");
    if (frame_->format == AV_PIX_FMT_CUDA) {
      to_device(out, t);
      return;
    }
    if (!depth_ && options_.reference_conversion && reference_convert(out, t)) return;
    const AVPixelFormat want = depth_ ? AV_PIX_FMT_GRAY16LE : AV_PIX_FMT_RGBA;
    if (!sws_ || AVPixelFormat(frame_->format) != sws_->from()) {
      // The matrix and range the stream states (BT.601 where it states none), to full-range sRGB.
      const int cs = frame_->colorspace == AVCOL_SPC_BT709 ? SWS_CS_ITU709
                     : frame_->colorspace == AVCOL_SPC_BT2020_NCL || frame_->colorspace == AVCOL_SPC_BT2020_CL ? SWS_CS_BT2020
                                                                                                               : SWS_CS_DEFAULT;
      const int full = frame_->color_range == AVCOL_RANGE_JPEG;
      const Av& a = a_;
      sws_.reset();
      try {
        sws_ = std::make_unique<BandScaler>(a_, w, h, AVPixelFormat(frame_->format), want,
                                            SWS_BILINEAR | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT, [&a, cs, full](SwsContext* c) {
                                              a.sws_setColorspaceDetails(c, a.sws_getCoefficients(cs), full,
                                                                         a.sws_getCoefficients(SWS_CS_DEFAULT), 1, 0,
                                                                         1 << 16, 1 << 16);
                                            },
                                            std::pair<int, int>{siting().first ? 0 : 128, siting().second ? 0 : 128});
      } catch (const Error& e) {
        throw Error(path_ + ": " + e.what());
      }
    }
    out.index = out.number = index_;
    out.time = t;
    out.device = DeviceRGBA();
    if (depth_) {
      std::vector<uint16_t> g(size_t(w) * size_t(h));
      uint8_t* dst[4] = {reinterpret_cast<uint8_t*>(g.data()), nullptr, nullptr, nullptr};
      int stride[4] = {w * 2, 0, 0, 0};
      sws_->scale(frame_->data, frame_->linesize, dst, stride);
      ImageF d(w, h, 1);
      for (size_t i = 0; i < g.size(); ++i) d.data[i] = float(g[i]) / 65535.f;
      out.depth = rotated(d, info_.rotation);
      out.image = ImageRGBA8();
    } else if (info_.rotation == 0) {
      // Into the caller's image where it has this size (the read-ahead thread recycles them): a fresh 4K
      // frame a time costs its page faults.
      if (out.image.width != w || out.image.height != h) out.image = ImageRGBA8(w, h);
      uint8_t* dst[4] = {out.image.data.data(), nullptr, nullptr, nullptr};
      int stride[4] = {w * 4, 0, 0, 0};
      sws_->scale(frame_->data, frame_->linesize, dst, stride);
      out.depth = ImageF();
    } else {
      ImageRGBA8 img(w, h);
      uint8_t* dst[4] = {img.data.data(), nullptr, nullptr, nullptr};
      int stride[4] = {w * 4, 0, 0, 0};
      sws_->scale(frame_->data, frame_->linesize, dst, stride);
      out.image = rotated(img, info_.rotation);
      out.depth = ImageF();
    }
    last_ = t;
    ++index_;
  }

  // The stream's chroma siting: (on the even columns, on the even rows); H.264's and HEVC's default where it
  // states none: (true, false).
  std::pair<bool, bool> siting() const {
    return {frame_->chroma_location != AVCHROMA_LOC_CENTER && frame_->chroma_location != AVCHROMA_LOC_TOP &&
                frame_->chroma_location != AVCHROMA_LOC_BOTTOM,
            frame_->chroma_location == AVCHROMA_LOC_TOPLEFT || frame_->chroma_location == AVCHROMA_LOC_TOP};
  }

  // The matrix and range the stream states (BT.601 where it states none), as the CPU path's swscale takes them.
  yuv::InCoeffs frame_coeffs(bool jpeg_format, int bits) const {
    const yuv::Matrix m = frame_->colorspace == AVCOL_SPC_BT709 ? yuv::Matrix::Bt709
                          : frame_->colorspace == AVCOL_SPC_BT2020_NCL || frame_->colorspace == AVCOL_SPC_BT2020_CL ? yuv::Matrix::Bt2020
                                                                                                                   : yuv::Matrix::Bt601;
    return yuv::in_coeffs(m, jpeg_format || frame_->color_range == AVCOL_RANGE_JPEG, bits);
  }

  // ClipOptions::reference_conversion: a CPU decoder's planar 4:2:0 frame converted as NVDEC's are; false
  // for other formats (swscale converts them).
  bool reference_convert(ClipFrame& out, double t) {
    const AVPixelFormat f = AVPixelFormat(frame_->format);
    const int bits = f == AV_PIX_FMT_YUV420P10LE ? 10 : f == AV_PIX_FMT_YUV420P12LE ? 12 : 8;
    if (f != AV_PIX_FMT_YUV420P && f != AV_PIX_FMT_YUVJ420P && bits == 8) return false;
    Yuv420SP in;
    in.y = frame_->data[0], in.uv = frame_->data[1], in.v = frame_->data[2];
    in.y_pitch = size_t(frame_->linesize[0]), in.uv_pitch = size_t(frame_->linesize[1]), in.v_pitch = size_t(frame_->linesize[2]);
    in.width = frame_->width, in.height = frame_->height;
    in.bytes = bits > 8 ? 2 : 1, in.shift = 0;
    in.h_cosited = siting().first, in.v_cosited = siting().second;
    out.index = out.number = index_;
    out.time = t;
    yuv420sp_to_rgba(in, frame_coeffs(f == AV_PIX_FMT_YUVJ420P, bits), info_.rotation, out.image);
    out.device = DeviceRGBA();
    out.depth = ImageF();
    last_ = t;
    ++index_;
    return true;
  }

  // A frame NVDEC decoded (its planes in device memory) converted there: the matrix and range the stream
  // states, as the CPU path's.
  void to_device(ClipFrame& out, double t) {
    const auto* fc = reinterpret_cast<const AVHWFramesContext*>(frame_->hw_frames_ctx->data);
    Yuv420SP in;
    in.y_pitch = size_t(frame_->linesize[0]), in.uv_pitch = size_t(frame_->linesize[1]);
    int bits = 8;
    if (fc->sw_format == AV_PIX_FMT_NV12) in.bytes = 1;
    else if (fc->sw_format == AV_PIX_FMT_P010LE) in.bytes = 2, bits = 10;
    else if (fc->sw_format == AV_PIX_FMT_P016LE) in.bytes = 2, bits = std::clamp(info_.bits, 10, 16);
    else {
      const char* n = a_.av_get_pix_fmt_name(fc->sw_format);
      throw Error(path_ + ": NVDEC gave frames of " + (n ? n : "an unknown format") + ", which are not read");
    }
    in.shift = in.bytes == 2 ? 16 - bits : 0;
    in.h_cosited = siting().first, in.v_cosited = siting().second;
    // The left and top crop (FFmpeg leaves them on hardware frames): the planes from there (the chroma from the
    // sample pair holding it; an odd crop moves the chroma half a sample).
    const size_t cl = size_t(frame_->crop_left), ct = size_t(frame_->crop_top);
    in.y = frame_->data[0] + ct * in.y_pitch + cl * size_t(in.bytes);
    in.uv = frame_->data[1] + (ct / 2) * in.uv_pitch + (cl / 2) * 2 * size_t(in.bytes);
    in.width = frame_->width - int(cl), in.height = frame_->height - int(ct);
    out.index = out.number = index_;
    out.time = t;
    out.device = options_.to_device(in, frame_coeffs(false, bits), info_.rotation);
    if (options_.host_copy && options_.to_host) options_.to_host(out.device, out.image);  // into the recycled image
    else out.image = ImageRGBA8();
    out.depth = ImageF();
    last_ = t;
    ++index_;
  }

  const Av& a_;
  std::string path_;
  bool depth_;
  ClipOptions options_;
  AVBufferRef* hw_ = nullptr;  // the CUDA device FFmpeg decodes on (NVDEC)
  std::unique_ptr<ViewFile> view_;  // an MP4-AT depth track: the auxiliary MP4 as FFmpeg sees it
  AVIOContext* pb_ = nullptr;
  bool peeked_ = false;        // frame_ holds the first frame, decoded to learn which decoder runs
  bool cpu_only_ = false;      // NVDEC was asked for and did not open: reopened without it
  AVFormatContext* fmt_ = nullptr;
  AVCodecContext* ctx_ = nullptr;
  AVPacket* pkt_ = nullptr;
  AVFrame* frame_ = nullptr;
  std::unique_ptr<BandScaler> sws_;
  int stream_ = -1;
  double tb_ = 0;
  int64_t start_ = 0;
  bool flushed_ = false;
  bool dead_ = false;  // reading failed (not at the end): nothing more comes
  double skip_before_ = -1e301;  // after a seek: frames before this time are dropped
  long long index_ = 0;
  double last_ = 0;
};

// A pattern's folder and the regular expression of its file names (the number captured).
struct PatternParts {
  std::string dir, name;
  std::regex re;
};
PatternParts pattern_parts(const std::string& pattern) {
  const size_t slash = pattern.find_last_of('/');
  PatternParts p;
  p.dir = slash == std::string::npos ? "." : pattern.substr(0, slash + (slash == 0));
  p.name = slash == std::string::npos ? pattern : pattern.substr(slash + 1);
  static const std::regex spec("%(0?([0-9]*))d");
  std::smatch m;
  if (!std::regex_search(p.name, m, spec)) throw Error(pattern + ": not a sequence pattern (it needs %d or %04d)");
  auto escape = [](const std::string& s) {
    std::string e;
    for (char c : s) {
      if (std::string("\\^$.|?*+()[]{}").find(c) != std::string::npos) e += '\\';
      e += c;
    }
    return e;
  };
  const std::string digits = m[2].length() ? "([0-9]{" + m[2].str() + ",})" : "([0-9]+)";
  p.re = std::regex(escape(m.prefix().str()) + digits + escape(m.suffix().str()));
  return p;
}

class SequenceReader final : public ClipReader {
 public:
  SequenceReader(const std::string& path, bool depth, double fps) : depth_(depth) {
    if (!(fps > 0) || !std::isfinite(fps)) throw Error(path + ": a sequence's frame rate must be positive");
    if (is_dir(path)) {
      for (const std::string& f : images_in_dir(path)) files_.push_back({(long long)files_.size(), f});
      if (files_.empty()) throw Error(path + ": no image files in this folder");
    } else {
      const PatternParts p = pattern_parts(path);
      std::error_code ec;
      for (const auto& e : std::filesystem::directory_iterator(p.dir, ec)) {
        const std::string n = e.path().filename().string();
        std::smatch m;
        if (std::regex_match(n, m, p.re)) files_.push_back({std::stoll(m[1].str()), e.path().string()});
      }
      if (ec) throw Error(p.dir + ": cannot list the folder (" + ec.message() + ")");
      if (files_.empty()) throw Error(path + ": no file matches the pattern");
      std::sort(files_.begin(), files_.end());
      for (size_t i = 1; i < files_.size(); ++i) {
        if (files_[i].first == files_[i - 1].first)
          throw Error(path + ": two files have frame number " + std::to_string(files_[i].first) + " (" +
                      files_[i - 1].second + ", " + files_[i].second + ")");
        if (files_[i].first != files_[i - 1].first + 1)
          throw Error(path + ": a gap in the numbering: " + files_[i].second + " follows " + files_[i - 1].second);
      }
    }
    info_.kind = "sequence";
    info_.fps = fps;
    info_.frames = (long long)files_.size();
    info_.duration = double(files_.size()) / fps;
    info_.first_file = files_.front().second;
    ClipFrame first;
    load(0, first);
    info_.width = depth_ ? first.depth.width : first.image.width;
    info_.height = depth_ ? first.depth.height : first.image.height;
    first_ = std::move(first);
  }

  bool next(ClipFrame& out) override {
    if (at_ >= files_.size()) return false;
    const size_t i = at_++;  // a frame that fails to load is passed over by the next call
    if (i == 0 && !first_taken_) {
      out = std::move(first_);
      first_taken_ = true;
    } else {
      load(i, out);
      const int w = depth_ ? out.depth.width : out.image.width, h = depth_ ? out.depth.height : out.image.height;
      if (w != info_.width || h != info_.height)
        throw Error(files_[i].second + ": frame " + std::to_string(i) + " is " + std::to_string(w) + "x" +
                    std::to_string(h) + ", the sequence's first " + std::to_string(info_.width) + "x" +
                    std::to_string(info_.height) + ": frames of mixed sizes are not read");
    }
    return true;
  }

 private:
  void load(size_t i, ClipFrame& out) {
    out.index = (long long)i;
    out.number = files_[i].first;
    out.time = double(i) / info_.fps;
    try {
      if (depth_) {
        out.depth = load_depth(files_[i].second);
      } else {
        LoadInfo li;
        out.image = load_image(files_[i].second, &li);
        if (i == 0) info_.codec = li.format, info_.bits = li.bits;
      }
    } catch (const Error& e) {
      throw Error("frame " + std::to_string(i) + " at " + time_text(out.time) + ": " + e.what());
    }
  }


 public:
  void seek(double time) override {
    const double i = std::ceil(time * info_.fps - 0.5);  // the first frame at or after time - half a frame
    at_ = size_t(std::clamp(i, 0.0, double(files_.size())));
  }

 private:
  bool depth_;
  std::vector<std::pair<long long, std::string>> files_;
  size_t at_ = 0;
  ClipFrame first_;  // read by the constructor (the clip's size), given by the first next()
  bool first_taken_ = false;
};

class AheadReader final : public ClipReader {
 public:
  AheadReader(std::unique_ptr<ClipReader> r, int ahead) : r_(std::move(r)), ahead_(std::max(1, ahead)) {
    info_ = r_->info();
    worker_ = std::thread([this] { run(); });
  }
  ~AheadReader() override { stop(); }
  void seek(double time) override {
    stop();
    q_.clear();
    try {
      r_->seek(time);
    } catch (...) {
      done_ = true;  // stopped: next() says the end instead of waiting for a worker that is not there
      throw;
    }
    stop_ = done_ = false;
    worker_ = std::thread([this] { run(); });
  }
  bool next(ClipFrame& out) override {
    std::unique_lock<std::mutex> l(m_);
    cv_.wait(l, [&] { return !q_.empty() || done_; });
    if (q_.empty()) return false;
    Item it = std::move(q_.front());
    q_.pop_front();
    if (it.error) {
      cv_.notify_all();
      std::rethrow_exception(it.error);
    }
    // The caller's last image goes back to the thread, to be decoded into again.
    if (!out.image.empty() && spare_.size() < size_t(ahead_) + 1) spare_.push_back(std::move(out.image));
    out = std::move(it.frame);
    cv_.notify_all();
    return true;
  }

 private:
  // A frame that fails is queued as its error, in order, and reading goes on (the caller may pass over
  // bad frames); after kMaxErrors failures in a row the clip ends there.
  static constexpr int kMaxErrors = 16;
  void run() {
    int errors = 0;
    for (; errors < kMaxErrors;) {
      {
        std::unique_lock<std::mutex> l(m_);
        cv_.wait(l, [&] { return stop_ || int(q_.size()) < ahead_; });
        if (stop_) break;
      }
      Item it;
      {
        std::lock_guard<std::mutex> l(m_);
        if (!spare_.empty()) it.frame.image = std::move(spare_.back()), spare_.pop_back();
      }
      try {
        if (!r_->next(it.frame)) break;
        errors = 0;
      } catch (...) {
        it.error = std::current_exception();
        ++errors;
      }
      std::lock_guard<std::mutex> l(m_);
      q_.push_back(std::move(it));
      cv_.notify_all();
    }
    std::lock_guard<std::mutex> l(m_);
    if (errors >= kMaxErrors)  // the clip does not end here quietly: the caller learns it was cut short
      q_.push_back({ClipFrame(), std::make_exception_ptr(Error(
                                     "reading stopped after " + std::to_string(kMaxErrors) +
                                     " frames in a row that do not decode: the rest of the clip is not read"))});
    done_ = true;
    cv_.notify_all();
  }

  void stop() {
    {
      std::lock_guard<std::mutex> l(m_);
      stop_ = true;
    }
    cv_.notify_all();
    if (worker_.joinable()) worker_.join();
  }

  std::unique_ptr<ClipReader> r_;
  int ahead_;
  std::mutex m_;
  std::condition_variable cv_;
  struct Item {
    ClipFrame frame;
    std::exception_ptr error;  // set: this frame failed
  };
  std::deque<Item> q_;
  std::vector<ImageRGBA8> spare_;  // images the caller is done with, decoded into again
  bool stop_ = false, done_ = false;
  std::thread worker_;
};

class VideoWriter final : public ClipWriter {
 public:
  VideoWriter(const std::string& path, const ClipSpec& spec) : a_(av()), path_(path), tmp_(path), spec_(spec) {
    try {
      open();
    } catch (...) {
      release();  // a constructor that throws runs no destructor
      throw;
    }
  }
  ~VideoWriter() override { release(); }

 private:
  void open() {
    const std::string& path = path_;
    const ClipSpec& spec = spec_;
    if (spec.width <= 0 || spec.height <= 0) throw Error(path + ": no frame size to write");
    if (!(spec.fps > 0)) throw Error(path + ": the frame rate must be positive");
    const std::string ext = lower_extension(path);
    std::string name = spec.codec.empty() ? (ext == ".webm" ? "libvpx-vp9" : "libx264") : spec.codec;
    if (name == "h264") name = "libx264";
    if (name == "vp9") name = "libvpx-vp9";
    if (name == "hevc" || name == "h265") name = "libx265";
    if (name == "nvenc") name = "h264_nvenc";
    // The container by the final name's extension (the bytes go to the temporary file).
    if (a_.avformat_alloc_output_context2(&fmt_, nullptr, nullptr, path.c_str()) < 0 || !fmt_)
      throw Error(path + ": no container for this extension (.mp4, .mov, .mkv, .webm, .avi)");
    const AVCodec* enc = a_.avcodec_find_encoder_by_name(name.c_str());
    if (!enc) throw Error(path + ": no encoder '" + name + "' in this FFmpeg (try --codec ffv1 into .mkv, or mpeg4)");
    ctx_ = a_.avcodec_alloc_context3(enc);
    if (!ctx_) throw Error(path + ": out of memory");
    if (spec.rotation != 0 && spec.rotation != 90 && spec.rotation != 180 && spec.rotation != 270)
      throw Error(path + ": a turn of " + std::to_string(spec.rotation) + " degrees (0, 90, 180, 270)");
    const bool side = spec.rotation == 90 || spec.rotation == 270;  // stored with its sides swapped
    ctx_->width = side ? spec.height : spec.width, ctx_->height = side ? spec.width : spec.height;
    ctx_->time_base = AVRational{1, 90000};
    ctx_->framerate = AVRational{int(std::lround(spec.fps * 1000)), 1000};
    const bool even = spec.width % 2 == 0 && spec.height % 2 == 0;
    if (name == "ffv1") {
      ctx_->pix_fmt = AV_PIX_FMT_0RGB32;  // lossless 8-bit RGB
      label_ = "FFV1 (lossless)";
    } else if (name == "mpeg4") {
      if (!even) throw Error(path + ": mpeg4 needs an even width and height (" + std::to_string(spec.width) + "x" + std::to_string(spec.height) + ")");
      ctx_->pix_fmt = AV_PIX_FMT_YUV420P;
      ctx_->bit_rate = int64_t(spec.width) * spec.height * 8;
      label_ = "MPEG-4 part 2";
    } else if (name.size() > 6 && name.compare(name.size() - 6, 6, "_nvenc") == 0) {
      // NVIDIA's encoder (h264_nvenc, hevc_nvenc: FFmpeg loads libnvidia-encode where the driver has it):
      // constant quality `quality` (its CQ, the nearest to a CRF it has), preset p4.
      if (!even) throw Error(path + ": " + name + " needs an even width and height (" + std::to_string(spec.width) + "x" +
                             std::to_string(spec.height) + ")");
      ctx_->pix_fmt = AV_PIX_FMT_YUV420P;
      ctx_->bit_rate = 0;
      a_.av_opt_set(ctx_->priv_data, "preset", "p4", 0);
      a_.av_opt_set(ctx_->priv_data, "rc", "vbr", 0);
      a_.av_opt_set(ctx_->priv_data, "cq", std::to_string(spec.quality).c_str(), 0);
      label_ = std::string(name == "hevc_nvenc" ? "HEVC" : "H.264") + " (" + name + ", CQ " + std::to_string(spec.quality) + ")";
    } else {
      ctx_->pix_fmt = even ? AV_PIX_FMT_YUV420P : AV_PIX_FMT_YUV444P;  // 4:2:0 needs even sides
      a_.av_opt_set(ctx_->priv_data, "crf", std::to_string(spec.quality).c_str(), 0);
      if (name == "libx264" || name == "libx265") a_.av_opt_set(ctx_->priv_data, "preset", "veryfast", 0);
      if (name == "libx265") a_.av_opt_set(ctx_->priv_data, "x265-params", "log-level=error", 0);
      if (name == "libvpx-vp9") a_.av_opt_set(ctx_->priv_data, "deadline", "realtime", 0), ctx_->bit_rate = 0;
      label_ = std::string(name == "libx264" ? "H.264" : name == "libx265" ? "HEVC" : name == "libvpx-vp9" ? "VP9" : name) + " (" + name + ", CRF " +
               std::to_string(spec.quality) + (even ? "" : ", 4:4:4 for odd sides") + ")";
    }
    ctx_->color_range = AVCOL_RANGE_MPEG;
    ctx_->colorspace = AVCOL_SPC_BT709;
    ctx_->color_primaries = spec.color_primaries >= 0 ? AVColorPrimaries(spec.color_primaries) : AVCOL_PRI_BT709;
    ctx_->color_trc = spec.color_trc >= 0 ? AVColorTransferCharacteristic(spec.color_trc) : AVCOL_TRC_IEC61966_2_1;
    if (fmt_->oformat->flags & AVFMT_GLOBALHEADER) ctx_->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    if (int r = a_.avcodec_open2(ctx_, enc, nullptr); r < 0) throw Error(path + ": cannot open the " + name + " encoder (" + a_.what(r) + ")");
    st_ = a_.avformat_new_stream(fmt_, nullptr);
    if (!st_ || a_.avcodec_parameters_from_context(st_->codecpar, ctx_) < 0) throw Error(path + ": out of memory");
    st_->time_base = ctx_->time_base;
    if (spec.rotation != 0) {  // the display matrix that turns the stored frames upright, as the input's did
      uint8_t* m = a_.av_stream_new_side_data(st_, AV_PKT_DATA_DISPLAYMATRIX, 9 * sizeof(int32_t));
      if (!m) throw Error(path + ": out of memory");
      // av_display_rotation_set's angle is clockwise, av_display_rotation_get's (the reader's) counter-clockwise.
      a_.av_display_rotation_set(reinterpret_cast<int32_t*>(m), -double(spec.rotation));
    }
    if (!spec.audio_from.empty()) open_audio(spec.audio_from);
    if (int r = a_.avio_open(&fmt_->pb, tmp_.tmp().c_str(), AVIO_FLAG_WRITE); r < 0)
      throw Error(tmp_.tmp() + ": cannot create (" + a_.what(r) + ")");
    if (int r = a_.avformat_write_header(fmt_, nullptr); r < 0) throw Error(path + ": cannot write the header (" + a_.what(r) + ")");
    frame_ = a_.av_frame_alloc();
    pkt_ = a_.av_packet_alloc();
    if (!frame_ || !pkt_) throw Error(path + ": out of memory");
    frame_->format = ctx_->pix_fmt, frame_->width = ctx_->width, frame_->height = ctx_->height;
    if (a_.av_frame_get_buffer(frame_, 0) < 0) throw Error(path + ": out of memory");
    const Av& a = a_;
    try {
      sws_ = std::make_unique<BandScaler>(a_, ctx_->width, ctx_->height, AV_PIX_FMT_RGBA, ctx_->pix_fmt,
                                          SWS_BILINEAR | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT, [&a](SwsContext* c) {
                                            a.sws_setColorspaceDetails(c, a.sws_getCoefficients(SWS_CS_DEFAULT), 1,
                                                                       a.sws_getCoefficients(SWS_CS_ITU709), 0, 0,
                                                                       1 << 16, 1 << 16);
                                          });
    } catch (const Error& e) {
      throw Error(path + ": " + e.what() + " (the encoder's)");
    }
  }
  // The audio stream of `from`, copied packet for packet (no decoding) into a stream of this file, kept
  // interleaved with the video (pump_audio). Refused with one line where the container cannot hold it.
  void open_audio(const std::string& from) {
    if (int r = a_.avformat_open_input(&in_, from.c_str(), nullptr, nullptr); r < 0)
      throw Error(from + ": cannot open for its audio (" + a_.what(r) + ")");
    if (a_.avformat_find_stream_info(in_, nullptr) < 0) throw Error(from + ": no stream information for its audio");
    in_audio_ = a_.av_find_best_stream(in_, AVMEDIA_TYPE_AUDIO, -1, -1, nullptr, 0);
    if (in_audio_ < 0) {  // nothing to copy
      a_.avformat_close_input(&in_);
      return;
    }
    const AVCodecParameters* par = in_->streams[in_audio_]->codecpar;
    const std::string codec = a_.avcodec_get_name(par->codec_id);
    if (a_.avformat_query_codec(fmt_->oformat, par->codec_id, FF_COMPLIANCE_NORMAL) == 0)
      throw Error(path_ + ": the audio of " + from + " (" + codec + ") cannot be copied into a " + lower_extension(path_) +
                  " file: write .mkv, or .mov");
    ast_ = a_.avformat_new_stream(fmt_, nullptr);
    if (!ast_ || a_.avcodec_parameters_copy(ast_->codecpar, par) < 0) throw Error(path_ + ": out of memory");
    ast_->codecpar->codec_tag = 0;
    ast_->time_base = in_->streams[in_audio_]->time_base;
    apkt_ = a_.av_packet_alloc();
    if (!apkt_) throw Error(path_ + ": out of memory");
    audio_label_ = ", audio " + codec + " copied";
  }
  // The source's audio packets up to `until` seconds (from spec_.audio_start; none past audio_end).
  void pump_audio(double until) {
    if (!in_) return;
    const AVStream* is = in_->streams[in_audio_];
    const double tb = av_q2d(is->time_base);
    const int64_t start = is->start_time != AV_NOPTS_VALUE ? is->start_time : 0;
    for (;;) {
      if (!have_apkt_) {
        const int r = a_.av_read_frame(in_, apkt_);
        if (r < 0) {  // the end (or a read error: the audio stops there, the video is whole)
          a_.avformat_close_input(&in_);
          return;
        }
        if (apkt_->stream_index != in_audio_) {
          a_.av_packet_unref(apkt_);
          continue;
        }
        have_apkt_ = true;
      }
      const int64_t ts = apkt_->pts != AV_NOPTS_VALUE ? apkt_->pts : apkt_->dts;
      const double t = ts != AV_NOPTS_VALUE ? double(ts - start) * tb : 0.0;
      if (t > until) return;
      have_apkt_ = false;
      if (t < spec_.audio_start || (spec_.audio_end >= 0 && t >= spec_.audio_end)) {
        a_.av_packet_unref(apkt_);
        continue;
      }
      a_.av_packet_rescale_ts(apkt_, is->time_base, ast_->time_base);
      apkt_->stream_index = ast_->index;
      apkt_->pos = -1;
      const int w = a_.av_interleaved_write_frame(fmt_, apkt_);
      a_.av_packet_unref(apkt_);
      if (w < 0) throw Error(path_ + ": writing its audio failed (" + a_.what(w) + "); nothing was written");
    }
  }
  void release() {
    sws_.reset();
    a_.av_frame_free(&frame_);
    a_.av_packet_free(&pkt_);
    a_.av_packet_free(&apkt_);
    if (in_) a_.avformat_close_input(&in_);
    a_.avcodec_free_context(&ctx_);
    if (fmt_) {
      if (fmt_->pb) a_.avio_closep(&fmt_->pb);
      a_.avformat_free_context(fmt_);
      fmt_ = nullptr;
    }
  }

 public:
  void write(const ImageRGBA8& img, double time, long long) override {
    if (img.width != spec_.width || img.height != spec_.height)
      throw Error(path_ + ": frame " + std::to_string(frames_) + " is " + std::to_string(img.width) + "x" +
                  std::to_string(img.height) + ", the clip's " + std::to_string(spec_.width) + "x" + std::to_string(spec_.height));
    // Turned back to the stored orientation (the display matrix turns it upright again).
    const ImageRGBA8& stored = spec_.rotation == 0 ? img : (turned_ = rotated(img, (360 - spec_.rotation) % 360));
    const uint8_t* src[4] = {stored.data.data(), nullptr, nullptr, nullptr};
    const int stride[4] = {stored.width * 4, 0, 0, 0};
    // The encoder may still hold the last frame's buffer: a fresh one where it is shared.
    if (a_.av_frame_make_writable(frame_) < 0) throw Error(path_ + ": out of memory");
    sws_->scale(src, stride, frame_->data, frame_->linesize);
    int64_t pts = std::llround(time * 90000.0);
    if (frames_ > 0 && pts <= last_pts_) pts = last_pts_ + 1;  // strictly increasing, whatever the input said
    frame_->pts = last_pts_ = pts;
    send(frame_);
    ++frames_;
    pump_audio(time);
  }

  // A frame in the encoder's own pixel format and size (a transcode's decoded frame): sent as it is.
  void write_raw(const AVFrame* f, double time) {
    if (f->format != ctx_->pix_fmt || f->width != ctx_->width || f->height != ctx_->height)
      throw Error(path_ + ": a decoded frame of another format or size than the encoder's");
    AVFrame* g = const_cast<AVFrame*>(f);
    int64_t pts = std::llround(time * 90000.0);
    if (frames_ > 0 && pts <= last_pts_) pts = last_pts_ + 1;
    g->pts = last_pts_ = pts;
    g->pict_type = AV_PICTURE_TYPE_NONE;
    send(g);
    ++frames_;
    pump_audio(time);
  }
  int pixel_format() const { return ctx_->pix_fmt; }

  bool takes_yuv420() const override { return ctx_->pix_fmt == AV_PIX_FMT_YUV420P && spec_.rotation == 0; }
  void write_yuv420(const Yuv420& f, double time, long long number) override {
    if (!takes_yuv420()) return ClipWriter::write_yuv420(f, time, number);
    if (f.width != spec_.width || f.height != spec_.height)
      throw Error(path_ + ": frame " + std::to_string(frames_) + " is " + std::to_string(f.width) + "x" +
                  std::to_string(f.height) + ", the clip's " + std::to_string(spec_.width) + "x" + std::to_string(spec_.height));
    if (a_.av_frame_make_writable(frame_) < 0) throw Error(path_ + ": out of memory");
    const uint8_t* planes[3] = {f.y.data(), f.u.data(), f.v.data()};
    const int widths[3] = {f.width, f.chroma_width(), f.chroma_width()}, heights[3] = {f.height, f.chroma_height(), f.chroma_height()};
    for (int p = 0; p < 3; ++p)
      for (int y = 0; y < heights[p]; ++y)
        std::memcpy(frame_->data[p] + ptrdiff_t(y) * frame_->linesize[p], planes[p] + size_t(y) * size_t(widths[p]), size_t(widths[p]));
    int64_t pts = std::llround(time * 90000.0);
    if (frames_ > 0 && pts <= last_pts_) pts = last_pts_ + 1;
    frame_->pts = last_pts_ = pts;
    send(frame_);
    ++frames_;
    pump_audio(time);
  }

  void finish() override {
    send(nullptr);
    pump_audio(spec_.audio_end >= 0 ? spec_.audio_end : 1e300);
    if (int r = a_.av_write_trailer(fmt_); r < 0) throw Error(path_ + ": cannot finish the file (" + a_.what(r) + ")");
    const int err = fmt_->pb->error;
    if (int r = a_.avio_closep(&fmt_->pb); r < 0 || err < 0)
      throw Error(path_ + ": writing failed (" + a_.what(r < 0 ? r : err) + "); nothing was written");
    tmp_.commit();
  }

  std::string summary() const override {
    return label_ + ", " + std::to_string(frames_) + " frames" + audio_label_ +
           (spec_.rotation ? ", stored turned, a display matrix of " + std::to_string(spec_.rotation) + " degrees" : "");
  }

 private:
  void send(AVFrame* f) {
    if (int r = a_.avcodec_send_frame(ctx_, f); r < 0) throw Error(path_ + ": the encoder refused frame " + std::to_string(frames_) + " (" + a_.what(r) + ")");
    for (;;) {
      const int r = a_.avcodec_receive_packet(ctx_, pkt_);
      if (r == AVERROR(EAGAIN) || r == AVERROR_EOF) return;
      if (r < 0) throw Error(path_ + ": encoding failed at frame " + std::to_string(frames_) + " (" + a_.what(r) + ")");
      // Every packet lasts a frame interval where the encoder says nothing (MP4 drops a last sample
      // of no duration).
      if (pkt_->duration <= 0) pkt_->duration = std::max<int64_t>(1, std::llround(90000.0 / spec_.fps));
      a_.av_packet_rescale_ts(pkt_, ctx_->time_base, st_->time_base);
      pkt_->stream_index = st_->index;
      const int w = a_.av_interleaved_write_frame(fmt_, pkt_);
      a_.av_packet_unref(pkt_);
      if (w < 0 || (fmt_->pb && fmt_->pb->error < 0))
        throw Error(path_ + ": writing failed at frame " + std::to_string(frames_) + " (" + a_.what(w < 0 ? w : fmt_->pb->error) +
                    "); nothing was written");
    }
  }

  const Av& a_;
  std::string path_;
  TempFile tmp_;
  ClipSpec spec_;
  std::string label_;
  AVFormatContext* fmt_ = nullptr;
  AVCodecContext* ctx_ = nullptr;
  AVStream* st_ = nullptr;
  AVFrame* frame_ = nullptr;
  AVPacket* pkt_ = nullptr;
  std::unique_ptr<BandScaler> sws_;
  ImageRGBA8 turned_;  // a frame turned back to the stored orientation (spec_.rotation)
  long long frames_ = 0;
  int64_t last_pts_ = 0;
  // The audio copied (open_audio): its source, stream there and here, the packet read ahead.
  AVFormatContext* in_ = nullptr;
  int in_audio_ = -1;
  AVStream* ast_ = nullptr;
  AVPacket* apkt_ = nullptr;
  bool have_apkt_ = false;
  std::string audio_label_;
};

class SequenceWriter final : public ClipWriter {
 public:
  SequenceWriter(const std::string& pattern, const ClipSpec& spec) : pattern_(pattern), spec_(spec) {
    pattern_parts(pattern);  // checks the pattern
    if (!can_save(sequence_file(pattern, 0)))
      throw Error(pattern + ": cannot write this format: the extension must be one of " + std::string(saveable_extensions()));
  }
  ~SequenceWriter() override {
    if (finished_) return;
    for (const std::string& f : written_) std::remove(f.c_str());  // an unfinished clip leaves nothing
  }
  void write(const ImageRGBA8& img, double, long long number) override {
    if (spec_.width > 0 && (img.width != spec_.width || img.height != spec_.height))
      throw Error(pattern_ + ": frame " + std::to_string(written_.size()) + " differs in size from the clip's");
    const std::string f = sequence_file(pattern_, number);
    if (std::find(written_.begin(), written_.end(), f) != written_.end())
      throw Error(pattern_ + ": two frames would be written to " + f);
    save_image(f, img);
    written_.push_back(f);
  }
  void finish() override { finished_ = true; }
  std::string summary() const override {
    return std::to_string(written_.size()) + " frames" +
           (written_.empty() ? "" : " (" + written_.front() + " .. " + written_.back() + ")");
  }

 private:
  std::string pattern_;
  ClipSpec spec_;
  std::vector<std::string> written_;
  bool finished_ = false;
};

}  // namespace

bool is_video_path(const std::string& path) {
  const std::string e = lower_extension(path);
  return e == ".mp4" || e == ".m4v" || e == ".mov" || e == ".mkv" || e == ".webm" || e == ".avi";
}

bool is_sequence_pattern(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  static const std::regex spec("%0?[0-9]*d");
  return std::regex_search(slash == std::string::npos ? path : path.substr(slash + 1), spec);
}

bool is_clip_path(const std::string& path) { return is_video_path(path) || is_sequence_pattern(path) || is_dir(path); }

bool video_available(std::string* why) {
  try {
    av();
    return true;
  } catch (const Error& e) {
    if (why) *why = e.what();
    return false;
  }
}

std::string sequence_file(const std::string& pattern, long long number) {
  const size_t slash = pattern.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "" : pattern.substr(0, slash + 1);
  const std::string name = slash == std::string::npos ? pattern : pattern.substr(slash + 1);
  static const std::regex spec("%(0?)([0-9]*)d");
  std::smatch m;
  if (!std::regex_search(name, m, spec)) throw Error(pattern + ": not a sequence pattern (it needs %d or %04d)");
  std::string digits = std::to_string(number < 0 ? -number : number);
  const int width = m[2].length() ? std::stoi(m[2].str()) : 0;
  if (int(digits.size()) < width) digits.insert(0, size_t(width) - digits.size(), m[1].length() ? '0' : ' ');
  return dir + m.prefix().str() + (number < 0 ? "-" : "") + digits + m.suffix().str();
}

void check_decoder(const std::string& name) {
  if (name != "cpu" && name != "nvdec" && name != "auto") throw Error("unknown decoder '" + name + "' (cpu, nvdec, auto)");
}

std::unique_ptr<ClipReader> open_clip(const std::string& path, bool depth, double fps, const ClipOptions& options) {
  check_decoder(options.decoder);
  if (is_video_path(path) && !is_dir(path)) return std::make_unique<VideoReader>(path, depth, options);
  if (is_sequence_pattern(path) || is_dir(path)) return std::make_unique<SequenceReader>(path, depth, fps);
  throw Error(path + ": not a clip (a video .mp4/.mov/.mkv/.webm/.avi, a pattern such as shot_%04d.png, or a folder)");
}

std::unique_ptr<ClipReader> read_ahead(std::unique_ptr<ClipReader> r, int ahead) {
  return std::make_unique<AheadReader>(std::move(r), ahead);
}

void ClipWriter::write_yuv420(const Yuv420&, double, long long) {
  throw Error("this writer takes RGBA frames only (takes_yuv420 is false)");
}

long long transcode_clip(const std::string& in, const std::string& out, const ClipSpec& spec) {
  if (!is_video_path(in) || !is_video_path(out)) throw Error("a transcode is from a video to a video");
  VideoReader r(in, false);
  if (r.info().rotation != 0) throw Error(in + ": a turned video is not transcoded (its frames would be turned)");
  ClipSpec s = spec;
  s.width = r.info().width, s.height = r.info().height;
  if (r.info().fps > 0) s.fps = r.info().fps;  // the input's rate, as the render's writer is given
  VideoWriter w(out, s);
  double t = 0;
  long long n = 0;
  for (const AVFrame* f; (f = r.next_raw(&t)) != nullptr; ++n) {
    if (f->format != w.pixel_format())
      throw Error(in + ": its frames' pixel format differs from the encoder's (a transcode converts nothing)");
    w.write_raw(f, t);
  }
  w.finish();
  return n;
}

std::unique_ptr<ClipWriter> open_clip_writer(const std::string& path, const ClipSpec& spec) {
  if (is_video_path(path)) return std::make_unique<VideoWriter>(path, spec);
  if (is_sequence_pattern(path)) return std::make_unique<SequenceWriter>(path, spec);
  throw Error(path + ": a clip is written to a video (.mp4, .mov, .mkv, .webm, .avi) or a pattern such as out_%04d.png");
}

}  // namespace satlab::io
