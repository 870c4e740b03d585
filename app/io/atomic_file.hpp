// A file written under a temporary name beside its final one (PATH.tmp-PID) and renamed when complete, so
// that a reader never sees a half-written file and a failed write leaves nothing. A process ended by
// SIGINT, SIGTERM or SIGHUP while such a file is open removes it first (where those signals have no
// handler of their own).
#pragma once
#include <cstddef>
#include <cstdio>
#include <string>

namespace satlab::io {

// Writes n bytes to a new file at path (a TempFile's tmp()); false, errno set, when any write, the flush or
// the close fails (on a full disk the close may be the first to say so).
bool write_file_checked(const std::string& path, const void* data, size_t n);

class TempFile {
 public:
  // Refuses (satlab::Error) a path that is an input of this run (image_io.hpp).
  explicit TempFile(const std::string& path);
  ~TempFile();  // removes the temporary file unless commit() ran
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  const std::string& path() const { return path_; }
  const std::string& tmp() const { return tmp_; }  // where to write
  // Renames the temporary file to path(); throws satlab::Error naming path() where that fails.
  void commit();
  // Flushes and closes `f` (the temporary file, opened by the caller), then commit(); false, with the
  // file left for the destructor to remove, where writing it failed.
  bool close_and_commit(std::FILE*& f);

 private:
  std::string path_, tmp_;
  int slot_ = -1;  // in the list the signal handler removes
  bool committed_ = false;
};

}  // namespace satlab::io
