#version 330 core
// points.vert — tracers as point sprites (pass 1 of render.c, additive into a float target).
// Sprite size shrinks with depth so that near and far particles keep their proportions. The
// tracer's colour is chosen here, once per point (render.h: rd_tint; the tables come from
// render/colour.c, the one home of the palette and the map).
layout(location = 0) in vec4 a_point;   // xyz position; w = the tracer's value (rd_particles.value)
uniform mat4 u_view;
uniform mat4 u_proj;
uniform float u_size;                   // diameter in pixels at the orbit distance
uniform float u_ref_depth;              // the orbit distance
uniform float u_depth_cue;              // per unit of depth: nearer than the orbit target brighter (render.h)
uniform int u_tint;                     // 0 plain (u_color), 1 category (u_palette[w]), 2 map (u_stops)
uniform vec3 u_color;
uniform vec3 u_palette[8];
uniform vec3 u_stops[8];
uniform int u_nstops;
uniform vec2 u_range;                   // values at the ends of the map
out vec3 v_color;

// Rec. 709 luminance: tinted tracers are scaled to the plain colour's, so that colour says what
// it encodes and brightness stays the density's alone (a dark-blue end of the map is not fainter)
float luminance(vec3 c) { return dot(c, vec3(0.2126, 0.7152, 0.0722)); }

// piecewise-linear through u_nstops evenly spaced stops (colour.c's map_rgb)
vec3 rd_map(float s) {
  float x = clamp(s, 0.0, 1.0) * float(u_nstops - 1);
  int i = min(int(x), u_nstops - 2);
  return mix(u_stops[i], u_stops[i + 1], x - float(i));
}

void main() {
  vec4 v = u_view * vec4(a_point.xyz, 1.0);
  gl_Position = u_proj * v;
  gl_PointSize = clamp(u_size * u_ref_depth / max(-v.z, 1e-6), 1.0, 64.0);
  if (u_tint == 1) {
    int c = int(floor(a_point.w + 0.5));
    v_color = u_palette[((c % 8) + 8) % 8];
  } else if (u_tint == 2) {
    float span = u_range.y - u_range.x;
    v_color = rd_map(span > 0.0 ? (a_point.w - u_range.x) / span : 0.5);
  } else {
    v_color = u_color;
  }
  if (u_tint != 0) v_color *= luminance(u_color) / max(luminance(v_color), 0.05);
  v_color *= exp(clamp(u_depth_cue * (u_ref_depth + v.z), -4.0, 4.0));
}
