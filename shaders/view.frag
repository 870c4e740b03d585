#version 450 core
// Draws one view of the pipeline: colour images as they are, depth through a perceptual colour map,
// the signed circle of confusion with near (warm) and far (cool) colours, the difference against the
// CPU reference as a heat map (exact zero is black), the log-scaled luminance SAT through the depth map's
// colour map with contour lines. The fragment's x in the framebuffer is clipped to [clip_x.x, clip_x.y) for split views.
// Compiled a second time with VIEW_COMPUTE defined (after the #version line): a compute shader that
// writes the pane straight into a framebuffer texture, pixel for pixel the same colours. Where fragment
// shading runs on a few SMs only (H100: 0.59 ms for one 4K pass) it does the same in 0.03-0.04 ms.
layout(binding = 0) uniform sampler2D rgba_tex;    // result / input / SAT (RGBA8; luminance SAT: 16 bits in RG)
layout(binding = 1) uniform sampler2D scalar_tex;  // depth in [0,1], signed CoC in pixels, difference in levels (R32F)
// Colour views may come from a buffer instead (CUDA memory shared with GL): RGBA8 packed, top row first.
layout(std430, binding = 0) readonly buffer Pixels { uint pixels[]; };
uniform bool from_buffer;  // mode 0 reads `pixels` (size buffer_size) instead of rgba_tex
uniform ivec2 buffer_size;
uniform bool nearest;      // the buffer's sampling: nearest (magnified) or bilinear, as the texture's filter
uniform int mode;          // 0 colour, 1 depth, 2 signed CoC, 3 difference, 4 luminance SAT (rgba_tex.r)
uniform float scale;       // CoC: 1 / max radius; difference: 1 / largest difference
uniform vec4 uv_rect;      // visible part of the image: xy = origin, zw = size, in image uv
uniform vec4 background;
uniform vec2 clip_x;       // framebuffer x range this view may draw
uniform bool legend;       // draw the colour map itself: the scalar runs along x (0..1, or -1..1 for CoC)
#ifdef VIEW_COMPUTE
layout(local_size_x = 16, local_size_y = 16) in;
layout(rgba8, binding = 0) writeonly uniform image2D target;
uniform ivec4 region;      // the pane in the framebuffer: xy = lower left corner, zw = size in pixels
vec2 uv;                   // as the fragment stage's: 0..1 across the pane, top row first
#else
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 colour;
#endif

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

vec4 buffer_texel(ivec2 p) {
  p = clamp(p, ivec2(0), buffer_size - 1);  // clamp to edge, as the textures
  return unpackUnorm4x8(pixels[p.y * buffer_size.x + p.x]);
}

// The colour image at t, from the texture or the buffer (sampled like the texture's filter would).
vec4 colour_at(vec2 t) {
  if (!from_buffer) return textureLod(rgba_tex, t, 0.0);
  vec2 f = t * vec2(buffer_size);
  if (nearest) return buffer_texel(ivec2(floor(f)));
  f -= 0.5;
  ivec2 p = ivec2(floor(f));
  vec2 w = f - vec2(p);
  return mix(mix(buffer_texel(p), buffer_texel(p + ivec2(1, 0)), w.x),
             mix(buffer_texel(p + ivec2(0, 1)), buffer_texel(p + ivec2(1, 1)), w.x), w.y);
}

float scalar_at(vec2 t) {
  if (!legend && mode == 4) {  // 16 bits in R (high) and G (low): fetched, as filtering would mix the bytes
    vec2 hl = texelFetch(rgba_tex, ivec2(t * vec2(textureSize(rgba_tex, 0) - 1) + 0.5), 0).rg;
    return (hl.x * 65280.0 + hl.y * 255.0) / 65535.0;
  }
  if (!legend) return textureLod(scalar_tex, t, 0.0).r;
  return mode == 2 ? (2.0 * uv.x - 1.0) / scale : mode == 3 ? uv.x / scale : uv.x;
}

// How much c = scalar * 16 changes to the next pixel (fwidth; the compute stage has no derivatives).
float contour_width(vec2 t, float c) {
#ifdef VIEW_COMPUTE
  vec2 step = uv_rect.zw / vec2(region.zw);
  return abs(scalar_at(t + vec2(step.x, 0.0)) * 16.0 - c) + abs(scalar_at(t + vec2(0.0, step.y)) * 16.0 - c);
#else
  return fwidth(c);
#endif
}

vec4 view_colour() {
  vec2 t = legend ? uv : uv_rect.xy + uv * uv_rect.zw;
  if (any(lessThan(t, vec2(0.0))) || any(greaterThan(t, vec2(1.0)))) return background;
  vec4 colour;
  if (mode == 0) {
    colour = vec4(colour_at(t).rgb, 1.0);
  } else if (mode == 1) {
    colour = vec4(turbo(scalar_at(t)), 1.0);
  } else if (mode == 4) {
    // Contour lines every 1/16 of the log range show the table's shape: they bend where the image is bright.
    float v = scalar_at(t), c = v * 16.0;
    float line = legend ? 0.0 : 1.0 - smoothstep(0.0, 1.5 * contour_width(t, c) + 1e-4, min(fract(c), 1.0 - fract(c)));
    colour = vec4(turbo(v) * (1.0 - 0.45 * line), 1.0);
  } else if (mode == 2) {
    float c = clamp(scalar_at(t) * scale, -1.0, 1.0);
    vec3 near_col = vec3(1.0, 0.45, 0.1), far_col = vec3(0.15, 0.45, 1.0), focus_col = vec3(0.08);
    colour = vec4(mix(focus_col, c > 0.0 ? near_col : far_col, sqrt(abs(c))), 1.0);
  } else {
    colour = vec4(heat(scalar_at(t) * scale), 1.0);
  }
  return colour;
}

#ifdef VIEW_COMPUTE
void main() {
  ivec2 i = ivec2(gl_GlobalInvocationID.xy);
  if (any(greaterThanEqual(i, region.zw))) return;
  ivec2 p = region.xy + i;  // framebuffer pixel, as gl_FragCoord - 0.5
  if (float(p.x) + 0.5 < clip_x.x || float(p.x) + 0.5 >= clip_x.y) return;
  uv = vec2((float(i.x) + 0.5) / float(region.z), 1.0 - (float(i.y) + 0.5) / float(region.w));
  imageStore(target, p, view_colour());
}
#else
void main() {
  if (gl_FragCoord.x < clip_x.x || gl_FragCoord.x >= clip_x.y) discard;
  colour = view_colour();
}
#endif
