// Shared libraries opened at run time (dlopen): libheif and lcms2 have no static archive in Debian, and the
// binary must start where they are not installed (the GPU machine). Only the formats that need them are
// then unavailable, each refused with one line naming the package to install.
#pragma once
#include <dlfcn.h>

#include <initializer_list>
#include <string>

namespace satlab::io {

class DynLib {
 public:
  // Tries each soname in turn (e.g. "libheif.so.1").
  explicit DynLib(std::initializer_list<const char*> sonames) {
    std::string tried;
    for (const char* n : sonames) {
      handle_ = dlopen(n, RTLD_NOW | RTLD_LOCAL);
      if (handle_) return;
      tried += (tried.empty() ? "" : ", ") + std::string(n);
    }
    error_ = tried + " not found";
  }
  DynLib(const DynLib&) = delete;
  DynLib& operator=(const DynLib&) = delete;
  // Never closed: the libraries' own static state lives as long as the process.
  ~DynLib() = default;

  bool ok() const { return handle_ != nullptr && error_.empty(); }
  const std::string& error() const { return error_; }

  // Resolves `name` into `fn` (a pointer of the function's own type, decltype(&name)); a missing symbol
  // makes the library unusable (ok() false) with its name in error().
  template <typename Fn>
  void get(Fn& fn, const char* name) {
    fn = nullptr;
    if (!handle_) return;
    fn = reinterpret_cast<Fn>(dlsym(handle_, name));
    if (!fn && error_.empty()) error_ = std::string("symbol ") + name + " missing";
  }

 private:
  void* handle_ = nullptr;
  std::string error_;
};

}  // namespace satlab::io
