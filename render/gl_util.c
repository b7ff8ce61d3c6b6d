/* gl_util.c — GLEW start-up and version check, GL error and framebuffer checks, shader programs
 * from the embedded shader files (gl_util.h, render.h). */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include "gl_util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"
#include "shaders_embedded.h"

static const char *gl_error_name(GLenum e) {
  switch (e) {
    case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
    default: return "unknown GL error";
  }
}

int rd_gl_check(const char *what, char *err, size_t errlen) {
  GLenum e = glGetError(), first = e;
  if (e == GL_NO_ERROR) return 0;
  for (int i = 0; i < 16 && e != GL_NO_ERROR; ++i) e = glGetError(); /* drain */
  snprintf(err, errlen, "OpenGL error %s (0x%04x) after %s", gl_error_name(first), (unsigned)first, what);
  return -1;
}

int rd_fbo_check(const char *what, char *err, size_t errlen) {
  GLenum st = glCheckFramebufferStatus(GL_DRAW_FRAMEBUFFER);
  if (st == GL_FRAMEBUFFER_COMPLETE) return 0;
  const char *s = st == GL_FRAMEBUFFER_INCOMPLETE_ATTACHMENT           ? "incomplete attachment"
                  : st == GL_FRAMEBUFFER_INCOMPLETE_MISSING_ATTACHMENT ? "missing attachment"
                  : st == GL_FRAMEBUFFER_UNSUPPORTED                   ? "unsupported format combination"
                                                                       : "incomplete";
  snprintf(err, errlen, "framebuffer for %s is not complete: %s (0x%04x)", what, s, (unsigned)st);
  return -1;
}

int rd_gl_init(int is_egl, char *err, size_t errlen) {
  glewExperimental = GL_TRUE; /* core profiles: load every entry point, not only advertised ones */
  GLenum ge = glewInit();
  /* A GLEW built for GLX cannot find a GLX display under EGL, yet it has loaded every GL entry
   * point by then: that code is success for an EGL context. */
  if (ge != GLEW_OK && !(is_egl && ge == GLEW_ERROR_NO_GLX_DISPLAY)) {
    snprintf(err, errlen, "glewInit failed: %s", (const char *)glewGetErrorString(ge));
    return -1;
  }
  glGetError(); /* GLEW may leave GL_INVALID_ENUM behind on core profiles */
  const char *ver = (const char *)glGetString(GL_VERSION);
  GLint major = 0, minor = 0;
  glGetIntegerv(GL_MAJOR_VERSION, &major);
  glGetIntegerv(GL_MINOR_VERSION, &minor);
  glGetError();
  if (!ver || major * 10 + minor < 33 || !glCreateProgram || !glGenVertexArrays || !glBindFramebuffer) {
    snprintf(err, errlen, "OpenGL 3.3 core or newer is needed; this context is OpenGL %s (%s)", ver ? ver : "(unknown)",
             glGetString(GL_RENDERER) ? (const char *)glGetString(GL_RENDERER) : "unknown renderer");
    return -1;
  }
  return 0;
}

void rd_gl_describe(char *out, size_t outlen) {
  const char *v = (const char *)glGetString(GL_VERSION), *r = (const char *)glGetString(GL_RENDERER);
  snprintf(out, outlen, "OpenGL %s, %s", v ? v : "?", r ? r : "?");
}

int rd_gl_software(void) {
  const char *r = (const char *)glGetString(GL_RENDERER);
  return r && (strstr(r, "llvmpipe") || strstr(r, "softpipe") || strstr(r, "SwiftShader"));
}

char *rd_shader_text(const char *name, char *err, size_t errlen) {
  /* VX_SHADER_DIR (environment; a developer's setting): a directory holding the shader files
   * (points.vert, composite.frag, ...; the layout of shaders/), read at rd_create instead of the
   * copies embedded at build time, so a shader edit shows without rebuilding. Unset or empty: the
   * embedded copies. A file missing from that directory is an error, not a fall-back. */
  const char *dir = getenv("VX_SHADER_DIR");
  if (dir && *dir) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) { snprintf(err, errlen, "VX_SHADER_DIR=%s: cannot open %s: %s", dir, name, strerror(errno)); return NULL; }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *t = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (!t || fread(t, 1, (size_t)n, f) != (size_t)n) {
      free(t);
      fclose(f);
      snprintf(err, errlen, "shader %s: cannot read", path);
      return NULL;
    }
    t[n] = 0;
    fclose(f);
    return t;
  }
  for (const rd_shader_source *s = rd_shader_sources; s->name; ++s)
    if (!strcmp(s->name, name)) {
      char *t = strdup(s->text);
      if (!t) snprintf(err, errlen, "out of memory");
      return t;
    }
  snprintf(err, errlen, "shader %s is not embedded in this build (shaders/%s missing at configure time?)", name, name);
  return NULL;
}

/* The info log of a shader or program, on stderr in full and its start in err after `what`. */
static void report_log(GLuint obj, int is_program, const char *what, char *err, size_t errlen) {
  GLint n = 0;
  if (is_program) glGetProgramiv(obj, GL_INFO_LOG_LENGTH, &n);
  else glGetShaderiv(obj, GL_INFO_LOG_LENGTH, &n);
  char *log = malloc((size_t)(n > 1 ? n : 1) + 1);
  if (!log) { snprintf(err, errlen, "%s (no memory for its log)", what); return; }
  log[0] = 0;
  if (n > 1) {
    if (is_program) glGetProgramInfoLog(obj, n, NULL, log);
    else glGetShaderInfoLog(obj, n, NULL, log);
  }
  size_t len = strlen(log);
  while (len && (log[len - 1] == '\n' || log[len - 1] == ' ')) log[--len] = 0;
  fprintf(stderr, "vortexfmm: %s; log:\n%s\n", what, len ? log : "(empty)");
  for (char *c = log; *c; ++c)
    if (*c == '\n') *c = ' ';
  snprintf(err, errlen, "%s: %s", what, len ? log : "(empty log)");
  free(log);
}

/* One shader of `type` compiled from file `name`: its name, or 0 with its log in err. */
static GLuint compile(GLenum type, const char *name, char *err, size_t errlen) {
  char *text = rd_shader_text(name, err, errlen);
  if (!text) return 0;
  GLuint sh = glCreateShader(type);
  if (!sh) {
    free(text);
    snprintf(err, errlen, "shader %s: glCreateShader failed (0x%04x)", name, (unsigned)glGetError());
    return 0;
  }
  const char *src = text;
  glShaderSource(sh, 1, &src, NULL);
  glCompileShader(sh);
  free(text);
  GLint ok = 0;
  glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char what[256];
    snprintf(what, sizeof what, "shader %s failed to compile", name);
    report_log(sh, 0, what, err, errlen);
    glDeleteShader(sh);
    return 0;
  }
  return sh;
}

GLuint rd_program_load(const char *vs_name, const char *fs_name, char *err, size_t errlen) {
  GLuint vs = compile(GL_VERTEX_SHADER, vs_name, err, errlen);
  if (!vs) return 0;
  GLuint fs = compile(GL_FRAGMENT_SHADER, fs_name, err, errlen);
  if (!fs) { glDeleteShader(vs); return 0; }
  GLuint p = glCreateProgram();
  if (!p) {
    glDeleteShader(vs);
    glDeleteShader(fs);
    snprintf(err, errlen, "shader program %s + %s: glCreateProgram failed (0x%04x)", vs_name, fs_name,
             (unsigned)glGetError());
    return 0;
  }
  glAttachShader(p, vs);
  glAttachShader(p, fs);
  glLinkProgram(p);
  glDeleteShader(vs); /* flagged; freed with the program */
  glDeleteShader(fs);
  GLint ok = 0;
  glGetProgramiv(p, GL_LINK_STATUS, &ok);
  if (!ok) {
    char what[256];
    snprintf(what, sizeof what, "shader program %s + %s failed to link", vs_name, fs_name);
    report_log(p, 1, what, err, errlen);
    glDeleteProgram(p);
    return 0;
  }
  char what[256];
  snprintf(what, sizeof what, "building shader program %s + %s", vs_name, fs_name);
  if (rd_gl_check(what, err, errlen)) { glDeleteProgram(p); return 0; }
  return p;
}
