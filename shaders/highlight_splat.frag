#version 450 core
// Keeps a fragment of a highlight's quad when its pixel lies in one of the aperture's rectangles of the
// sprite's radius (core/dof.hpp's aperture_table: bands of rows, disjoint in y, so the first band holding
// the row decides), and adds the sprite's energy and 1 (coverage) through additive blending.
layout(location = 0) flat in ivec3 v_sprite;  // x, y, r
layout(location = 1) flat in vec3 v_energy;
layout(std430, binding = 0) readonly buffer Aperture {
  ivec4 rects[];  // (x0, x1, y0, y1) relative to the sprite, 8 slots per radius
};
layout(std430, binding = 1) readonly buffer Counts {
  int counts[];  // rectangles used per radius
};
uniform bool aperture_test = true;  // false: every pixel of the bounding square (the bench's raster-only row)
layout(location = 0) out vec4 color;
void main() {
  ivec2 d = ivec2(gl_FragCoord.xy) - v_sprite.xy;
  int base = v_sprite.z * 8, n = counts[v_sprite.z];
  bool inside = false;
  for (int q = 0; q < n; ++q) {
    ivec4 rc = rects[base + q];
    if (d.y >= rc.z && d.y <= rc.w) {
      inside = d.x >= rc.x && d.x <= rc.y;
      break;
    }
  }
  if (!inside && aperture_test) discard;
  color = vec4(v_energy, 1.0);
}
