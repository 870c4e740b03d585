// satlab render's streaming path. An image larger than the whole-image path may take within the memory
// budget (or any image, with --tile; by default, any image whose result streaming gives exactly)
// is read by rows (io::open_image_reader: its header is checked before any pixel is decoded), filtered tile by tile by the tiled executor (core/tiled.hpp) on the chosen backend
// and written by rows under a temporary name that is renamed when complete (io::open_image_writer): a
// truncated input, a failure or a cancel leaves no output, and memory stays within --memory-budget
// whatever the image's size. Depth comes from a depth map file of the image's size, read by rows (twice:
// the executor's statistics pass, then the bands), or from the synthetic depth, made band by band.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/params.hpp"
#include "core/pipeline.hpp"
#include "core/synthetic_depth.hpp"

namespace satlab::cli {

struct StreamRequest {
  std::string input, output;
  std::string depth;  // a depth map file; "": the synthetic depth (none with Mode::None)
  SyntheticDepth synthetic;
  std::string refine = "auto";  // a refiner needs the whole image: only auto (none here) and none stream
  std::string backend = "auto";
  Algorithms algorithms;
  size_t budget = 0;      // bytes of host (and device) memory; 0: default_memory_budget
  uint32_t max_tile = 0;  // --tile: the largest tile side (0: as large as the budget allows)
  bool compress = true;   // TIFF output: deflate, else uncompressed
  bool whole = false;     // --whole: stream only an image too large to filter whole
};

// The note a streamed render prints after its tiles (on stderr, "satlab: note: " before it): the
// statistics passes' seconds, then the busy seconds of reading, filtering and writing (TiledReport), and the
// tiled run's wall. `satlab bench stream` reads it back.
constexpr const char* kStageNote = "stages in s (reading, filtering and writing run at once): ";
constexpr const char* kStageFormat = "statistics %lf, read %lf, filter %lf, write %lf; wall %lf";

// "" where an image of width x height may be filtered whole on this backend within `budget` bytes; else
// why not, in words ("filtering it whole takes about 3.1 GiB, more than the memory budget of 1 GiB").
std::string whole_image_refusal(uint64_t width, uint64_t height, bool gpu, size_t budget);

// Streams one image (a TIFF, PNG or JPEG file) into r.output when it needs to (whole_image_refusal),
// `force` says so, or wherever the result is the whole-image path's, byte for byte (no depth refiner or
// orientation to apply, no highlights, a TIFF result, a depth map of the image's size by rows or the
// synthetic one; on the CPU, halos that add at most 35% to the pixels filtered; on the GPU, no depth map
// file), unless r.whole; throws satlab::Error (one line) on any failure, leaving no
// output. Returns the summary of what was done, for render's "wrote" line; "" where the image was left
// to the whole-image path.
std::string render_streamed(const StreamRequest& r, const Params& p, bool force);

}  // namespace satlab::cli
