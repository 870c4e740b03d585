#include <glad/gl.h>

#include <cstdio>

#include "app/gui/surface.hpp"
#include "core/error.hpp"

namespace satlab::gui {

void load_gl(void* (*get_proc)(const char*)) {
  const int version = gladLoadGL(reinterpret_cast<GLADloadfunc>(get_proc));
  if (version == 0) throw Error("cannot load OpenGL functions");
  if (GLAD_VERSION_MAJOR(version) * 10 + GLAD_VERSION_MINOR(version) < 45)
    throw Error("OpenGL 4.5 core is required, the driver offers " + std::to_string(GLAD_VERSION_MAJOR(version)) +
                "." + std::to_string(GLAD_VERSION_MINOR(version)));
}

void check_gl(const std::string& what) {
  const GLenum e = glGetError();
  if (e == GL_NO_ERROR) return;
  while (glGetError() != GL_NO_ERROR) {
  }
  char code[16];
  std::snprintf(code, sizeof(code), "0x%04x", unsigned(e));
  throw Error("OpenGL: " + what + " failed (GL error " + code + ")");
}

std::string gl_renderer() {
  const char* r = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  const char* v = reinterpret_cast<const char*>(glGetString(GL_VERSION));
  return std::string(r ? r : "?") + ", OpenGL " + (v ? v : "?");
}

}  // namespace satlab::gui
