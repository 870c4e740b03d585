#include "app/gui/gl_timer.hpp"

#include <glad/gl.h>

namespace satlab::gui {

GlTimer::GlTimer() { glGenQueries(kRing, queries_); }

GlTimer::~GlTimer() { glDeleteQueries(kRing, queries_); }

void GlTimer::begin() {
  if (issued_ - read_ == kRing) ++read_;  // the ring is full of unread results: drop the oldest
  glBeginQuery(GL_TIME_ELAPSED, queries_[issued_ % kRing]);
  open_ = true;
}

void GlTimer::end() {
  if (!open_) return;
  glEndQuery(GL_TIME_ELAPSED);
  open_ = false;
  ++issued_;
}

bool GlTimer::poll(double* ms) {
  if (read_ == issued_) return false;
  const unsigned q = queries_[read_ % kRing];
  GLint available = 0;
  glGetQueryObjectiv(q, GL_QUERY_RESULT_AVAILABLE, &available);
  if (!available) return false;
  GLuint64 ns = 0;
  glGetQueryObjectui64v(q, GL_QUERY_RESULT, &ns);
  ++read_;
  *ms = double(ns) * 1e-6;
  return true;
}

}  // namespace satlab::gui
