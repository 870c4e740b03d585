#include "app/gui/viewer.hpp"

#include <glad/gl.h>

#include <algorithm>
#include <string>

#include "app/gui/surface.hpp"
#include "core/error.hpp"
#include "satlab_shaders.hpp"

namespace satlab::gui {
namespace {

GLuint compile(GLenum type, const char* src, const char* name) {
  GLuint s = glCreateShader(type);
  glShaderSource(s, 1, &src, nullptr);
  glCompileShader(s);
  GLint ok = 0;
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[2048] = {};
    glGetShaderInfoLog(s, sizeof(log), nullptr, log);
    glDeleteShader(s);
    throw Error(std::string("shader ") + name + " does not compile: " + log);
  }
  return s;
}

}  // namespace

Viewer::Viewer() {
  GLuint vs = compile(GL_VERTEX_SHADER, shaders::fullscreen_vert, "fullscreen.vert");
  GLuint fs = compile(GL_FRAGMENT_SHADER, shaders::view_frag, "view.frag");
  program_ = glCreateProgram();
  glAttachShader(program_, vs);
  glAttachShader(program_, fs);
  glLinkProgram(program_);
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint ok = 0;
  glGetProgramiv(program_, GL_LINK_STATUS, &ok);
  if (!ok) {
    char log[2048] = {};
    glGetProgramInfoLog(program_, sizeof(log), nullptr, log);
    throw Error(std::string("viewer shaders do not link: ") + log);
  }
  glCreateVertexArrays(1, &vao_);
  loc_mode_ = glGetUniformLocation(program_, "mode");
  loc_coc_scale_ = glGetUniformLocation(program_, "coc_scale");
  loc_uv_rect_ = glGetUniformLocation(program_, "uv_rect");
  loc_background_ = glGetUniformLocation(program_, "background");
  loc_legend_ = glGetUniformLocation(program_, "legend");
  render_legend(depth_legend_, 1);
  render_legend(coc_legend_, 2);
}

// Legends go through the same shader as the views, so they can never disagree with them.
void Viewer::render_legend(ViewerTexture& target, int mode) {
  target.allocate(256, 1);
  GLint previous = 0;
  glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &previous);
  GLuint fbo = 0;
  glCreateFramebuffers(1, &fbo);
  glNamedFramebufferTexture(fbo, GL_COLOR_ATTACHMENT0, target.texture(), 0);
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, fbo);
  glViewport(0, 0, 256, 1);
  glUseProgram(program_);
  glUniform1i(loc_mode_, mode);
  glUniform1i(loc_legend_, 1);
  glUniform1f(loc_coc_scale_, 1.f);
  glBindVertexArray(vao_);
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glBindVertexArray(0);
  glUniform1i(loc_legend_, 0);
  glUseProgram(0);
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, GLuint(previous));
  glDeleteFramebuffers(1, &fbo);
  check_gl("drawing the colour-map legend");
}

unsigned Viewer::legend_texture(View view) const {
  return view == View::Depth ? depth_legend_.texture() : view == View::Coc ? coc_legend_.texture() : 0;
}

Viewer::~Viewer() {
  if (vao_) glDeleteVertexArrays(1, &vao_);
  if (program_) glDeleteProgram(program_);
}

Viewer::Rect Viewer::visible_rect() const {
  // Fit the image into the region (letterboxed), then zoom about the centre and pan.
  const float iw = float(std::max(colour_.width(), 1)), ih = float(std::max(colour_.height(), 1));
  const float fit = std::min(float(region_w_) / iw, float(region_h_) / ih) * zoom_;  // region px per image px
  const float du = float(region_w_) / (fit * iw), dv = float(region_h_) / (fit * ih);
  const float u0 = 0.5f - 0.5f * du - pan_x_ / (fit * iw), v0 = 0.5f - 0.5f * dv - pan_y_ / (fit * ih);
  return {u0, v0, du, dv};
}

void Viewer::draw(View view, int x, int y, int w, int h, int fb_height, float coc_scale) {
  region_w_ = std::max(w, 1), region_h_ = std::max(h, 1);
  const bool scalar = view == View::Depth || view == View::Coc;
  if (!colour_.texture() || (scalar && !scalar_.texture())) return;
  const Rect r = visible_rect();
  // Nearest sampling once an image pixel covers more than 1.5 screen pixels, so pixels stay crisp.
  const bool magnified = float(region_w_) / (r.du * float(colour_.width())) > 1.5f;
  colour_.set_magnified(magnified);
  scalar_.set_magnified(magnified);
  glViewport(x, fb_height - y - h, w, h);
  glUseProgram(program_);
  glBindTextureUnit(0, colour_.texture());
  glBindTextureUnit(1, scalar ? scalar_.texture() : colour_.texture());
  glUniform1i(loc_mode_, view == View::Depth ? 1 : view == View::Coc ? 2 : 0);
  glUniform1f(loc_coc_scale_, coc_scale);
  glUniform4f(loc_uv_rect_, r.u0, r.v0, r.du, r.dv);
  glUniform4f(loc_background_, 0.09f, 0.09f, 0.1f, 1.f);
  glBindVertexArray(vao_);
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glBindVertexArray(0);
  glUseProgram(0);
}

void Viewer::zoom_at(float factor, float mx, float my) {
  const float new_zoom = std::min(std::max(zoom_ * factor, 0.1f), 64.f);
  factor = new_zoom / zoom_;
  // Keep the point under the cursor fixed: offsets from the region centre scale with the zoom.
  const float cx = mx - 0.5f * float(region_w_), cy = my - 0.5f * float(region_h_);
  pan_x_ = cx - (cx - pan_x_) * factor;
  pan_y_ = cy - (cy - pan_y_) * factor;
  zoom_ = new_zoom;
}

void Viewer::pan(float dx, float dy) {
  pan_x_ += dx;
  pan_y_ += dy;
}

bool Viewer::pixel_at(float mx, float my, int* px, int* py) const {
  const Rect r = visible_rect();
  const float u = r.u0 + mx / float(region_w_) * r.du, v = r.v0 + my / float(region_h_) * r.dv;
  if (u < 0 || v < 0 || u >= 1 || v >= 1) return false;
  *px = std::min(int(u * float(colour_.width())), colour_.width() - 1);
  *py = std::min(int(v * float(colour_.height())), colour_.height() - 1);
  return true;
}

}  // namespace satlab::gui
