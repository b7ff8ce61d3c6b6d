/* version.c — the program's version and git commit (version.h), compiled with the values CMake
 * found at configure time (VX_VERSION, VX_GIT_COMMIT: set on this one file only). */
#include "version.h"

#ifndef VX_VERSION
#define VX_VERSION "unknown"
#endif
#ifndef VX_GIT_COMMIT
#define VX_GIT_COMMIT "unknown"
#endif

const char *vx_version(void) { return VX_VERSION; }
const char *vx_git_commit(void) { return VX_GIT_COMMIT; }
