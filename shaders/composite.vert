#version 330 core
// composite.vert — one triangle covering the screen (no vertex buffer: gl_VertexID 0, 1, 2).
out vec2 v_uv;
void main() {
  vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
  v_uv = p;
  gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
