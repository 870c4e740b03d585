#include "app/gui/viewer.hpp"

#include <glad/gl.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#include "app/gui/surface.hpp"
#include "core/error.hpp"
#include "satlab_shaders.hpp"

namespace satlab::gui {
namespace {

// `define` goes right after the source's #version line (e.g. "#define VIEW_COMPUTE 1").
GLuint compile(GLenum type, const char* src, const char* name, const char* define = "") {
  const char* body = std::strchr(src, '\n');
  body = body ? body + 1 : src;
  const std::string head = std::string(src, body) + define + "\n";
  const char* parts[] = {head.c_str(), body};
  GLuint s = glCreateShader(type);
  glShaderSource(s, 2, parts, nullptr);
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

GLuint link(std::initializer_list<GLuint> shaders, const char* name) {
  GLuint p = glCreateProgram();
  for (GLuint s : shaders) glAttachShader(p, s);
  glLinkProgram(p);
  for (GLuint s : shaders) glDeleteShader(s);
  GLint ok = 0;
  glGetProgramiv(p, GL_LINK_STATUS, &ok);
  if (!ok) {
    char log[2048] = {};
    glGetProgramInfoLog(p, sizeof(log), nullptr, log);
    glDeleteProgram(p);
    throw Error(std::string(name) + " does not link: " + log);
  }
  return p;
}

// The shader's mode for a view (see shaders/view.frag).
int shader_mode(View v, bool sat_luminance) {
  switch (v) {
    case View::Depth:
    case View::RawDepth:
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

void Viewer::Program::locate() {
  mode = glGetUniformLocation(id, "mode");
  scale = glGetUniformLocation(id, "scale");
  uv_rect = glGetUniformLocation(id, "uv_rect");
  background = glGetUniformLocation(id, "background");
  legend = glGetUniformLocation(id, "legend");
  clip = glGetUniformLocation(id, "clip_x");
  from_buffer = glGetUniformLocation(id, "from_buffer");
  buffer_size = glGetUniformLocation(id, "buffer_size");
  nearest = glGetUniformLocation(id, "nearest");
  region = glGetUniformLocation(id, "region");
}

Viewer::Viewer() {
  fragment_.id = link({compile(GL_VERTEX_SHADER, shaders::fullscreen_vert, "fullscreen.vert"),
                       compile(GL_FRAGMENT_SHADER, shaders::view_frag, "view.frag")},
                      "the viewer's shaders");
  fragment_.locate();
  compute_.id =
      link({compile(GL_COMPUTE_SHADER, shaders::view_frag, "view.frag (compute)", "#define VIEW_COMPUTE 1")},
           "the viewer's compute shader");
  compute_.locate();
  glCreateVertexArrays(1, &vao_);
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
  glUseProgram(fragment_.id);
  glUniform1i(fragment_.mode, mode);
  glUniform1i(fragment_.legend, 1);
  glUniform1i(fragment_.from_buffer, 0);
  glUniform1f(fragment_.scale, 1.f);
  glUniform2f(fragment_.clip, -1e9f, 1e9f);
  glBindVertexArray(vao_);
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glBindVertexArray(0);
  glUniform1i(fragment_.legend, 0);
  glUseProgram(0);
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, GLuint(previous));
  glDeleteFramebuffers(1, &fbo);
  check_gl("drawing the colour-map legend");
}

unsigned Viewer::legend_texture(const AppState& s) const {
  switch (s.view) {
    case View::Depth:
    case View::RawDepth:
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
  if (fragment_.id) glDeleteProgram(fragment_.id);
  if (compute_.id) glDeleteProgram(compute_.id);
}

Viewer::Rect Viewer::visible_rect() const {
  // Fit the image into the pane (letterboxed), then zoom about the centre and pan.
  const float iw = float(std::max(image_w_, 1)), ih = float(std::max(image_h_, 1));
  const float fit = std::min(float(region_w_) / iw, float(region_h_) / ih) * zoom_;  // pane px per image px
  const float du = float(region_w_) / (fit * iw), dv = float(region_h_) / (fit * ih);
  const float u0 = 0.5f - 0.5f * du - pan_x_ / (fit * iw), v0 = 0.5f - 0.5f * dv - pan_y_ / (fit * ih);
  return {u0, v0, du, dv};
}

unsigned Viewer::target_texture() const {
  GLint fbo = 0;
  glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &fbo);
  if (!allow_compute_ || fbo == 0) return 0;
  GLint type = 0, name = 0, format = 0;
  glGetNamedFramebufferAttachmentParameteriv(GLuint(fbo), GL_COLOR_ATTACHMENT0,
                                             GL_FRAMEBUFFER_ATTACHMENT_OBJECT_TYPE, &type);
  if (type != GL_TEXTURE) return 0;
  glGetNamedFramebufferAttachmentParameteriv(GLuint(fbo), GL_COLOR_ATTACHMENT0,
                                             GL_FRAMEBUFFER_ATTACHMENT_OBJECT_NAME, &name);
  glGetTextureLevelParameteriv(GLuint(name), 0, GL_TEXTURE_INTERNAL_FORMAT, &format);
  return format == GL_RGBA8 ? unsigned(name) : 0;
}

void Viewer::paint(int x, int y, int w, int h, ViewerTexture* t, const Rect& r, int mode, float scale,
                   float clip0, float clip1) {
  if (w <= 0 || h <= 0) return;
  const Program& p = compute_target_ ? compute_ : fragment_;
  const bool from_buffer = t && t->pixel_buffer();
  if (t) {
    glBindTextureUnit(0, t->texture());
    glBindTextureUnit(1, t->texture());
    if (from_buffer) glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, t->pixel_buffer());
  }
  glUniform1i(p.mode, mode);
  glUniform1f(p.scale, scale);
  glUniform1i(p.from_buffer, from_buffer);
  if (from_buffer) glUniform2i(p.buffer_size, t->width(), t->height()), glUniform1i(p.nearest, t->nearest());
  // No texture yet: a rectangle outside the image, which the shader paints in the background colour.
  if (t)
    glUniform4f(p.uv_rect, r.u0, r.v0, r.du, r.dv);
  else
    glUniform4f(p.uv_rect, 2.f, 2.f, 0.f, 0.f);
  glUniform2f(p.clip, clip0, clip1);
  if (compute_target_) {
    glUniform4i(p.region, x, y, w, h);
    glDispatchCompute(GLuint(w + 15) / 16, GLuint(h + 15) / 16, 1);
  } else {
    glViewport(x, y, w, h);
    glDrawArrays(GL_TRIANGLES, 0, 3);
  }
  if (from_buffer) t->mark_read();
}

void Viewer::draw(const AppState& s, const std::vector<Pane>& panes, float height, float fb_scale,
                  int fb_width, int fb_height) {
  compute_target_ = target_texture();
  const Program& p = compute_target_ ? compute_ : fragment_;
  glUseProgram(p.id);
  if (compute_target_)
    glBindImageTexture(0, compute_target_, 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RGBA8);
  else
    glBindVertexArray(vao_);
  const float bg[4] = {0.09f, 0.09f, 0.1f, 1.f};
  glUniform4fv(p.background, 1, bg);
  glUniform1i(p.legend, 0);
  const int h = std::min(int(std::lround(height * fb_scale)), fb_height);
  int area_w = 0;  // the image area's width in framebuffer pixels
  for (const Pane& pane : panes) {
    // Every pane of a layout has the same size, so zoom and pan mean the same in each.
    const int x = int(std::lround(pane.x * fb_scale));
    region_w_ = std::max(int(std::lround(pane.w * fb_scale)), 1), region_h_ = std::max(h, 1);
    area_w = std::min(std::max(area_w, x + region_w_), fb_width);
    ViewerTexture& t = texture(pane.view);
    drawn_ = true;
    // The image's uv in the texture's (a preview may hold a region of the image only).
    const float* c = t.coverage();
    const Rect v = visible_rect();
    const Rect r{(v.u0 - c[0]) / (c[2] - c[0]), (v.v0 - c[1]) / (c[3] - c[1]), v.du / (c[2] - c[0]),
                 v.dv / (c[3] - c[1])};
    // Nearest sampling once an image pixel covers more than 1.5 screen pixels, so pixels stay crisp (a
    // preview's texels, larger than the image's pixels, are smoothed while those are smaller than that).
    t.set_magnified(float(region_w_) / (v.du * float(std::max(image_w_, 1))) > 1.5f);
    paint(x, fb_height - h, region_w_, region_h_, t.texture() ? &t : nullptr, r,
          shader_mode(pane.view, s.sat_luminance), shader_scale(s, pane.view),
          std::round(pane.clip0 * fb_scale), std::round(pane.clip1 * fb_scale));
  }
  // The rest of the framebuffer (right of and below the image area) in the background colour.
  if (compute_target_) {
    paint(area_w, 0, fb_width - area_w, fb_height, nullptr, {}, 0, 1.f, -1e9f, 1e9f);
    paint(0, 0, area_w, fb_height - h, nullptr, {}, 0, 1.f, -1e9f, 1e9f);
    // ImGui draws over the result next; a screenshot reads it.
    glMemoryBarrier(GL_FRAMEBUFFER_BARRIER_BIT | GL_TEXTURE_FETCH_BARRIER_BIT |
                    GL_TEXTURE_UPDATE_BARRIER_BIT);
  } else {
    glClearColor(bg[0], bg[1], bg[2], bg[3]);
    glEnable(GL_SCISSOR_TEST);
    glScissor(area_w, 0, fb_width - area_w, fb_height);
    glClear(GL_COLOR_BUFFER_BIT);
    glScissor(0, 0, area_w, fb_height - h);
    glClear(GL_COLOR_BUFFER_BIT);
    glDisable(GL_SCISSOR_TEST);
    glBindVertexArray(0);
  }
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

bool Viewer::visible_pixels(PixelRect* visible, double* display_scale) const {
  if (!drawn_) return false;
  const Rect r = visible_rect();
  const double iw = std::max(image_w_, 1), ih = std::max(image_h_, 1);
  *visible = {std::max(int(std::floor(r.u0 * iw)), 0), std::max(int(std::floor(r.v0 * ih)), 0),
              std::min(int(std::ceil((r.u0 + r.du) * iw)), image_w_),
              std::min(int(std::ceil((r.v0 + r.dv) * ih)), image_h_)};
  *display_scale = double(region_w_) / (double(r.du) * iw);
  return !visible->empty();
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
