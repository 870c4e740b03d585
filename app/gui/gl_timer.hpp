// GPU time of the GL commands between begin() and end(), measured with GL_TIME_ELAPSED queries and read
// a few frames late (a small ring of queries), so reading never stalls the frame. Needs a current GL
// context from construction to destruction. Sequential timers only: GL does not nest these queries.
#pragma once

namespace satlab::gui {

class GlTimer {
 public:
  GlTimer();
  ~GlTimer();
  GlTimer(const GlTimer&) = delete;
  GlTimer& operator=(const GlTimer&) = delete;

  void begin();
  void end();
  // The oldest finished measurement not yet read, in ms; false when none has finished.
  bool poll(double* ms);

 private:
  static constexpr int kRing = 4;
  unsigned queries_[kRing] = {};
  int issued_ = 0, read_ = 0;  // counts of queries begun and read
  bool open_ = false;
};

}  // namespace satlab::gui
