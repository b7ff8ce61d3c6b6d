#version 330 core
// elements.vert — vortex elements as points coloured by their strength |alpha| (w of the point).
layout(location = 0) in vec4 a_point;   // xyz position, w = |alpha|
uniform mat4 u_view;
uniform mat4 u_proj;
uniform float u_size;
uniform float u_ref_depth;
uniform float u_alpha_ref;              // |alpha| at the middle of the colour map (<= 0: one colour)
out float v_s;
void main() {
  vec4 v = u_view * vec4(a_point.xyz, 1.0);
  gl_Position = u_proj * v;
  gl_PointSize = clamp(u_size * u_ref_depth / max(-v.z, 1e-6), 1.0, 64.0);
  v_s = u_alpha_ref > 0.0 ? clamp(0.5 * a_point.w / u_alpha_ref, 0.0, 1.0) : 0.5;
}
