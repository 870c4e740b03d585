// The export of the result at full resolution, streamed: the image and the depth in use go through the
// tiled executor (core/tiled.hpp, bit-identical to the whole-image pipeline) on a thread of its own, band by
// band into a row writer (io::open_image_writer), so the app stays responsive, shows the rows done and can
// cancel. The file is written under a temporary name and renamed when complete: a cancel or a failure
// leaves no file. Its bytes are those `satlab render` writes for the image: where render filters it whole
// (cli::whole_image_refusal), the rows are kept and written whole by the same writer (io::save_image),
// else (or with `stream`) they go to the row writer as render's streaming path writes them.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "core/image.hpp"
#include "core/params.hpp"
#include "core/pipeline.hpp"
#include "core/synthetic_depth.hpp"

namespace satlab::gui {

class StreamExport {
 public:
  struct Request {
    std::string path;                         // the file to write (.png, .tif, .jpg)
    std::shared_ptr<const ImageRGBA8> image;  // the image as the pipeline has it; null: read from `file`
    std::string file;                         // read by rows (an image opened as an overview)
    SyntheticDepth synthetic;                 // with `file`: its depth, made by rows (mode none: no depth)
    std::shared_ptr<const ImageF> depth;      // the raw depth the pipeline has, the image's size; null: none
    Params params;
    Algorithms algorithms;
    std::string backend = "auto";  // auto | cpu | gpu
    uint32_t max_tile = 2048;      // the largest tile side: bands of at most this many rows, for progress
    bool stream = false;           // rows to the row writer whatever the size (as render --tile)
    int band_delay_ms = 0;         // tests: a pause after each band, so that a cancel can land mid-export
  };
  explicit StreamExport(Request r);  // starts the thread
  ~StreamExport();                   // cancels and waits
  StreamExport(const StreamExport&) = delete;
  StreamExport& operator=(const StreamExport&) = delete;

  void cancel() { cancel_ = true; }
  void wait();  // until the thread is done
  bool done() const { return done_; }
  uint64_t rows_done() const { return rows_done_; }
  uint64_t rows_total() const { return rows_total_; }
  const std::string& path() const { return request_.path; }
  // Once done(): whether the file was written; else cancelled() or error() ("" for a cancel).
  bool written() const { return done_ && error_.empty() && !cancelled_; }
  bool cancelled() const { return done_ && cancelled_; }
  const std::string& error() const { return error_; }
  const std::string& summary() const { return summary_; }  // what was done: tiles, backend, time

 private:
  void run();
  Request request_;
  std::atomic<bool> cancel_{false}, done_{false};
  std::atomic<uint64_t> rows_done_{0}, rows_total_{0};
  bool cancelled_ = false;  // set by the thread before done_
  std::string error_, summary_;
  std::thread thread_;
};

}  // namespace satlab::gui
