#version 330 core
// boxes.vert — wireframe boxes: the 24 edge vertices of the unit cube, one instance per box
// (the histogram's non-empty cells = the octree's leaves; or one instance for the whole cube).
layout(location = 0) in vec3 a_corner;  // in [0, 1]^3
layout(location = 1) in vec4 a_box;     // per instance: lower corner xyz, side
uniform mat4 u_view_proj;
void main() {
  gl_Position = u_view_proj * vec4(a_box.xyz + a_corner * a_box.w, 1.0);
}
