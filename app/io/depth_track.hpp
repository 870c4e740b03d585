// Depth tracks inside a video file: Android's MP4 with Auxiliary Tracks Extension (MP4-AT, 0.9, what media3
// writes for "editable" videos). The primary tracks are an ordinary MP4; the auxiliary ones (a depth video,
// linear or inverse as Dynamic Depth 1.0 encodes them) are a second MP4 inside an `axte` box, whose
// moov.meta (mdta keys) holds auxiliary.tracks.map (a byte per track: 0 original, 1 linear depth, 2 inverse
// depth, 3 depth metadata) and auxiliary.tracks.interleaved (0: the auxiliary MP4 stands alone, its sample
// offsets from its own start; 1: they are the file's, its samples may lie in the outer mdat).
//
// The parser walks boxes over a ByteSource (a file, or memory for the fuzz target), bounded by the sizes
// it has checked; a damaged structure is satlab::Error with one line naming what is wrong.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace satlab::io {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual uint64_t size() const = 0;
  // n bytes at offset into out; false where the source holds fewer.
  virtual bool read(uint64_t offset, size_t n, uint8_t* out) const = 0;
};

class MemorySource final : public ByteSource {
 public:
  MemorySource(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint64_t size() const override { return size_; }
  bool read(uint64_t offset, size_t n, uint8_t* out) const override;

 private:
  const uint8_t* data_;
  size_t size_;
};

struct Mp4AtInfo {
  bool found = false;               // the file has an axte box
  uint64_t axte_start = 0, axte_header = 0, axte_end = 0;  // the box, its header's length
  uint64_t moov_start = 0;          // the outer moov box (interleaved: hidden so that the inner one is read)
  bool interleaved = false;
  std::vector<uint8_t> map;         // auxiliary.tracks.map: a type per track of the auxiliary MP4
  int depth_track = -1;             // the first linear (1) or inverse (2) depth track's index; -1: none
  bool inverse = false;             // that track's depth is inverse (a disparity: larger is nearer)
  std::string describe() const;     // "MP4-AT depth track 1 (inverse)"
};

// The file's MP4-AT structure (found = false: an ordinary file, or not an MP4). Throws satlab::Error for an
// axte box that is damaged, a map that names no track, or an auxiliary MP4 without its metadata.
Mp4AtInfo parse_mp4at(const ByteSource& src);
Mp4AtInfo find_mp4at(const std::string& path);  // the same on a file (found = false where it cannot be read)

// How FFmpeg is to see the auxiliary MP4: the bytes [start, end) of the file with `patches` (offset from the
// file's start, bytes) laid over them. Standalone: the axte box's payload. Interleaved: the whole file with
// the outer moov renamed `free` and the axte header made a `free` box of its own length, so that the inner
// boxes are the top level and their sample offsets (the file's) hold as they are.
struct Mp4AtView {
  uint64_t start = 0, end = 0;
  std::vector<std::pair<uint64_t, std::vector<uint8_t>>> patches;
};
Mp4AtView mp4at_view(const Mp4AtInfo& info, uint64_t file_size);

// Writes an MP4-AT file (tests, and docs/clips.md's sample): `primary` (an MP4 whose moov is its last box, as
// FFmpeg writes without faststart) with `auxiliary` (an MP4 of the depth track(s), likewise) appended in an
// axte box, the keys in both moovs' meta. Interleaved: the auxiliary's sample offsets are rebased onto the
// file. Throws satlab::Error where the inputs are not shaped so.
void write_mp4at(const std::string& primary, const std::string& auxiliary, const std::vector<uint8_t>& map,
                 bool interleaved, const std::string& out);

}  // namespace satlab::io
