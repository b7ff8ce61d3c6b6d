#version 330 core
// points.frag — a soft round sprite whose colour adds up where tracers overlap (blending ONE, ONE):
// the sum keeps each colour's hue and grows with the number of tracers, so the opacity pass
// (composite.frag) can scale brightness by density without changing what the colour says.
in vec3 v_color;
uniform float u_intensity;
out vec4 o_color;
void main() {
  vec2 d = gl_PointCoord * 2.0 - 1.0;
  float r2 = dot(d, d);
  if (r2 > 1.0) discard;
  o_color = vec4(v_color * (u_intensity * exp(-3.0 * r2)), 1.0);
}
