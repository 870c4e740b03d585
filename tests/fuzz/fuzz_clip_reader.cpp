// Fuzz target: satlab::io::open_clip and ClipReader::next on arbitrary bytes as a video (FFmpeg's demuxers
// and decoders, opened at run time: the first byte picks .mp4, .mkv or .webm, the rest is the file), as
// colour and as depth. Any input must either throw satlab::Error or give frames of the size the clip
// declares; crashes, leaks, hangs and other exceptions are findings. Without FFmpeg's libraries every
// input is an Error (the replay still runs the corpus).
#include <cstdint>
#include <cstdio>
#include <string>

#include "app/io/clip.hpp"
#include "core/error.hpp"
#include "tests/fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  static const char* ext[] = {"mp4", "mkv", "webm"};
  const std::string path = satlab::fuzz::write_input(data + 1, size - 1, ext[data[0] % 3]);
  for (const bool depth : {false, true}) {
    try {
      auto r = satlab::io::open_clip(path, depth);
      const satlab::io::ClipInfo info = r->info();
      satlab::io::ClipFrame f;
      for (int k = 0; k < 64 && r->next(f); ++k) {
        const int w = depth ? f.depth.width : f.image.width, h = depth ? f.depth.height : f.image.height;
        if (w != info.width || h != info.height) __builtin_trap();
      }
    } catch (const satlab::Error&) {
    }
  }
  std::remove(path.c_str());
  return 0;
}
