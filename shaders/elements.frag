#version 330 core
// elements.frag — round points through a dark-violet -> magenta -> orange -> pale-yellow colour map.
in float v_s;
out vec4 o_color;
vec3 colour_map(float s) {
  vec3 c0 = vec3(0.20, 0.08, 0.55), c1 = vec3(0.85, 0.20, 0.55), c2 = vec3(1.00, 0.60, 0.10), c3 = vec3(1.00, 1.00, 0.65);
  if (s < 1.0 / 3.0) return mix(c0, c1, 3.0 * s);
  if (s < 2.0 / 3.0) return mix(c1, c2, 3.0 * s - 1.0);
  return mix(c2, c3, 3.0 * s - 2.0);
}
void main() {
  vec2 d = gl_PointCoord * 2.0 - 1.0;
  if (dot(d, d) > 1.0) discard;
  o_color = vec4(colour_map(v_s), 0.9);
}
