#version 330 core
// composite.frag — the design paper's §3.2 final pass: the additively drawn tracers (u_points) are
// reset per pixel by the opacity counted along rays through the occupancy histogram (u_opacity:
// blurred ray counts, 1 = the column density of particles spread evenly over the cube), so that
// brightness follows the density of ALL particles, not only of those drawn; a glow in proportion
// to the opacity shows dense regions that no drawn tracer covers. Both go with the square of the
// opacity, so that dense cores brighten (up to 3x) while the sparse halo dims (down to 0.2x).
// Then a soft tone map.
// Coloured tracers (u_keep_hue, render.h rd_tint): the opacity only scales the summed colour, the
// glow takes the tracers' own hue where they are drawn, and the tone map compresses the brightest
// channel and scales the others with it, so that dense regions grow brighter without washing the
// colour out to white (a per-channel tone map would): density drives brightness, colour keeps its meaning.
in vec2 v_uv;
uniform sampler2D u_points;
uniform sampler2D u_opacity;
uniform int u_use_opacity;
uniform int u_keep_hue;
uniform float u_gain;       // opacity = 1 - exp(-gain * count)
uniform float u_glow;
uniform vec3 u_glow_rgb;
uniform float u_exposure;
uniform vec3 u_bg;
out vec4 o_color;
void main() {
  vec3 c = texture(u_points, v_uv).rgb;
  float m = max(c.r, max(c.g, c.b));
  if (u_use_opacity != 0) {
    float o = 1.0 - exp(-u_gain * texture(u_opacity, v_uv).r);
    float o2 = o * o;
    vec3 glow = u_glow_rgb;
    if (u_keep_hue != 0) glow = mix(u_glow_rgb, c / max(m, 1e-6), m / (m + 0.02));
    c = c * mix(0.2, 3.0, o2) + (u_glow * o2) * glow;
  }
  if (u_keep_hue != 0) {
    m = max(c.r, max(c.g, c.b));
    c = m > 0.0 ? c * ((1.0 - exp(-u_exposure * m)) / m) : c;
  } else {
    c = vec3(1.0) - exp(-u_exposure * c);
  }
  o_color = vec4(u_bg + (vec3(1.0) - u_bg) * c, 1.0);
}
