#version 330 core
// iso_blend.frag — the isosurface's target over the picture (render_iso.c): where the surface is
// (alpha 1) it covers u_opacity of what lies behind it, so the dye still shows through.
in vec2 v_uv;
uniform sampler2D u_image;
uniform float u_opacity;
out vec4 o_color;
void main() {
  vec4 c = texture(u_image, v_uv);
  o_color = vec4(c.rgb, c.a * u_opacity);
}
