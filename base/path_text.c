/* path_text.c — long paths shortened in the middle for messages (path_text.h). */
#include "path_text.h"

#include <stdio.h>
#include <string.h>

/* Whether byte i of s continues a UTF-8 character (a cut there would split it). */
static int continues(const char *s, size_t i) { return ((unsigned char)s[i] & 0xC0) == 0x80; }

const char *vx_path_short(const char *path, size_t max, char *out, size_t len) {
  static const char ell[] = "\xe2\x80\xa6"; /* U+2026 HORIZONTAL ELLIPSIS */
  if (!out || len == 0) return out;
  if (!path) path = "";
  if (max >= len) max = len - 1;
  const size_t n = strlen(path);
  if (n <= max || max < sizeof ell + 8) {
    snprintf(out, len, "%s", path);
    return out;
  }
  const size_t keep = max - (sizeof ell - 1); /* bytes of the path kept, head and tail */
  const size_t tail = keep - keep / 3;        /* the tail is the file name: it gets more */
  size_t head = keep - tail, from = n - tail;
  while (head > 0 && continues(path, head)) --head; /* whole characters only */
  while (from < n && continues(path, from)) ++from;
  snprintf(out, len, "%.*s%s%s", (int)head, path, ell, path + from);
  return out;
}
