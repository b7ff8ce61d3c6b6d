#version 330 core
// points.frag — a soft round sprite whose colour adds up where tracers overlap (blending ONE, ONE).
uniform vec3 u_color;
uniform float u_intensity;
out vec4 o_color;
void main() {
  vec2 d = gl_PointCoord * 2.0 - 1.0;
  float r2 = dot(d, d);
  if (r2 > 1.0) discard;
  o_color = vec4(u_color * (u_intensity * exp(-3.0 * r2)), 1.0);
}
