#version 330 core
// elements.frag — round points through the element colour map (render/colour.c: dark violet ->
// magenta -> orange -> pale yellow), the same table the panel's colour bar is drawn with.
in float v_s;
uniform vec3 u_stops[8];
uniform int u_nstops;
out vec4 o_color;
vec3 colour_map(float s) {
  float x = clamp(s, 0.0, 1.0) * float(u_nstops - 1);
  int i = min(int(x), u_nstops - 2);
  return mix(u_stops[i], u_stops[i + 1], x - float(i));
}
void main() {
  vec2 d = gl_PointCoord * 2.0 - 1.0;
  if (dot(d, d) > 1.0) discard;
  o_color = vec4(colour_map(v_s), 0.9);
}
