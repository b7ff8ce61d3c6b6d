/* version.h — what a file written by vortexfmm says about the program that wrote it: the
 * project version (CMakeLists.txt project VERSION) and the git commit of the source tree, taken
 * when CMake configured the build ("unknown" without git or outside a repository). */
#ifndef VX_VERSION_H
#define VX_VERSION_H

#include "fmm.h"

VX_EXTERN_C_BEGIN

const char *vx_version(void);      /* e.g. "0.1" */
const char *vx_git_commit(void);   /* e.g. "c6d903b", or "unknown" */

VX_EXTERN_C_END
#endif
