/* headless.c — an OpenGL context without a window (render.h, rd_headless): EGL, trying in turn
 *   1. the device platform (EGL_EXT_platform_device): NVIDIA's GPU on headless servers, or
 *      Mesa's software device; CUDA's device in use first, then the other hardware devices, then
 *      software ones (device_pass);
 *   2. Mesa's surfaceless platform (EGL_MESA_platform_surfaceless);
 *   3. the default display (e.g. X11 under xvfb-run);
 * each with an OpenGL 3.3+ core context made current without a surface, rendering into a
 * framebuffer object with an RGBA8 colour buffer. VX_EGL=device|surfaceless|default tries only
 * that one (to diagnose a machine; open_egl). */
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/glew.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gl_util.h"
#include "render.h"
#include "render_gpu.h"

#ifndef EGL_PLATFORM_SURFACELESS_MESA
#define EGL_PLATFORM_SURFACELESS_MESA 0x31DD
#endif

struct rd_headless {
  EGLDisplay dpy;
  EGLContext ctx;
  GLuint fbo, rb;
  int w, h;
  char platform[160];
};

/* Initialise dpy and make a 3.3 core context current on it. 0, or -1 with why in reason. */
static int try_display(rd_headless *hl, EGLDisplay dpy, char *reason, size_t rlen) {
  EGLint maj = 0, min = 0;
  if (dpy == EGL_NO_DISPLAY) { snprintf(reason, rlen, "no display"); return -1; }
  if (!eglInitialize(dpy, &maj, &min)) { snprintf(reason, rlen, "eglInitialize failed (0x%x)", eglGetError()); return -1; }
  if (!eglBindAPI(EGL_OPENGL_API)) {
    snprintf(reason, rlen, "no desktop OpenGL on this EGL display");
    eglTerminate(dpy);
    return -1;
  }
  static const EGLint cfg_pbuf[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_RED_SIZE, 8,
                                    EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_NONE};
  static const EGLint cfg_any[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
  EGLConfig cfg;
  EGLint nc = 0;
  if (!eglChooseConfig(dpy, cfg_pbuf, &cfg, 1, &nc) || nc < 1) {
    if (!eglChooseConfig(dpy, cfg_any, &cfg, 1, &nc) || nc < 1) {
      snprintf(reason, rlen, "no OpenGL-capable EGL config");
      eglTerminate(dpy);
      return -1;
    }
  }
  static const EGLint core33[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3, EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                  EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
  EGLContext ctx = eglCreateContext(dpy, cfg, EGL_NO_CONTEXT, core33);
  if (ctx == EGL_NO_CONTEXT) {
    /* name the version this display does offer */
    EGLContext any = eglCreateContext(dpy, cfg, EGL_NO_CONTEXT, NULL);
    const char *v = NULL;
    if (any != EGL_NO_CONTEXT && eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, any)) {
      typedef const GLubyte *(*get_string_fn)(GLenum);
      get_string_fn gs = (get_string_fn)eglGetProcAddress("glGetString");
      v = gs ? (const char *)gs(GL_VERSION) : NULL;
      snprintf(reason, rlen, "OpenGL 3.3 core or newer is needed; this display offers OpenGL %s", v ? v : "(unknown)");
      eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    } else {
      snprintf(reason, rlen, "OpenGL 3.3 core or newer is needed; no context of any version (0x%x)", eglGetError());
    }
    if (any != EGL_NO_CONTEXT) eglDestroyContext(dpy, any);
    eglTerminate(dpy);
    return -1;
  }
  if (!eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) {
    snprintf(reason, rlen, "a context without a surface cannot be made current (0x%x)", eglGetError());
    eglDestroyContext(dpy, ctx);
    eglTerminate(dpy);
    return -1;
  }
  hl->dpy = dpy;
  hl->ctx = ctx;
  return 0;
}

/* The order in which the device platform tries an EGL device: 0, the GPU that is CUDA's device in use
 * (EGL_CUDA_DEVICE_NV; the device the engine runs on — under mpirun each process's own — so that CUDA-GL
 * interop can map the buffers: on a many-GPU host under CUDA_VISIBLE_DEVICES, EGL still lists every GPU);
 * 1, other hardware devices; 2, software ones (Mesa's llvmpipe device). */
static int device_pass(EGLDeviceEXT dev, PFNEGLQUERYDEVICESTRINGEXTPROC dev_str) {
  const char *dx = dev_str ? dev_str(dev, EGL_EXTENSIONS) : NULL;
  if (dx && strstr(dx, "EGL_MESA_device_software")) return 2;
  PFNEGLQUERYDEVICEATTRIBEXTPROC attrib = (PFNEGLQUERYDEVICEATTRIBEXTPROC)eglGetProcAddress("eglQueryDeviceAttribEXT");
  EGLAttrib cuda = -1;
  const int in_use = rd_gpu_device();
  if (dx && strstr(dx, "EGL_NV_device_cuda") && attrib && attrib(dev, EGL_CUDA_DEVICE_NV, &cuda) && cuda == (in_use < 0 ? 0 : in_use))
    return 0;
  return 1;
}

/* Why each platform tried gave no context, for the one-line error. */
typedef struct {
  char s[1024];
  size_t n;
} egl_why;

static void why_add(egl_why *w, const char *fmt, ...) {
  if (w->n >= sizeof w->s) return;
  va_list ap;
  va_start(ap, fmt);
  w->n += (size_t)vsnprintf(w->s + w->n, sizeof w->s - w->n, fmt, ap);
  va_end(ap);
}

/* 1. The device platform's devices, CUDA's device 0 first, then other hardware, then software ones.
 * 0 with a context current on one, else -1 (the reasons in why). */
static int open_device_platform(rd_headless *hl, const char *cext, PFNEGLGETPLATFORMDISPLAYEXTPROC get_pd,
                                egl_why *why) {
  PFNEGLQUERYDEVICESEXTPROC query_devs = (PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress("eglQueryDevicesEXT");
  PFNEGLQUERYDEVICESTRINGEXTPROC dev_str = (PFNEGLQUERYDEVICESTRINGEXTPROC)eglGetProcAddress("eglQueryDeviceStringEXT");
  if (!(cext && strstr(cext, "EGL_EXT_platform_device") && get_pd && query_devs)) {
    why_add(why, "no EGL_EXT_platform_device; ");
    return -1;
  }
  EGLDeviceEXT devs[16];
  EGLint nd = 0;
  if (!query_devs(16, devs, &nd) || nd <= 0) {
    why_add(why, "device platform: no devices; ");
    return -1;
  }
  char reason[256];
  for (int pass = 0; pass < 3; ++pass)
    for (int i = 0; i < nd; ++i) {
      if (device_pass(devs[i], dev_str) != pass) continue;
      if (try_display(hl, get_pd(EGL_PLATFORM_DEVICE_EXT, devs[i], NULL), reason, sizeof reason) == 0) {
        snprintf(hl->platform, sizeof hl->platform, "EGL device platform (device %d of %d%s)", i, (int)nd,
                 pass == 2 ? ", software" : "");
        return 0;
      }
      why_add(why, "device %d: %s; ", i, reason);
    }
  return -1;
}

/* An EGL display with a 3.3 core context current: the platforms in turn (the banner's order), or
 * only the one VX_EGL names. 0, or -1 with the reasons in why. */
static int open_egl(rd_headless *hl, egl_why *why) {
  /* VX_EGL (environment; a user's setting, to diagnose a machine): "device", "surfaceless" or
   * "default" tries only that platform (1, 2 or 3 above); unset: all three in turn; any other
   * value: none (the error names the accepted values). */
  const char *only = getenv("VX_EGL");
  int try_dev = !only || !strcmp(only, "device"), try_sl = !only || !strcmp(only, "surfaceless"),
      try_def = !only || !strcmp(only, "default");
  if (!try_dev && !try_sl && !try_def) why_add(why, "VX_EGL=%s is none of device, surfaceless, default; ", only);
  const char *cext = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  PFNEGLGETPLATFORMDISPLAYEXTPROC get_pd = (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
  char reason[256];
  if (try_dev && open_device_platform(hl, cext, get_pd, why) == 0) return 0;
  /* 2. Mesa surfaceless */
  if (try_sl && cext && strstr(cext, "EGL_MESA_platform_surfaceless") && get_pd) {
    if (try_display(hl, get_pd(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL), reason, sizeof reason) == 0) {
      snprintf(hl->platform, sizeof hl->platform, "EGL surfaceless platform (Mesa)");
      return 0;
    }
    why_add(why, "surfaceless: %s; ", reason);
  }
  /* 3. the default display */
  if (try_def) {
    if (try_display(hl, eglGetDisplay(EGL_DEFAULT_DISPLAY), reason, sizeof reason) == 0) {
      snprintf(hl->platform, sizeof hl->platform, "EGL default display");
      return 0;
    }
    why_add(why, "default display: %s", reason);
  }
  return -1;
}

rd_headless *rd_headless_create(int w, int h, char *err, size_t errlen) {
  rd_headless *hl = calloc(1, sizeof *hl);
  if (!hl) { snprintf(err, errlen, "out of host memory"); return NULL; }
  egl_why why = {"", 0};
  if (open_egl(hl, &why)) {
    snprintf(err, errlen, "cannot create a headless OpenGL context through EGL (%s)", why.s);
    free(hl);
    return NULL;
  }
  if (rd_gl_init(1, err, errlen)) {
    rd_headless_destroy(hl);
    return NULL;
  }
  hl->w = w;
  hl->h = h;
  glGenFramebuffers(1, &hl->fbo);
  glGenRenderbuffers(1, &hl->rb);
  glBindRenderbuffer(GL_RENDERBUFFER, hl->rb);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, w, h);
  glBindFramebuffer(GL_FRAMEBUFFER, hl->fbo);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, hl->rb);
  char what[64];
  snprintf(what, sizeof what, "the %dx%d headless image", w, h);
  if (rd_fbo_check(what, err, errlen) || rd_gl_check("creating the headless framebuffer", err, errlen)) {
    rd_headless_destroy(hl);
    return NULL;
  }
  return hl;
}

void rd_headless_destroy(rd_headless *hl) {
  if (!hl) return;
  if (hl->dpy != EGL_NO_DISPLAY && hl->ctx != EGL_NO_CONTEXT) {
    if (hl->fbo) glDeleteFramebuffers(1, &hl->fbo);
    if (hl->rb) glDeleteRenderbuffers(1, &hl->rb);
    eglMakeCurrent(hl->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(hl->dpy, hl->ctx);
    eglTerminate(hl->dpy);
  }
  free(hl);
}

unsigned rd_headless_fbo(const rd_headless *hl) { return hl->fbo; }
const char *rd_headless_platform(const rd_headless *hl) { return hl->platform; }
