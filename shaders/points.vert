#version 330 core
// points.vert — tracers as point sprites (pass 1 of render.c, additive into a float target).
// Sprite size shrinks with depth so that near and far particles keep their proportions.
layout(location = 0) in vec4 a_point;   // xyz position; w unused for tracers
uniform mat4 u_view;
uniform mat4 u_proj;
uniform float u_size;                   // diameter in pixels at the orbit distance
uniform float u_ref_depth;              // the orbit distance
void main() {
  vec4 v = u_view * vec4(a_point.xyz, 1.0);
  gl_Position = u_proj * v;
  gl_PointSize = clamp(u_size * u_ref_depth / max(-v.z, 1e-6), 1.0, 64.0);
}
