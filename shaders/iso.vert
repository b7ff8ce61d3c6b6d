#version 330 core
// iso.vert — the isosurface's triangles (render_iso.c): world position and the unit normal that
// points to lower values of the field (iso.h), passed on for the lighting.
layout(location = 0) in vec3 a_pos;
layout(location = 1) in vec3 a_normal;
uniform mat4 u_view_proj;
out vec3 v_pos;
out vec3 v_normal;
void main() {
  v_pos = a_pos;
  v_normal = a_normal;
  gl_Position = u_view_proj * vec4(a_pos, 1.0);
}
