// Checks on untrusted files that stb_image does not make itself, run before it decodes anything:
// found by fuzzing the loaders (docs/reliability.md).
#pragma once
#include <string>

namespace satlab::io {

// Before stb reads even the header: throws satlab::Error for a JPEG whose Huffman tables declare more
// than 256 codes (Debian's stb_image 2.27 then writes past its tables, already in stbi_info).
void check_untrusted_file(const std::string& path);

// After the header: throws satlab::Error when the file cannot be a valid image of its declared size:
//  - a file too small to hold its declared pixels even at the format's best compression (a 100-byte
//    PNG declaring 2^28 pixels would otherwise cost a gigabyte and seconds of decoding).
void check_untrusted_image(const std::string& path, int width, int height);


}  // namespace satlab::io
