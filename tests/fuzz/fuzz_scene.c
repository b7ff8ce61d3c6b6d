/* fuzz_scene.c — libFuzzer target: any bytes through the scene parser (vx_scene_parse), which must
 * return 0 or -1 with a one-line message, never crash. Built and run by scripts/fuzz.sh. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scene.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n) {
  char *text = malloc(n + 1); /* the parser reads a NUL-terminated string (vx_scene_load refuses NUL bytes) */
  if (!text) return 0;
  memcpy(text, data, n);
  text[n] = 0;
  vx_scene s;
  char err[512];
  if (vx_scene_parse(text, "fuzz", &s, err, sizeof err) && (!err[0] || strchr(err, '\n'))) abort();
  free(text);
  return 0;
}
