// Depth maps that phones store inside the photo: Google's GDepth XMP (the depth image base64-encoded in
// the JPEG's standard or extended XMP), Google's Dynamic Depth 1.0 (container items appended after the
// primary JPEG image) and HEIC depth auxiliary images (libheif, loaded at run time: the binary starts
// without it). The loader is lenient where real devices differ from the specs, and lists what it ignored.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/image.hpp"
#include "core/params.hpp"

namespace satlab::io {

struct EmbeddedDepth {
  // In the pipeline's convention (core/params.hpp) for d in [0,1]: z = near + d (far - near), or with
  // `disparity` 1/z = 1/far + d (1/near - 1/far). GDepth's RangeInverse (d = 0 at near) is stored as
  // 1 - d with disparity on; RangeLinear as is.
  ImageF depth;
  float near_depth = 0, far_depth = 0;  // as the file gives them; 0 where it gives none
  bool disparity = false;
  int orientation = 1;  // the photo's EXIF orientation (JPEG), already applied to `depth`
  std::string source;   // "GDepth RangeInverse", "Dynamic Depth RangeLinear", "HEIC uniform inverse Z"
  std::vector<std::string> ignored;  // what the file had that the loader did not use, one phrase each
  bool found() const { return !depth.empty(); }
};

// The depth a file carries, or an empty result (found() false) when it carries none. A file that
// announces depth but whose depth data is corrupt or truncated throws satlab::Error naming the file.
EmbeddedDepth load_embedded_depth(const std::string& path);

// What the JPEG parser extracts before any image is decoded (exposed for tests and the fuzz target).
struct JpegDepthPayload {
  std::vector<uint8_t> image;  // the encoded depth image (PNG or JPEG)
  std::string source, format, mime, units;
  float near_depth = 0, far_depth = 0;
  bool has_near = false, has_far = false;
  int orientation = 1;  // EXIF Orientation of the primary image (1-8)
  std::vector<std::string> ignored;
  bool found() const { return !image.empty(); }
};
// The 1-channel map as shown under EXIF orientation 1-8 (5-8 swap width and height).
ImageF oriented(const ImageF& stored, int orientation);
// Parses a JPEG file's bytes; throws satlab::Error (without the file name) on announced but broken depth.
JpegDepthPayload parse_jpeg_depth(const uint8_t* data, size_t size);

// The near/far/disparity settings that make the pipeline's min/max-normalised map (`map`, the depth as
// given to the pipeline, after any resampling) give the same scene depth the file stores. Where the file
// gives no near/far, `p` keeps its own and only `disparity` is set.
Params fit_embedded_range(const EmbeddedDepth& e, const ImageF& map, Params p);

// "embedded GDepth RangeInverse near 0.3 far 4.1" (and what was ignored, in parentheses).
std::string describe(const EmbeddedDepth& e);

}  // namespace satlab::io

namespace satlab::io {

// The hook of the app and `satlab render` for an image opened without a depth map file: the depth
// embedded in `image_path` at its own size (a phone's is a fraction of the photo's: the caller refines it
// to the image's, app/ops/depth_refine.hpp), and `p` with the file's near/far/disparity fitted
// (fit_embedded_range). Never throws: a file without depth gives used == false and an empty summary; a
// broken one gives used == false and a summary saying why ("embedded depth not used: ...").
struct DepthForImage {
  bool used = false;
  ImageF depth;
  Params params;
  std::string summary;  // "embedded GDepth RangeInverse near 0.3 far 4.1"
  std::string fitted;   // "; the map spans 0.5..3.04 (near/far set to that)" where the file gives a range
};
DepthForImage embedded_depth_for(const std::string& image_path, const Params& p);

}  // namespace satlab::io
