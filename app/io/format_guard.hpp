// Checks on untrusted files that stb_image does not make itself, run after the header is read and before
// any pixel is decoded (found by fuzzing the loaders, docs/reliability.md), and the limits every image
// must fit: the configured pixel limit and the host memory that is actually available.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace satlab::io {

// Host bytes the app holds per image pixel when the CPU backend filters it: the decoder's buffer (4)
// beside the decoded image (4) and the depth map (4); the backend's copies of both (8), its SAT (16),
// normalised depth, CoC map and result (4 each).
constexpr uint64_t kHostBytesPerPixel = 48;

// Throws satlab::Error naming the file when an image of the size its header declares is over the pixel
// limit (io::max_pixels()) or would need more host memory than /proc/meminfo's MemAvailable. Called with
// the header's numbers, before any pixel buffer is allocated.
void check_image_limits(const std::string& path, uint64_t width, uint64_t height);
// The pixel limit alone, for images streamed by rows (their memory is a budget of their own).
void check_pixel_limit(const std::string& path, uint64_t width, uint64_t height);

// Throws satlab::Error when a file is too small to hold the pixels its header declares even at its
// format's best compression: a 100-byte file declaring 2^28 pixels would otherwise cost a gigabyte and
// seconds of decoding. JPEG files get the same kind of check in jpeg.cpp.
void check_untrusted_image(const std::string& path, int width, int height);

// What a decoder may allocate beyond the pixels it returns (libjpeg's coefficient buffers of a progressive
// file): the memory budget of the run (render sets it from --memory-budget); 0: unbounded.
void set_decode_memory_limit(size_t bytes);
size_t decode_memory_limit();

// Throws satlab::Error when a PNG's image data inflates to fewer bytes than its declared rows take: a
// header edited to a 1,000,000-pixel side otherwise costs gigabytes before the decoder finds the data short.
// Counted through a small buffer, before anything the image's size is allocated, and only where the header
// declares over 64 pixels a byte of the file (an ordinary PNG is not inflated twice).
void check_png_data(const std::string& path, uint64_t file_bytes, uint64_t width, uint64_t height);

// Throws satlab::Error when a file of `file_bytes` cannot hold `pixels` even if its format packs
// `max_pixels_per_byte` pixels into each byte (the format's best case, from how its coding works).
void check_declared_size(const std::string& path, uint64_t file_bytes, uint64_t pixels, uint64_t max_pixels_per_byte,
                         const std::string& format);

// MemAvailable from /proc/meminfo in bytes; 0 where it cannot be read (then memory is not checked).
uint64_t host_memory_available();

namespace testing {
// Replaces what host_memory_available() reports (0: read /proc/meminfo again).
void set_host_memory_available(uint64_t bytes);
}  // namespace testing

}  // namespace satlab::io
