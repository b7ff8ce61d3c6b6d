#version 330 core
// lines.frag — one colour with alpha for the wireframes.
uniform vec4 u_color;
out vec4 o_color;
void main() {
  o_color = u_color;
}
