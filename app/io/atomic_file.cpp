#include "app/io/atomic_file.hpp"

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "app/io/image_io.hpp"
#include "core/error.hpp"

namespace satlab::io {
namespace {

// The temporary files open now, for the signal handler: fixed slots, since a handler may not allocate.
constexpr int kSlots = 32;
constexpr size_t kPathMax = 4096;
char g_paths[kSlots][kPathMax];
std::atomic<bool> g_used[kSlots];
struct sigaction g_previous[3];
constexpr int kSignals[3] = {SIGINT, SIGTERM, SIGHUP};

void on_signal(int sig) {
  for (int i = 0; i < kSlots; ++i)
    if (g_used[i].load()) ::unlink(g_paths[i]);
  for (int k = 0; k < 3; ++k)
    if (kSignals[k] == sig) ::sigaction(sig, &g_previous[k], nullptr);
  ::raise(sig);
}

// Installed once, for the signals whose disposition is still the default (a program's own handler is
// left alone).
void install_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int k = 0; k < 3; ++k) {
      struct sigaction now {};
      if (::sigaction(kSignals[k], nullptr, &now) != 0 || now.sa_handler != SIG_DFL) continue;
      struct sigaction sa {};
      sa.sa_handler = on_signal;
      sigemptyset(&sa.sa_mask);
      ::sigaction(kSignals[k], &sa, &g_previous[k]);
    }
  });
}

int take_slot(const std::string& tmp) {
  if (tmp.size() >= kPathMax) return -1;
  static std::mutex m;
  std::lock_guard<std::mutex> lock(m);
  for (int i = 0; i < kSlots; ++i)
    if (!g_used[i].load()) {
      std::memcpy(g_paths[i], tmp.c_str(), tmp.size() + 1);
      g_used[i] = true;
      return i;
    }
  return -1;  // more than kSlots at once: this one is removed on failure, not on a signal
}

// PATH.tmp-PID files of processes that no longer exist (killed with SIGKILL, which no handler sees) are
// removed: they are this writer's own leftovers for the same output.
void remove_stale(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash + 1);
  const std::string prefix = (slash == std::string::npos ? path : path.substr(slash + 1)) + ".tmp-";
  DIR* d = ::opendir(dir.c_str());
  if (!d) return;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.compare(0, prefix.size(), prefix) != 0 || name.size() == prefix.size()) continue;
    char* end = nullptr;
    const long pid = std::strtol(name.c_str() + prefix.size(), &end, 10);
    if (*end || pid <= 0 || pid == long(::getpid())) continue;
    if (::kill(pid_t(pid), 0) != 0 && errno == ESRCH)
      ::unlink((slash == std::string::npos ? name : dir + name).c_str());
  }
  ::closedir(d);
}

}  // namespace

bool write_file_checked(const std::string& path, const void* data, size_t n) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return false;
  bool ok = std::fwrite(data, 1, n, f) == n;
  ok = std::fflush(f) == 0 && ok && !std::ferror(f);
  const int e = errno;
  ok = std::fclose(f) == 0 && ok;
  if (!ok && errno == 0) errno = e ? e : EIO;
  return ok;
}

TempFile::TempFile(const std::string& path) : path_(path), tmp_(path + ".tmp-" + std::to_string(::getpid())) {
  refuse_overwriting_inputs(path);
  install_handler();
  remove_stale(path);
  slot_ = take_slot(tmp_);
}

TempFile::~TempFile() {
  if (!committed_) std::remove(tmp_.c_str());
  if (slot_ >= 0) g_used[slot_] = false;
}

void TempFile::commit() {
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0) {
    const int e = errno;
    std::remove(tmp_.c_str());
    throw Error(path_ + ": cannot write: " + std::strerror(e));
  }
  committed_ = true;
}

bool TempFile::close_and_commit(std::FILE*& f) {
  const bool ok = std::fflush(f) == 0 && !std::ferror(f);
  const bool closed = std::fclose(f) == 0;
  f = nullptr;
  if (!ok || !closed) return false;
  commit();
  return true;
}

}  // namespace satlab::io
