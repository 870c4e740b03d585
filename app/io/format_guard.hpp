// Checks on untrusted files that stb_image does not make itself, run after the header is read and before
// any pixel is decoded (found by fuzzing the loaders, docs/reliability.md).
#pragma once
#include <string>

namespace satlab::io {

// Throws satlab::Error when a file is too small to hold the pixels its header declares even at its
// format's best compression: a 100-byte file declaring 2^28 pixels would otherwise cost a gigabyte and
// seconds of decoding. JPEG files get the same kind of check in jpeg.cpp.
void check_untrusted_image(const std::string& path, int width, int height);

}  // namespace satlab::io
