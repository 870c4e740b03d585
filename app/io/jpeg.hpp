// JPEG through libjpeg-turbo (Debian's libjpeg62-turbo): Debian's stb_image 2.27 writes past its Huffman
// tables on corrupt JPEG files (found by fuzzing the loaders, docs/reliability.md), so JPEG data never
// reaches stb.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace satlab::io {

bool is_jpeg_file(const std::string& path);  // starts with the SOI marker

// Decodes to 8-bit `channels` (1: grey, 4: RGBA with opaque alpha). The declared size is checked against
// the pixel limit and the file's size before anything is decoded. Throws satlab::Error naming the file.
std::vector<uint8_t> decode_jpeg(const std::string& path, int channels, int* width, int* height);

}  // namespace satlab::io
