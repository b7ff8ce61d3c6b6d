#version 330 core
// iso.frag — the isosurface lit: a key light above and to the left of the eye (diffuse, with an
// ambient floor so the far side of a tube is not black), a specular highlight and a rim towards the
// silhouette, which tells a tube's edge from its face. Two-sided: the normal is turned towards the
// eye, as the inside of a surface cut by the grid's faces may face it.
in vec3 v_pos;
in vec3 v_normal;
uniform vec3 u_eye;
uniform vec3 u_light;                   // unit direction towards the key light
uniform vec3 u_rgb;
out vec4 o_color;
void main() {
  vec3 n = normalize(v_normal);
  vec3 v = normalize(u_eye - v_pos);
  if (dot(n, v) < 0.0) n = -n;
  float diffuse = max(dot(n, u_light), 0.0);
  float spec = pow(max(dot(reflect(-u_light, n), v), 0.0), 40.0);
  float rim = pow(1.0 - max(dot(n, v), 0.0), 3.0);
  vec3 c = u_rgb * (0.22 + 0.78 * diffuse) + vec3(0.35 * spec) + u_rgb * (0.35 * rim);
  o_color = vec4(min(c, vec3(1.0)), 1.0);
}
