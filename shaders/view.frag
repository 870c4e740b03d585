#version 450 core
// Draws one view of the pipeline: colour images as they are, depth through a perceptual colour map,
// the signed circle of confusion with near (warm) and far (cool) colours, the difference against the
// CPU reference as a heat map (exact zero is black), the log-scaled luminance SAT through the depth map's
// colour map with contour lines. The fragment's x in the framebuffer is clipped to [clip_x.x, clip_x.y) for split views.
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 colour;
layout(binding = 0) uniform sampler2D rgba_tex;    // result / input / SAT (RGBA8; luminance SAT: 16 bits in RG)
layout(binding = 1) uniform sampler2D scalar_tex;  // depth in [0,1], signed CoC in pixels, difference in levels (R32F)
uniform int mode;          // 0 colour, 1 depth, 2 signed CoC, 3 difference, 4 luminance SAT (rgba_tex.r)
uniform float scale;       // CoC: 1 / max radius; difference: 1 / largest difference
uniform vec4 uv_rect;      // visible part of the image: xy = origin, zw = size, in image uv
uniform vec4 background;
uniform vec2 clip_x;       // framebuffer x range this view may draw
uniform bool legend;       // draw the colour map itself: the scalar runs along x (0..1, or -1..1 for CoC)

// Polynomial fit of the Turbo colour map (Google, 2019: public domain coefficients).
vec3 turbo(float x) {
  const vec4 kR = vec4(0.13572138, 4.61539260, -42.66032258, 132.13108234);
  const vec4 kG = vec4(0.09140261, 2.19418839, 4.84296658, -14.18503333);
  const vec4 kB = vec4(0.10667330, 12.64194608, -60.58204836, 110.36276771);
  const vec2 kR2 = vec2(-152.94239396, 59.28637943);
  const vec2 kG2 = vec2(4.27729857, 2.82956604);
  const vec2 kB2 = vec2(-89.90310912, 27.34824973);
  x = clamp(x, 0.0, 1.0);
  vec4 v4 = vec4(1.0, x, x * x, x * x * x);
  vec2 v2 = v4.zw * v4.z;
  return vec3(dot(v4, kR) + dot(v2, kR2), dot(v4, kG) + dot(v2, kG2), dot(v4, kB) + dot(v2, kB2));
}

// Black -> red -> yellow -> white: no difference stays black, the largest one is white.
vec3 heat(float x) {
  x = clamp(x, 0.0, 1.0);
  return clamp(vec3(3.0 * x, 3.0 * x - 1.0, 3.0 * x - 2.0), 0.0, 1.0);
}

float scalar_at(vec2 t) {
  if (!legend && mode == 4) {  // 16 bits in R (high) and G (low): fetched, as filtering would mix the bytes
    vec2 hl = texelFetch(rgba_tex, ivec2(t * vec2(textureSize(rgba_tex, 0) - 1) + 0.5), 0).rg;
    return (hl.x * 65280.0 + hl.y * 255.0) / 65535.0;
  }
  if (!legend) return texture(scalar_tex, t).r;
  return mode == 2 ? (2.0 * uv.x - 1.0) / scale : mode == 3 ? uv.x / scale : uv.x;
}

void main() {
  if (gl_FragCoord.x < clip_x.x || gl_FragCoord.x >= clip_x.y) discard;
  vec2 t = legend ? uv : uv_rect.xy + uv * uv_rect.zw;
  if (any(lessThan(t, vec2(0.0))) || any(greaterThan(t, vec2(1.0)))) {
    colour = background;
    return;
  }
  if (mode == 0) {
    colour = vec4(texture(rgba_tex, t).rgb, 1.0);
  } else if (mode == 1) {
    colour = vec4(turbo(scalar_at(t)), 1.0);
  } else if (mode == 4) {
    // Contour lines every 1/16 of the log range show the table's shape: they bend where the image is bright.
    float v = scalar_at(t), c = v * 16.0;
    float line = legend ? 0.0 : 1.0 - smoothstep(0.0, 1.5 * fwidth(c) + 1e-4, min(fract(c), 1.0 - fract(c)));
    colour = vec4(turbo(v) * (1.0 - 0.45 * line), 1.0);
  } else if (mode == 2) {
    float c = clamp(scalar_at(t) * scale, -1.0, 1.0);
    vec3 near_col = vec3(1.0, 0.45, 0.1), far_col = vec3(0.15, 0.45, 1.0), focus_col = vec3(0.08);
    colour = vec4(mix(focus_col, c > 0.0 ? near_col : far_col, sqrt(abs(c))), 1.0);
  } else {
    colour = vec4(heat(scalar_at(t) * scale), 1.0);
  }
}
