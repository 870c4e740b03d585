#version 450 core
// Bokeh highlights as GL instanced quads (app/gui/highlight_splat_gl.hpp): one instance per sprite record
// (core/highlight_sprite.hpp), a triangle strip over its aperture's bounding square [x - r, x + r] x
// [y - r, y + r] in pixels (window y = image row, top row first). The fragment shader keeps the pixels of
// the aperture's rectangles.
layout(location = 0) in ivec4 sprite;  // x, y, r, slice
layout(location = 1) in vec4 energy;   // linear r, g, b per covered pixel
uniform vec2 size;                     // target width, height
layout(location = 0) flat out ivec3 v_sprite;
layout(location = 1) flat out vec3 v_energy;
void main() {
  vec2 corner = vec2(gl_VertexID & 1, gl_VertexID >> 1);
  vec2 p = vec2(sprite.xy - sprite.z) + corner * float(2 * sprite.z + 1);  // pixel edges: exact in float
  gl_Position = vec4(p / size * 2.0 - 1.0, 0.0, 1.0);
  v_sprite = sprite.xyz;
  v_energy = energy.rgb;
}
