// A progress bar on a terminal (stderr); nothing otherwise, where a command's summary lines are the
// progress. `satlab render` shows images done in a batch and rows done of a streamed image.
#pragma once
#include <unistd.h>

#include <cstddef>
#include <cstdio>
#include <string>

namespace satlab::cli {

class Progress {
 public:
  explicit Progress(size_t total) : total_(total), tty_(isatty(STDERR_FILENO) != 0) {}
  void show(size_t done, const std::string& current) const {
    if (!tty_) return;
    const int width = 30, filled = int(width * done / (total_ ? total_ : 1));
    std::fprintf(stderr, "\r\033[K[%s%s] %zu/%zu %s", std::string(size_t(filled), '#').c_str(),
                 std::string(size_t(width - filled), '.').c_str(), done, total_, current.c_str());
    std::fflush(stderr);
  }
  void clear() const {
    if (tty_) std::fprintf(stderr, "\r\033[K");
  }

 private:
  size_t total_;
  bool tty_;
};

}  // namespace satlab::cli
