#include "app/gui/viewer.hpp"

#include <glad/gl.h>

#include <algorithm>
#include <cmath>
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

// The shader's mode for a view (see shaders/view.frag).
int shader_mode(View v, bool sat_luminance) {
  switch (v) {
    case View::Depth:
      return 1;
    case View::Coc:
      return 2;
    case View::Diff:
      return 3;
    case View::Sat:
      return sat_luminance ? 4 : 0;
    default:
      return 0;
  }
}

// What the colour map's unit is worth: CoC in pixels per 1 / max radius, the difference per largest.
float shader_scale(const AppState& s, View v) {
  if (v == View::Coc) return s.params.max_radius > 0 ? 1.f / s.params.max_radius : 1.f;
  if (v == View::Diff) return 1.f / std::max(s.diff_max, 1.f);
  return 1.f;
}

}  // namespace

std::vector<Pane> panes(const AppState& s, float width) {
  switch (s.compare) {
    case Compare::Split: {
      const float d = std::min(std::max(s.split, 0.f), 1.f) * width;
      return {{s.compare_view, 0, width, 0, d}, {s.view, 0, width, d, width}};
    }
    case Compare::SideBySide: {
      const float h = 0.5f * width;
      return {{s.compare_view, 0, h, 0, h}, {s.view, h, h, h, width}};
    }
    case Compare::Off:
      break;
  }
  return {{s.view, 0, width, 0, width}};
}

const Pane* pane_at(const std::vector<Pane>& panes, float x) {
  for (auto it = panes.rbegin(); it != panes.rend(); ++it)
    if (x >= it->clip0 && x < it->clip1) return &*it;
  return nullptr;
}

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
  loc_scale_ = glGetUniformLocation(program_, "scale");
  loc_uv_rect_ = glGetUniformLocation(program_, "uv_rect");
  loc_background_ = glGetUniformLocation(program_, "background");
  loc_legend_ = glGetUniformLocation(program_, "legend");
  loc_clip_ = glGetUniformLocation(program_, "clip_x");
  render_legend(depth_legend_, 1);
  render_legend(coc_legend_, 2);
  render_legend(diff_legend_, 3);
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
  glUniform1f(loc_scale_, 1.f);
  glUniform2f(loc_clip_, -1e9f, 1e9f);
  glBindVertexArray(vao_);
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glBindVertexArray(0);
  glUniform1i(loc_legend_, 0);
  glUseProgram(0);
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, GLuint(previous));
  glDeleteFramebuffers(1, &fbo);
  check_gl("drawing the colour-map legend");
}

unsigned Viewer::legend_texture(const AppState& s) const {
  switch (s.view) {
    case View::Depth:
      return depth_legend_.texture();
    case View::Coc:
      return coc_legend_.texture();
    case View::Diff:
      return diff_legend_.texture();
    case View::Sat:
      return s.sat_luminance ? depth_legend_.texture() : 0;  // the same Turbo map
    default:
      return 0;
  }
}

Viewer::~Viewer() {
  if (vao_) glDeleteVertexArrays(1, &vao_);
  if (program_) glDeleteProgram(program_);
}

Viewer::Rect Viewer::visible_rect() const {
  // Fit the image into the pane (letterboxed), then zoom about the centre and pan.
  const float iw = float(std::max(image_w_, 1)), ih = float(std::max(image_h_, 1));
  const float fit = std::min(float(region_w_) / iw, float(region_h_) / ih) * zoom_;  // pane px per image px
  const float du = float(region_w_) / (fit * iw), dv = float(region_h_) / (fit * ih);
  const float u0 = 0.5f - 0.5f * du - pan_x_ / (fit * iw), v0 = 0.5f - 0.5f * dv - pan_y_ / (fit * ih);
  return {u0, v0, du, dv};
}

void Viewer::draw(const AppState& s, const std::vector<Pane>& panes, float height, float fb_scale,
                  int fb_height) {
  glUseProgram(program_);
  glBindVertexArray(vao_);
  glUniform4f(loc_background_, 0.09f, 0.09f, 0.1f, 1.f);
  for (const Pane& p : panes) {
    // Every pane of a layout has the same size, so zoom and pan mean the same in each.
    const int x = int(std::lround(p.x * fb_scale)), h = int(std::lround(height * fb_scale));
    region_w_ = std::max(int(std::lround(p.w * fb_scale)), 1), region_h_ = std::max(h, 1);
    ViewerTexture& t = texture(p.view);
    if (!t.texture()) continue;
    const Rect r = visible_rect();
    // Nearest sampling once an image pixel covers more than 1.5 screen pixels, so pixels stay crisp.
    t.set_magnified(float(region_w_) / (r.du * float(std::max(image_w_, 1))) > 1.5f);
    glViewport(x, fb_height - h, region_w_, region_h_);
    glBindTextureUnit(0, t.texture());
    glBindTextureUnit(1, t.texture());
    glUniform1i(loc_mode_, shader_mode(p.view, s.sat_luminance));
    glUniform1f(loc_scale_, shader_scale(s, p.view));
    glUniform4f(loc_uv_rect_, r.u0, r.v0, r.du, r.dv);
    glUniform2f(loc_clip_, std::round(p.clip0 * fb_scale), std::round(p.clip1 * fb_scale));
    glDrawArrays(GL_TRIANGLES, 0, 3);
  }
  glBindVertexArray(0);
  glUseProgram(0);
}

void Viewer::zoom_at(float factor, float mx, float my) {
  const float new_zoom = std::min(std::max(zoom_ * factor, 0.1f), 64.f);
  factor = new_zoom / zoom_;
  // Keep the point under the cursor fixed: offsets from the pane centre scale with the zoom.
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
  *px = std::min(int(u * float(image_w_)), image_w_ - 1);
  *py = std::min(int(v * float(image_h_)), image_h_ - 1);
  return true;
}

}  // namespace satlab::gui
