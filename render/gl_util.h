/* gl_util.h — OpenGL helpers of the render module (not a public header): error checks after each
 * setup step and draw pass, and shader programs built from the embedded shaders/ files (or from
 * the directory $VX_SHADER_DIR names, to try shader edits without rebuilding: rd_shader_text). */
#ifndef RD_GL_UTIL_H
#define RD_GL_UTIL_H

#include <stddef.h>
#include <GL/glew.h>

/* 0 when no GL error is pending; else -1 with "OpenGL error GL_INVALID_ENUM after <what>". */
int rd_gl_check(const char *what, char *err, size_t errlen);
/* The text of shader file `name` (malloc'd), or NULL with err. */
char *rd_shader_text(const char *name, char *err, size_t errlen);
/* Compile and link a program from two shader files; on failure 0, the file's name and its info
 * log in err (the full log also on stderr). */
GLuint rd_program_load(const char *vs_name, const char *fs_name, char *err, size_t errlen);
/* Framebuffer completeness of the bound draw framebuffer: 0, or -1 naming the status. */
int rd_fbo_check(const char *what, char *err, size_t errlen);

#endif
