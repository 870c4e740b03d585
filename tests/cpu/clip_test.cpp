// Clips (app/io/clip.hpp): videos written and read back (lossless FFV1 exactly, H.264 within a known PSNR),
// their times and rotation; image sequences by pattern and folder, with gaps and mixed sizes refused;
// decoding ahead on a thread; writers that leave nothing behind when not finished.
#include "app/io/clip.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <tuple>

#include "app/io/image_io.hpp"
#include "test_util.hpp"
#include "core/error.hpp"

namespace satlab::io {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path p;
  TempDir() : p(fs::temp_directory_path() / ("satlab_clip_" + std::to_string(getpid()) + "_" + std::to_string(rand()))) {
    fs::create_directories(p);
  }
  ~TempDir() { fs::remove_all(p); }
  std::string operator/(const std::string& n) const { return (p / n).string(); }
};

// A moving gradient with a square, frame k of a clip (smooth, so a lossy codec keeps it well).
ImageRGBA8 frame(int w, int h, int k) {
  ImageRGBA8 img(w, h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      uint8_t* p = img.px(x, y);
      const bool sq = x >= 4 + 2 * k && x < 20 + 2 * k && y >= 6 && y < 22;
      p[0] = uint8_t(sq ? 230 : (x * 255) / std::max(1, w - 1));
      p[1] = uint8_t(sq ? 40 : (y * 255) / std::max(1, h - 1));
      p[2] = uint8_t((k * 37 + x + y) % 256 / 2 + 60);
      p[3] = 255;
    }
  return img;
}

double psnr(const ImageRGBA8& a, const ImageRGBA8& b) {
  double se = 0;
  size_t n = 0;
  for (size_t i = 0; i < a.data.size(); ++i)
    if (i % 4 != 3) se += (double(a.data[i]) - b.data[i]) * (double(a.data[i]) - b.data[i]), ++n;
  return se == 0 ? INFINITY : 10 * std::log10(255.0 * 255.0 * double(n) / se);
}

#define NEED_VIDEO()                                                  \
  do {                                                                \
    std::string why;                                                  \
    if (!video_available(&why)) GTEST_SKIP() << "no video: " << why;  \
  } while (0)

// The conversion NVDEC's frames get (core/yuv.hpp), run on the CPU decoder's frames, against swscale's on
// smooth frames (where the two chroma upsamplings agree; at sharp chroma edges they differ by tens of
// levels: docs/clips.md): the same matrix and range. Without CUDA, nvdec is refused with one line and auto
// decodes on the CPU.
TEST(Clip, ReferenceConversionAgreesWithSwscaleOnSmoothFrames) {
  NEED_VIDEO();
  TempDir d;
  auto smooth = [](int w, int h, int k) {
    ImageRGBA8 img(w, h);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        uint8_t* p = img.px(x, y);
        p[0] = uint8_t(30 + (x + k) * 150 / w), p[1] = uint8_t(200 - y * 120 / h), p[2] = uint8_t(60 + (x + y) * 60 / (w + h)), p[3] = 255;
      }
    return img;
  };
  for (auto [codec, w, h] : {std::tuple{"h264", 256, 192}, {"hevc", 230, 130}}) {
    const std::string path = d / (std::string(codec) + ".mp4");
    {
      ClipSpec spec;
      spec.width = w, spec.height = h, spec.fps = 25, spec.codec = codec;
      auto out = open_clip_writer(path, spec);
      for (int k = 0; k < 5; ++k) out->write(smooth(w, h, k), k / 25.0, k);
      out->finish();
    }
    ClipOptions exact;
    exact.reference_conversion = true;
    auto a = open_clip(path, false, 24.0, exact), b = open_clip(path);
    int worst = 0, n = 0;
    double sum = 0, count = 0;
    for (ClipFrame fa, fb; a->next(fa); ++n) {
      ASSERT_TRUE(b->next(fb));
      ASSERT_EQ(fa.image.data.size(), fb.image.data.size());
      for (size_t i = 0; i < fa.image.data.size(); ++i) {
        const int e = std::abs(int(fa.image.data[i]) - int(fb.image.data[i]));
        worst = std::max(worst, e), sum += e, ++count;
      }
    }
    EXPECT_EQ(n, 5);
    EXPECT_LE(worst, 3) << codec;
    EXPECT_LE(sum / count, 0.3) << codec;
    std::printf("%s: reference conversion against swscale: worst %d, mean %.3f\n", codec, worst, sum / count);
    ClipOptions nvdec;
    nvdec.decoder = "nvdec";  // no to_device: this library alone cannot
    EXPECT_THROW(open_clip(path, false, 24.0, nvdec), Error);
    nvdec.decoder = "auto";
    EXPECT_EQ(open_clip(path, false, 24.0, nvdec)->info().decoder, "cpu");
    nvdec.decoder = "vdpau";
    EXPECT_THROW(open_clip(path, false, 24.0, nvdec), Error);
  }
}

// Orientation and colour kept: a turned video is written laid out as its input (its frames turned back, a
// display matrix), so reading it gives the upright frames again; its primaries and transfer stay as stated.
TEST(Clip, RotationAndColourTagsAreWrittenAsTheInputHadThem) {
  NEED_VIDEO();
  TempDir d;
  const int w = 48, h = 64;  // upright: taller than wide
  for (int rot : {90, 180, 270}) {
    const std::string path = d / ("turned_" + std::to_string(rot) + ".mp4");
    {
      ClipSpec spec;
      spec.width = w, spec.height = h, spec.fps = 25, spec.codec = "h264", spec.quality = 10;
      spec.rotation = rot, spec.color_primaries = 6, spec.color_trc = 6;  // SMPTE 170M (BT.601)
      auto out = open_clip_writer(path, spec);
      EXPECT_FALSE(out->takes_yuv420()) << "the GPU's planes are upright";
      for (int k = 0; k < 3; ++k) out->write(frame(w, h, k), k / 25.0, k);
      out->finish();
      EXPECT_NE(out->summary().find("display matrix of " + std::to_string(rot)), std::string::npos) << out->summary();
    }
    auto r = open_clip(path);
    EXPECT_EQ(r->info().rotation, rot);
    EXPECT_EQ(r->info().width, w);
    EXPECT_EQ(r->info().height, h);
    EXPECT_EQ(r->info().color_primaries, 6);
    EXPECT_EQ(r->info().color_trc, 6);
    int n = 0;
    for (ClipFrame f; r->next(f); ++n) {
      ASSERT_EQ(f.image.width, w);
      EXPECT_GT(psnr(f.image, frame(w, h, n)), 30.0) << rot << " frame " << n;
    }
    EXPECT_EQ(n, 3);
    ClipSpec spec;  // a transcode refuses it: the stream itself is turned
    EXPECT_THROW(transcode_clip(path, d / "t.mp4", spec), Error);
  }
  ClipSpec bad;
  bad.width = bad.height = 16, bad.fps = 25, bad.rotation = 45;
  EXPECT_THROW(open_clip_writer(d / "bad.mp4", bad), Error);
}

TEST(Clip, PathsArePatternsVideosOrFolders) {
  EXPECT_TRUE(is_video_path("a/b.MP4"));
  EXPECT_TRUE(is_video_path("x.webm"));
  EXPECT_FALSE(is_video_path("x.png"));
  EXPECT_TRUE(is_sequence_pattern("dir/shot_%04d.png"));
  EXPECT_TRUE(is_sequence_pattern("f%d.exr"));
  EXPECT_FALSE(is_sequence_pattern("100%/a.png"));
  EXPECT_FALSE(is_sequence_pattern("d%04d/a.png"));  // the pattern is in the file name
  EXPECT_EQ(sequence_file("o/shot_%04d.png", 7), "o/shot_0007.png");
  EXPECT_EQ(sequence_file("f%d.png", 12345), "f12345.png");
  EXPECT_EQ(sequence_file("f%03d.png", 12345), "f12345.png");
}

TEST(Clip, LosslessVideoRoundTripsExactlyWithItsTimes) {
  NEED_VIDEO();
  TempDir d;
  const std::string path = d / "clip.mkv";
  const int w = 37, h = 29;  // odd sides
  {
    ClipSpec spec;
    spec.width = w, spec.height = h, spec.fps = 25, spec.codec = "ffv1";
    auto wr = open_clip_writer(path, spec);
    for (int k = 0; k < 7; ++k) wr->write(frame(w, h, k), k / 25.0 + (k == 5 ? 0.013 : 0.0), k);  // one late frame
    wr->finish();
  }
  auto r = read_ahead(open_clip(path));
  EXPECT_EQ(r->info().kind, "video");
  EXPECT_EQ(r->info().codec, "ffv1");
  EXPECT_EQ(r->info().width, w);
  EXPECT_EQ(r->info().height, h);
  ClipFrame f;
  int k = 0;
  while (r->next(f)) {
    ASSERT_LT(k, 7);
    EXPECT_EQ(f.index, k);
    EXPECT_EQ(f.image.data, frame(w, h, k).data) << "frame " << k;
    EXPECT_NEAR(f.time, k / 25.0 + (k == 5 ? 0.013 : 0.0), 1.5e-3) << "frame " << k;  // the container's ms
    ++k;
  }
  EXPECT_EQ(k, 7);
  EXPECT_FALSE(r->next(f));
}

TEST(Clip, H264KeepsTheFramesWithinAKnownPsnr) {
  NEED_VIDEO();
  TempDir d;
  const std::string path = d / "clip.mp4";
  const int w = 64, h = 48;
  {
    ClipSpec spec;
    spec.width = w, spec.height = h, spec.fps = 30;
    auto wr = open_clip_writer(path, spec);
    for (int k = 0; k < 10; ++k) wr->write(frame(w, h, k), k / 30.0, k);
    wr->finish();
    EXPECT_NE(wr->summary().find("10 frames"), std::string::npos) << wr->summary();
  }
  auto r = open_clip(path);
  EXPECT_EQ(r->info().codec, "h264");
  EXPECT_NEAR(r->info().fps, 30.0, 0.01);
  ClipFrame f;
  int k = 0;
  while (r->next(f)) {
    // 4:2:0 chroma of the sharp red square costs most of the error: 28-29 dB at CRF 18 here; a wrong
    // matrix, range or frame order gives under 20.
    const double own = psnr(f.image, frame(w, h, k));
    EXPECT_GT(own, 26.0) << "frame " << k;
    EXPECT_GT(own, psnr(f.image, frame(w, h, k + 3)) + 3.0) << "frame " << k;
    EXPECT_NEAR(f.time, k / 30.0, 1e-3);
    ++k;
  }
  EXPECT_EQ(k, 10);
}

// 4:2:0 frames made by core/yuv.hpp (what the GPU makes of a result) go to the encoder as they are and
// read back as the RGBA frames did: the matrix and range the stream states are the ones used.
TEST(Clip, Yuv420FramesEncodeAsTheRgbaOnesDo) {
  NEED_VIDEO();
  TempDir d;
  const int w = 64, h = 48;
  for (const char* codec : {"h264", "hevc"}) {
    const std::string path = d / (std::string("yuv_") + codec + ".mp4");
    {
      ClipSpec spec;
      spec.width = w, spec.height = h, spec.fps = 30, spec.codec = codec;
      auto wr = open_clip_writer(path, spec);
      ASSERT_TRUE(wr->takes_yuv420()) << codec;
      Yuv420 y;
      for (int k = 0; k < 6; ++k) rgba_to_yuv420(frame(w, h, k), y), wr->write_yuv420(y, k / 30.0, k);
      wr->finish();
    }
    auto r = open_clip(path);
    ClipFrame f;
    int k = 0;
    while (r->next(f)) {
      EXPECT_GT(psnr(f.image, frame(w, h, k)), 26.0) << codec << " frame " << k;
      ++k;
    }
    EXPECT_EQ(k, 6) << codec;
  }
  ClipSpec odd;
  odd.width = 15, odd.height = 9;  // odd sides: 4:4:4, RGBA frames only
  auto wr = open_clip_writer(d / "odd.mp4", odd);
  EXPECT_FALSE(wr->takes_yuv420());
  Yuv420 y(15, 9);
  EXPECT_THROW(wr->write_yuv420(y, 0, 0), Error);
}

// A video's audio is copied into the video written (packet for packet), and a container that cannot hold
// its codec is refused with one line before anything is written.
TEST(Clip, AudioIsCopiedOrRefusedWithOneLine) {
  NEED_VIDEO();
  TempDir d;
  test::write_wav(d / "tone.wav", 8000, [](uint32_t i) { return 8000 * std::sin(2 * M_PI * 440 * i / 8000.0); });
  ClipSpec spec;
  spec.width = 32, spec.height = 24, spec.fps = 10, spec.codec = "ffv1", spec.audio_from = d / "tone.wav";
  {
    auto wr = open_clip_writer(d / "with_audio.mkv", spec);
    for (int k = 0; k < 10; ++k) wr->write(frame(32, 24, k), k / 10.0, k);
    wr->finish();
    EXPECT_NE(wr->summary().find("audio pcm_s16le copied"), std::string::npos) << wr->summary();
  }
  auto r = open_clip(d / "with_audio.mkv");
  EXPECT_EQ(r->info().audio, "pcm_s16le");
  ClipFrame f;
  int k = 0;
  while (r->next(f)) {  // the video is whole
    EXPECT_EQ(f.image.data, frame(32, 24, k).data) << k;
    ++k;
  }
  EXPECT_EQ(k, 10);
  spec.codec = "";
  try {
    open_clip_writer(d / "no.webm", spec);
    ADD_FAILURE() << "PCM audio accepted into WebM";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot be copied into a .webm"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(d / "no.webm"));
}

TEST(Clip, AnUnfinishedOrFailedVideoLeavesNothing) {
  NEED_VIDEO();
  TempDir d;
  const std::string path = d / "gone.mkv";
  {
    ClipSpec spec;
    spec.width = 16, spec.height = 16, spec.codec = "ffv1";
    auto wr = open_clip_writer(path, spec);
    wr->write(frame(16, 16, 0), 0, 0);
    EXPECT_THROW(wr->write(frame(18, 16, 1), 0.04, 1), Error);  // another size
  }
  EXPECT_TRUE(fs::is_empty(d.p)) << "left behind in " << d.p;
  ClipSpec bad;
  bad.width = 16, bad.height = 16, bad.codec = "no-such-codec";
  EXPECT_THROW(open_clip_writer(d / "x.mp4", bad), Error);
  EXPECT_THROW(open_clip_writer(d / "x.txt", bad), Error);
  EXPECT_TRUE(fs::is_empty(d.p));
}

TEST(Clip, ADamagedOrCutVideoIsOneLineNamingWhere) {
  NEED_VIDEO();
  TempDir d;
  const std::string path = d / "clip.mp4";
  {
    ClipSpec spec;
    spec.width = 64, spec.height = 48;
    auto wr = open_clip_writer(path, spec);
    for (int k = 0; k < 12; ++k) wr->write(frame(64, 48, k), k / 24.0, k);
    wr->finish();
  }
  // Cut in half: an MP4 whose index (moov, written last) is gone.
  const auto size = fs::file_size(path);
  fs::resize_file(path, size / 2);
  try {
    auto r = open_clip(path);
    ClipFrame f;
    while (r->next(f)) {
    }
    ADD_FAILURE() << "a cut MP4 was read to its end";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    EXPECT_EQ(m.rfind(path, 0), 0u) << m;
  }
  std::ofstream(d / "noise.mkv") << std::string(4096, 'x');
  EXPECT_THROW(open_clip(d / "noise.mkv"), Error);
}

TEST(Clip, SequencesByPatternAndFolderInNumberOrder) {
  TempDir d;
  for (int k : {9, 10, 11, 12}) save_image(sequence_file(d / "s_%03d.png", k), frame(20, 24, k));
  auto r = read_ahead(open_clip(d / "s_%03d.png", false, 12.0), 2);
  EXPECT_EQ(r->info().kind, "sequence");
  EXPECT_EQ(r->info().frames, 4);
  ClipFrame f;
  int k = 0;
  while (r->next(f)) {
    EXPECT_EQ(f.number, 9 + k);
    EXPECT_EQ(f.image.data, frame(20, 24, 9 + k).data);
    EXPECT_DOUBLE_EQ(f.time, k / 12.0);
    ++k;
  }
  EXPECT_EQ(k, 4);
  auto folder = open_clip(d.p.string());
  EXPECT_EQ(folder->info().frames, 4);
  // Written back by number, and removed again when the clip is not finished.
  {
    auto wr = open_clip_writer(d / "out_%04d.png", ClipSpec{});
    wr->write(frame(20, 24, 0), 0, 1001);
    wr->finish();
  }
  EXPECT_TRUE(fs::exists(d / "out_1001.png"));
  {
    auto wr = open_clip_writer(d / "tmp_%04d.png", ClipSpec{});
    wr->write(frame(20, 24, 0), 0, 1);
  }
  EXPECT_FALSE(fs::exists(d / "tmp_0001.png"));
}

TEST(Clip, GapsAndMixedSizesAreRefused) {
  TempDir d;
  for (int k : {1, 2, 4}) save_image(sequence_file(d / "g_%02d.png", k), frame(20, 24, k));
  try {
    open_clip(d / "g_%02d.png");
    ADD_FAILURE() << "a gap was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("gap"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("g_04.png follows"), std::string::npos) << e.what();
  }
  for (int k : {1, 2}) save_image(sequence_file(d / "m_%d.png", k), frame(20 + k, 24, k));
  auto r = open_clip(d / "m_%d.png");
  ClipFrame f;
  EXPECT_TRUE(r->next(f));
  EXPECT_THROW(r->next(f), Error);
  EXPECT_THROW(open_clip(d / "none_%d.png"), Error);
  EXPECT_THROW(open_clip(d / "still.png"), Error);
}

TEST(Clip, DepthClipsGiveFloatDepth) {
  TempDir d;
  ImageF a(9, 7, 1);
  for (size_t i = 0; i < a.data.size(); ++i) a.data[i] = float(i) / float(a.data.size());
  save_png16(sequence_file(d / "d%d.png", 0), a);
  auto r = open_clip(d / "d%d.png", true);
  ClipFrame f;
  ASSERT_TRUE(r->next(f));
  ASSERT_EQ(f.depth.width, 9);
  EXPECT_TRUE(f.image.empty());
  for (size_t i = 0; i < a.data.size(); ++i) EXPECT_NEAR(f.depth.data[i], a.data[i], 1.0 / 65535);
}

// Seeking (the app's scrubber and steps): next() gives the first frame at or after the time, the same
// pixels as reading on to it; before the start is the first frame, past the end nothing. Through the
// read-ahead thread too, which drops what it had decoded.
TEST(Clip, SeekGivesTheFrameAtATime) {
  TempDir d;
  for (int k = 0; k < 6; ++k) save_image(d / ("s_" + std::to_string(k + 3) + ".png"), frame(31, 23, k));
  for (bool ahead : {false, true}) {
    std::unique_ptr<ClipReader> r = open_clip(d / "s_%d.png", false, 10.0);
    if (ahead) r = read_ahead(std::move(r), 2);
    EXPECT_NEAR(r->info().duration, 0.6, 1e-9);
    ClipFrame f;
    ASSERT_TRUE(r->next(f));
    r->seek(0.4);
    ASSERT_TRUE(r->next(f));
    EXPECT_EQ(f.index, 4);
    EXPECT_EQ(f.number, 7);
    EXPECT_EQ(f.image.data, frame(31, 23, 4).data);
    ASSERT_TRUE(r->next(f));
    EXPECT_EQ(f.index, 5);
    r->seek(0.12);  // between frames 1 and 2: the first at or after it, with half a frame's slack
    ASSERT_TRUE(r->next(f));
    EXPECT_EQ(f.index, 1);
    r->seek(-1);
    ASSERT_TRUE(r->next(f));
    EXPECT_EQ(f.index, 0);
    EXPECT_EQ(f.image.data, frame(31, 23, 0).data);  // the first frame again after it was given once
    r->seek(5);
    EXPECT_FALSE(r->next(f));
  }
}

TEST(Clip, VideoSeekDecodesForwardToTheFrame) {
  NEED_VIDEO();
  TempDir d;
  const std::string path = d / "seek.mkv";
  const int w = 40, h = 30;
  {
    ClipSpec spec;
    spec.width = w, spec.height = h, spec.fps = 20, spec.codec = "ffv1";
    auto wr = open_clip_writer(path, spec);
    for (int k = 0; k < 12; ++k) wr->write(frame(w, h, k), k / 20.0, k);
    wr->finish();
  }
  auto r = read_ahead(open_clip(path), 3);
  EXPECT_NEAR(r->info().duration, 0.6, 0.051);
  ClipFrame f;
  for (int k : {7, 2, 11, 0, 5}) {
    r->seek(k / 20.0);
    ASSERT_TRUE(r->next(f)) << k;
    EXPECT_EQ(f.index, k);
    EXPECT_NEAR(f.time, k / 20.0, 2e-3);
    EXPECT_EQ(f.image.data, frame(w, h, k).data) << "frame " << k;
  }
  ASSERT_TRUE(r->next(f));
  EXPECT_EQ(f.index, 6);  // reading goes on from there
}

// A frame that does not decode is reported in its place, and the frames after it still come (what
// --skip-bad-frames needs); the error names the frame and its time.
TEST(Clip, ABadFrameIsReportedInItsPlaceAndReadingGoesOn) {
  TempDir d;
  for (int k = 0; k < 5; ++k) save_image(d / ("b_" + std::to_string(k) + ".png"), frame(16, 12, k));
  std::ofstream(d / "b_2.png", std::ios::binary | std::ios::trunc) << "\x89PNG\r\n\x1a\n broken";
  auto r = read_ahead(open_clip(d / "b_%d.png", false, 25.0), 2);
  ClipFrame f;
  ASSERT_TRUE(r->next(f));
  ASSERT_TRUE(r->next(f));
  EXPECT_EQ(f.index, 1);
  try {
    r->next(f);
    ADD_FAILURE() << "the broken frame was read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("frame 2 at 0.080 s"), std::string::npos) << e.what();
  }
  ASSERT_TRUE(r->next(f));
  EXPECT_EQ(f.index, 3);
  EXPECT_EQ(f.image.data, frame(16, 12, 3).data);
  ASSERT_TRUE(r->next(f));
  EXPECT_FALSE(r->next(f));
}

}  // namespace
}  // namespace satlab::io
