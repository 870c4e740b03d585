// Fuzz target: the MP4-AT depth-track parser (app/io/depth_track.hpp) on arbitrary bytes, from memory; where it
// finds a depth track, the file is opened as a depth clip through the view FFmpeg reads (offsets and patches
// from the parser) and its frames read. Any input must either throw satlab::Error or give a consistent
// structure (the axte box within the input, a depth track the map names) and frames of the declared size;
// crashes, leaks, hangs and other exceptions are findings.
#include <cstdint>
#include <cstdio>
#include <string>

#include "app/io/clip.hpp"
#include "app/io/depth_track.hpp"
#include "core/error.hpp"
#include "tests/fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace satlab::io;
  Mp4AtInfo info;
  try {
    info = parse_mp4at(MemorySource(data, size));
  } catch (const satlab::Error&) {
    return 0;
  }
  if (!info.found) return 0;
  if (info.axte_end > size || info.axte_start + info.axte_header > info.axte_end) __builtin_trap();
  if (info.depth_track >= int(info.map.size())) __builtin_trap();
  if (info.depth_track < 0) return 0;
  const std::string path = satlab::fuzz::write_input(data, size, "mp4");
  try {
    auto r = open_clip(path, true);
    const ClipInfo ci = r->info();
    ClipFrame f;
    for (int k = 0; k < 64 && r->next(f); ++k)
      if (f.depth.width != ci.width || f.depth.height != ci.height) __builtin_trap();
  } catch (const satlab::Error&) {
  }
  std::remove(path.c_str());
  return 0;
}
