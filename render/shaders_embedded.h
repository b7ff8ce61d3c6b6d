/* shaders_embedded.h — the GLSL files of shaders/, embedded into the program at build time (CMake
 * writes shaders_embedded.c from shaders_embedded.c.in), so that it finds them from any directory. */
#ifndef RD_SHADERS_EMBEDDED_H
#define RD_SHADERS_EMBEDDED_H

typedef struct {
  const char *name;   /* file name in shaders/, e.g. "points.vert" */
  const char *text;   /* its contents, NUL-terminated */
} rd_shader_source;

/* Terminated by an entry with name NULL. */
extern const rd_shader_source rd_shader_sources[];

#endif
