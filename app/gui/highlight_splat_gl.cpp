#include "app/gui/highlight_splat_gl.hpp"

#include <glad/gl.h>

#include <cstdint>
#include <string>

#include "app/gui/surface.hpp"
#include "core/error.hpp"
#include "core/highlight_sprite.hpp"
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

double query_ms(GLuint q) {
  GLuint64 ns = 0;
  glGetQueryObjectui64v(q, GL_QUERY_RESULT, &ns);
  return double(ns) * 1e-6;
}

}  // namespace

GlHighlightSplat::GlHighlightSplat() {
  const GLuint vs = compile(GL_VERTEX_SHADER, shaders::highlight_splat_vert, "highlight_splat.vert");
  const GLuint fs = compile(GL_FRAGMENT_SHADER, shaders::highlight_splat_frag, "highlight_splat.frag");
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
    glDeleteProgram(program_);
    throw Error(std::string("the highlight splat's shaders do not link: ") + log);
  }
  size_loc_ = glGetUniformLocation(program_, "size");
  test_loc_ = glGetUniformLocation(program_, "aperture_test");
  // Records: attribute 0 = ivec4 (x, y, r, slice) at 0, attribute 1 = vec4 energy at 16; one per instance.
  glCreateVertexArrays(1, &vao_);
  glEnableVertexArrayAttrib(vao_, 0);
  glEnableVertexArrayAttrib(vao_, 1);
  glVertexArrayAttribIFormat(vao_, 0, 4, GL_INT, 0);
  glVertexArrayAttribFormat(vao_, 1, 4, GL_FLOAT, GL_FALSE, 16);
  glVertexArrayAttribBinding(vao_, 0, 0);
  glVertexArrayAttribBinding(vao_, 1, 0);
  glVertexArrayBindingDivisor(vao_, 0, 1);
  glCreateQueries(GL_TIME_ELAPSED, 2, queries_);
  check_gl("the highlight splat's program");
}

GlHighlightSplat::~GlHighlightSplat() {
  glDeleteFramebuffers(2, fbo_);
  glDeleteTextures(2, tex_);
  glDeleteQueries(2, queries_);
  glDeleteBuffers(1, &rects_);
  glDeleteBuffers(1, &counts_);
  glDeleteVertexArrays(1, &vao_);
  glDeleteProgram(program_);
}

void GlHighlightSplat::set_aperture(const ApertureTable& t) {
  std::vector<int32_t> rects(t.rects.size() * 4), counts(t.counts.begin(), t.counts.end());
  for (size_t i = 0; i < t.rects.size(); ++i) {
    const dof::Rect r = t.rects[i];
    rects[i * 4 + 0] = r.x0, rects[i * 4 + 1] = r.x1, rects[i * 4 + 2] = r.y0, rects[i * 4 + 3] = r.y1;
  }
  glDeleteBuffers(1, &rects_);
  glDeleteBuffers(1, &counts_);
  glCreateBuffers(1, &rects_);
  glCreateBuffers(1, &counts_);
  glNamedBufferStorage(rects_, GLsizeiptr(rects.size() * 4), rects.data(), 0);
  glNamedBufferStorage(counts_, GLsizeiptr(counts.size() * 4), counts.data(), 0);
  check_gl("the highlight splat's aperture table (" + std::to_string(t.max_r + 1) + " radii)");
}

void GlHighlightSplat::set_target(int width, int height, bool half) {
  if (width == width_ && height == height_ && half == half_ && tex_[0]) return;
  glDeleteFramebuffers(2, fbo_);
  glDeleteTextures(2, tex_);
  glCreateTextures(GL_TEXTURE_2D, 2, tex_);
  glCreateFramebuffers(2, fbo_);
  for (int s = 0; s < 2; ++s) {
    glTextureStorage2D(tex_[s], 1, half ? GL_RGBA16F : GL_RGBA32F, width, height);
    glNamedFramebufferTexture(fbo_[s], GL_COLOR_ATTACHMENT0, tex_[s], 0);
    if (glCheckNamedFramebufferStatus(fbo_[s], GL_DRAW_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
      throw Error("the highlight splat's " + std::string(half ? "RGBA16F" : "RGBA32F") + " target " +
                  std::to_string(width) + "x" + std::to_string(height) + " is not complete");
  }
  width_ = width, height_ = height, half_ = half;
  check_gl("the highlight splat's targets " + std::to_string(width) + "x" + std::to_string(height));
}

void GlHighlightSplat::clear() {
  const float zero[4] = {0.f, 0.f, 0.f, 0.f};
  glBeginQuery(GL_TIME_ELAPSED, queries_[0]);
  for (int s = 0; s < 2; ++s) glClearNamedFramebufferfv(fbo_[s], GL_COLOR, 0, zero);
  glEndQuery(GL_TIME_ELAPSED);
}

void GlHighlightSplat::draw(unsigned buffer) {
  if (!tex_[0] || !rects_) throw Error("the highlight splat has no target or aperture yet");
  glBeginQuery(GL_TIME_ELAPSED, queries_[1]);
  glUseProgram(program_);
  glUniform2f(size_loc_, float(width_), float(height_));
  glUniform1i(test_loc_, aperture_test_ ? 1 : 0);
  glBindVertexArray(vao_);
  glVertexArrayVertexBuffer(vao_, 0, buffer, sizeof(hl::SpriteRecord), sizeof(hl::SpriteRecord));
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, rects_);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, counts_);
  glBindBuffer(GL_DRAW_INDIRECT_BUFFER, buffer);
  glViewport(0, 0, width_, height_);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_SCISSOR_TEST);
  glEnable(GL_BLEND);
  glBlendEquation(GL_FUNC_ADD);
  glBlendFunc(GL_ONE, GL_ONE);
  for (int s = 0; s < 2; ++s) {  // far, then near: the header's two commands
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, fbo_[s]);
    glDrawArraysIndirect(GL_TRIANGLE_STRIP,
                         reinterpret_cast<const void*>(uintptr_t(s) * sizeof(hl::DrawCommand)));
  }
  glDisable(GL_BLEND);
  glBindBuffer(GL_DRAW_INDIRECT_BUFFER, 0);
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
  glBindVertexArray(0);
  glUseProgram(0);
  glEndQuery(GL_TIME_ELAPSED);
  check_gl("the highlight splat's draw " + std::to_string(width_) + "x" + std::to_string(height_));
}

std::vector<float> GlHighlightSplat::read(int slice) const {
  std::vector<float> out(size_t(width_) * size_t(height_) * 4);
  glGetTextureImage(tex_[slice], 0, GL_RGBA, GL_FLOAT, GLsizei(out.size() * sizeof(float)), out.data());
  check_gl("the highlight splat's read-back");
  return out;
}

double GlHighlightSplat::clear_ms() const {
  return query_ms(queries_[0]);
}
double GlHighlightSplat::draw_ms() const {
  return query_ms(queries_[1]);
}

}  // namespace satlab::gui
