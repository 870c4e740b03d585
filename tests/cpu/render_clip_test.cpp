// satlab render's clip path (app/cli/render_clip.hpp) as the app's export runs it: told of every frame,
// and a cancel between frames stops it leaving nothing behind.
#include "app/cli/render_clip.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>

#include "app/io/clip.hpp"
#include "app/io/image_io.hpp"
#include "core/error.hpp"
#include "test_util.hpp"

namespace satlab::cli {
namespace {

namespace fs = std::filesystem;

struct Frames {
  fs::path dir = fs::temp_directory_path() / ("satlab_rclip_" + std::to_string(getpid()));
  explicit Frames(int n) {
    fs::create_directories(dir);
    for (int k = 0; k < n; ++k) {
      ImageRGBA8 img(23, 17);
      for (size_t i = 0; i < img.data.size(); ++i) img.data[i] = uint8_t((i * 7 + size_t(k) * 31) % 251);
      io::save_image((dir / ("f_" + std::to_string(k) + ".png")).string(), img);
    }
  }
  ~Frames() { fs::remove_all(dir); }
  std::string operator/(const std::string& n) const { return (dir / n).string(); }
};

TEST(RenderClip, ReportsEveryFrameAndACancelLeavesNothing) {
  Frames f(5);
  ClipRequest r;
  r.input = f / "f_%d.png";
  r.output = f / "o_%d.png";
  r.backend = "cpu";
  std::vector<long long> seen;
  r.on_frame = [&](long long done, long long total) {
    seen.push_back(done);
    EXPECT_EQ(total, 5);
  };
  Params p;
  render_clip(r, p);
  EXPECT_EQ(seen, (std::vector<long long>{1, 2, 3, 4, 5}));
  EXPECT_TRUE(fs::exists(f / "o_4.png"));

  std::atomic<bool> cancel{false};
  r.output = f / "c_%d.png";
  r.cancel = &cancel;
  r.on_frame = [&](long long done, long long) {
    if (done == 2) cancel = true;  // as the app's Cancel button, between frames
  };
  try {
    render_clip(r, p);
    ADD_FAILURE() << "a cancelled render finished";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cancelled"), std::string::npos) << e.what();
  }
  for (int k = 0; k < 5; ++k) EXPECT_FALSE(fs::exists(f / ("c_" + std::to_string(k) + ".png"))) << k;
}

// A video's audio goes into the video rendered from it; a sequence out says it is not written.
TEST(RenderClip, KeepsTheAudioOfAVideo) {
  if (!io::video_available()) GTEST_SKIP() << "no FFmpeg libraries";
  Frames f(6);
  {  // a video with a tone: the frames through FFV1, the audio from a WAV written by hand
    const std::string wav = f / "t.wav";
    test::write_wav(wav, 8000, [](uint32_t i) { return int16_t(i * 37); });
    ClipRequest make;
    make.input = f / "f_%d.png", make.output = f / "in.mkv", make.backend = "cpu", make.codec = "ffv1";
    Params box;
    box.filter = FilterKind::Box, box.box_radius = 0;
    render_clip(make, box);  // no audio yet: a sequence in
    io::ClipSpec spec;
    spec.width = 23, spec.height = 17, spec.fps = 24, spec.codec = "ffv1", spec.audio_from = wav;
    auto w = io::open_clip_writer(f / "av.mkv", spec);
    auto r = io::open_clip(f / "in.mkv");
    for (io::ClipFrame fr; r->next(fr);) w->write(fr.image, fr.time, fr.index);
    w->finish();
  }
  ClipRequest r;
  r.input = f / "av.mkv", r.output = f / "out.mkv", r.backend = "cpu", r.codec = "ffv1";
  Params p;
  const std::string line = render_clip(r, p);
  EXPECT_NE(line.find("audio pcm_s16le copied"), std::string::npos) << line;
  EXPECT_EQ(io::open_clip(f / "out.mkv")->info().audio, "pcm_s16le");
  r.output = f / "out.webm", r.codec = "";
  EXPECT_THROW(render_clip(r, p), Error);  // PCM cannot go into WebM: one line, nothing written
  EXPECT_FALSE(fs::exists(f / "out.webm"));
}

// A turned video with colour tags renders to a video laid out and tagged as it was (the frames upright on
// reading both), and `--decoder nvdec` on the CPU backend is one line, nothing written.
TEST(RenderClip, KeepsTheRotationAndColourTagsOfAVideo) {
  if (!io::video_available()) GTEST_SKIP() << "no FFmpeg libraries";
  Frames f(4);
  {
    io::ClipSpec spec;
    spec.width = 24, spec.height = 16, spec.fps = 24, spec.codec = "h264", spec.quality = 8;
    spec.rotation = 270, spec.color_primaries = 9, spec.color_trc = 14;  // BT.2020, BT.2020 10-bit transfer
    auto w = io::open_clip_writer(f / "in.mp4", spec);
    for (int k = 0; k < 4; ++k) {
      ImageRGBA8 img(24, 16);
      for (int y = 0; y < 16; ++y)
        for (int x = 0; x < 24; ++x) {
          uint8_t* p = img.px(x, y);
          p[0] = uint8_t(x * 10), p[1] = uint8_t(y * 15), p[2] = uint8_t(40 + k * 20), p[3] = 255;
        }
      w->write(img, k / 24.0, k);
    }
    w->finish();
  }
  ClipRequest r;
  r.input = f / "in.mp4", r.output = f / "out.mp4", r.backend = "cpu", r.codec = "h264", r.quality = 8;
  Params box;
  box.filter = FilterKind::Box, box.box_radius = 0;
  const std::string line = render_clip(r, box);
  EXPECT_NE(line.find("display matrix of 270"), std::string::npos) << line;
  auto in = io::open_clip(f / "in.mp4"), out = io::open_clip(f / "out.mp4");
  EXPECT_EQ(out->info().rotation, 270);
  EXPECT_EQ(out->info().width, 24);
  EXPECT_EQ(out->info().color_primaries, 9);
  EXPECT_EQ(out->info().color_trc, 14);
  int n = 0;
  for (io::ClipFrame a, b; in->next(a) && out->next(b); ++n) {
    double se = 0;
    for (size_t i = 0; i < a.image.data.size(); ++i) se += (a.image.data[i] - b.image.data[i]) * (a.image.data[i] - b.image.data[i]);
    EXPECT_LT(se / double(a.image.data.size()), 40.0) << "frame " << n << ": not laid out as the input";  // PSNR > 32
  }
  EXPECT_EQ(n, 4);
  r.output = f / "nv.mp4", r.decoder = "nvdec";
  EXPECT_THROW(render_clip(r, box), Error);
  EXPECT_FALSE(fs::exists(f / "nv.mp4"));
}

TEST(RenderClip, RefusesTwoDepthSourcesAndAnUnknownLayout) {
  Frames f(2);
  ClipRequest r;
  r.input = f / "f_%d.png";
  r.output = f / "o_%d.png";
  r.backend = "cpu";
  Params p;
  r.stereo = "sbs", r.right = f / "f_%d.png";
  EXPECT_THROW(render_clip(r, p), Error);
  r.right.clear(), r.stereo = "lr";
  EXPECT_THROW(render_clip(r, p), Error);
  EXPECT_FALSE(fs::exists(f / "o_0.png"));
}

}  // namespace
}  // namespace satlab::cli
