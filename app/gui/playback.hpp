// A clip open in the app (issue 45): a video or an image sequence whose frames become the session's image
// one at a time, the backend, depth source and parameters kept. Space plays and pauses, the arrows step a
// frame, the timeline under the image scrubs (a preview while it is held, as a dragged slider gets) and
// shows the keys; K sets a key at the playhead from the sliders, Ctrl+K deletes the key there. Keys drive
// the fields they set at every new frame (core/timeline.hpp), so between keys a slider change holds until
// the next frame. Export renders the whole clip on a thread (cli::render_clip, what `satlab render` runs),
// with a progress bar and Cancel.
#pragma once
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "app/io/clip.hpp"
#include "core/timeline.hpp"

namespace satlab::gui {

struct AppState;
class Session;

// The export's thread and what it reports.
struct ClipExport {
  std::thread thread;
  std::atomic<bool> cancel{false}, done{false};
  std::atomic<long long> frames_done{0}, frames_total{-1};
  std::string path;            // the output
  std::string error, summary;  // read once done
  ~ClipExport() {
    cancel = true;
    if (thread.joinable()) thread.join();
  }
};

struct ClipState {
  bool open = false;       // a clip is open: the session's image is its frame `index`
  std::string path;        // the clip
  std::string depth_path;  // its depth clip, matched by time ("": the session's depth: synthetic or one map)
  io::ClipInfo info;
  std::string decoder = "auto";  // asked for (--decoder): auto, cpu, nvdec; info.decoder says which decodes
  long long index = -1;    // the frame shown
  double time = 0;         // its time in seconds
  bool playing = false;
  bool loop = true;        // playing past the end starts again
  // Requests from the keys and the timeline bar, handled by Playback::update.
  bool toggle = false;     // play / pause
  int step = 0;            // frames forward (> 0) or back (< 0)
  double seek = -1;        // to this time (s); < 0: none
  bool scrubbing = false;  // the scrubber is held: changes render as previews
  bool set_key = false, delete_key = false;
  Timeline keys;
  std::string note;        // what the last key action did, or why a request failed
  // Host clock: the main thread's wait for the next decoded frame, and handing it to the session.
  double decode_ms = 0, frame_in_ms = 0;
  double rate_fps = 0;     // frames shown per second while playing (EMA of the intervals)
  long long shown = 0;     // frames shown since the clip was opened
  long long played = 0;    // frame intervals while playing (the first frame after Play starts none), their seconds
  double played_s = 0;
  // Export of the whole clip.
  char export_path[1024] = "";  // "": NAME_dof.mp4 (a sequence: NAME_dof_%04d.png) in the Files folder
  bool export_requested = false, cancel_requested = false;
  std::shared_ptr<ClipExport> job;
  std::string export_message;   // what the last export wrote, or why it did not
};

// A path the app opens as a clip: a video, a sequence pattern, a folder of images.
bool is_clip_request(const std::string& path);

class Playback {
 public:
  // Opens a clip: its first frame becomes the session's image, with `depth_path` (a depth clip, matched by
  // time; or one depth map) or the synthetic depth. Throws satlab::Error, the session unchanged.
  void open(AppState& s, Session& session, const std::string& path, const std::string& depth_path);
  // Before Session::handle_requests: a clip named in s.open_image is opened here (an image closes the
  // clip); then play, step, seek and key requests, the next frame while playing, the keys' parameters at
  // a new frame. Failures go to s.error; the clip stays where it was.
  void update(AppState& s, Session& session);

 private:
  void show_frame(AppState& s, Session& session);  // frame_, read last
  bool read_next(AppState& s);  // into frame_; false at the end
  void seek(double time);
  void apply_keys(AppState& s, Session& session);
  void set_key(AppState& s);
  std::unique_ptr<io::ClipReader> reader_, depth_;
  io::ClipFrame frame_;  // the frame read last; its image, once shown, the one it replaced (decoded into again)
  io::ClipFrame depth_frame_, depth_next_;  // the depth frame in use, and the one after it
  bool have_depth_next_ = false, depth_done_ = false;
  std::chrono::steady_clock::time_point play_wall_{};  // when playing started, and the clip time then
  double play_time_ = 0;
  std::chrono::steady_clock::time_point last_shown_{};
};

// The timeline bar at the bottom of the image area while a clip is open: play/pause, step, frame and time,
// the scrubber with the keys drawn on it, the playback rate, export (a progress bar and Cancel while it
// runs). Returns its height (0: no clip).
float draw_timeline(AppState& s, float x, float bottom, float width);
// Starts an export asked for, collects a finished one (its summary or error), passes Cancel on.
void handle_clip_export(AppState& s);

}  // namespace satlab::gui
