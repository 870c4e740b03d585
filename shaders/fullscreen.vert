#version 450 core
// One triangle that covers the viewport; uv runs 0..1 over the visible part of it, top row first.
layout(location = 0) out vec2 uv;
void main() {
  vec2 p = vec2((gl_VertexID << 1) & 2, gl_VertexID & 2);
  uv = vec2(p.x, 1.0 - p.y);
  gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
