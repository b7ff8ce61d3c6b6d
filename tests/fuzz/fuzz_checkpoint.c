/* fuzz_checkpoint.c — libFuzzer target: any bytes as a checkpoint (vx_ckpt_load_mem). An input of a
 * full header gets its payload size and FNV-1a checksum rewritten to match, so that the fuzzer
 * explores the payload's decoding instead of stopping at the checksum; the input as given is
 * loaded too (the header checks). Built and run by scripts/fuzz.sh. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint.h"

static void load(const uint8_t *b, size_t n) {
  char err[512];
  vx_sim *s = vx_ckpt_load_mem(b, n, "fuzz", NULL, err, sizeof err);
  if (s) vx_sim_destroy(s);
  else if (!err[0] || strchr(err, '\n')) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n) {
  load(data, n);
  if (n < VX_CKPT_HEADER_BYTES) return 0;
  uint8_t *b = malloc(n);
  if (!b) return 0;
  memcpy(b, data, n);
  memcpy(b, VX_CKPT_MAGIC, 8);
  b[8] = (uint8_t)VX_CKPT_VERSION, b[9] = b[10] = b[11] = 0;
  uint64_t pl = n - VX_CKPT_HEADER_BYTES, sum = vx_ckpt_fnv1a(b + VX_CKPT_HEADER_BYTES, (size_t)pl);
  for (int i = 0; i < 8; ++i) b[16 + i] = (uint8_t)(pl >> (8 * i)), b[24 + i] = (uint8_t)(sum >> (8 * i));
  load(b, n);
  free(b);
  return 0;
}
