/* test_app_keys.c — the window's keys table (src/vortexfmm/app_keys.c) as README.md shows it: the
 * Markdown table `vortexfmm --help-keys` prints must stand, line for line, between the lines
 * `<!-- keys:begin -->` and `<!-- keys:end -->` of README.md (blank lines next to the markers
 * aside), so that the README lists every binding the window handles and the in-window help draws.
 * The table itself must be well formed: its header, two cells a row, every key of the window's
 * shortcuts named. No display needed; skipped (77) in a build without the window.
 * Runs the program built beside the tests (VX_BINARY_DIR/vortexfmm). Run: ctest -R app_keys */
#define _POSIX_C_SOURCE 200809L /* popen */
#include "test_check.h"

#ifdef VX_RENDER_OFF /* configured with -DVX_ENABLE_RENDER=OFF */
VX_TEST_RENDER_OFF_MAIN
#else
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_run.h"

#define BEGIN "<!-- keys:begin -->"
#define END "<!-- keys:end -->"

static char table[1 << 16], readme[1 << 20], block[1 << 16];

/* Cells of one table row: unescaped '|' less one (a row "| a | b |" has 2). */
static int cells(const char *line, size_t n) {
  int bars = 0;
  for (size_t i = 0; i < n; ++i) bars += line[i] == '|' && (i == 0 || line[i - 1] != '\\');
  return bars - 1;
}

/* The table: header, separator, two cells in every row, and the window's keys each named. */
static void check_table(void) {
  if (strncmp(table, "| key | action |\n|---|---|\n", 27)) FAIL("--help-keys does not start with the table's header:\n%s", table);
  int rows = 0;
  for (const char *p = table; *p;) {
    const char *e = strchr(p, '\n');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    if (n < 2 || p[0] != '|' || p[n - 1] != '|' || cells(p, n) != 2) FAIL("--help-keys: a malformed row '%.*s'", (int)n, p);
    ++rows;
    p += n + (e != NULL);
  }
  const char *keys[] = {"| left drag |", "| wheel |", "| Space |", "| N or Right |", "| R |", "| C |", "| F |", "| O |",
                        "| E |", "| K |", "| B |", "| X |", "| D |", "| + or = |", "| - |", "| ] |", "| [ |",
                        "| PageUp |", "| PageDown |", "| V |", "| U |", "| Tab |", "| H or F1 |", "| P or F12 |", "| M |",
                        "| Ctrl+S |", "| L |", "| Shift+L |", "| Esc or Q |"};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; ++i)
    if (!strstr(table, keys[i])) FAIL("--help-keys: no row for %s", keys[i]);
  printf("  ok: --help-keys prints a table of %d rows naming every key\n", rows - 2);
}

/* README.md's block between the markers (blank lines next to them left out) into block. */
static int readme_block(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) { FAIL("cannot read %s", path); return -1; }
  size_t n = fread(readme, 1, sizeof readme - 1, f);
  fclose(f);
  readme[n] = 0;
  const char *b = strstr(readme, "\n" BEGIN "\n"), *e = b ? strstr(b, "\n" END) : NULL;
  if (!b || !e || (e[strlen(END) + 1] && e[strlen(END) + 1] != '\n')) {
    FAIL("%s has no line '%s' followed by a line '%s': the keys table (vortexfmm --help-keys) goes between them", path,
         BEGIN, END);
    return -1;
  }
  b += strlen(BEGIN) + 2;
  while (*b == '\n' && b < e) ++b;
  const char *t = e + 1; /* the end of the block's last line, blank lines before the end marker left out */
  while (t > b && t[-1] == '\n' && (t - 1 == b || t[-2] == '\n')) --t;
  snprintf(block, sizeof block, "%.*s", (int)(t - b), b);
  return 0;
}

int main(void) {
  int rc = vx_test_run_program("", "--help-keys", table, sizeof table);
  if (rc == 2 && strstr(table, "this build has no window")) {
    printf("SKIP: this vortexfmm has no window (built without the renderer)\n");
    return 77;
  }
  if (rc != 0) {
    printf("FAIL: vortexfmm --help-keys: exit %d:\n%s", rc, table);
    return EXIT_FAILURE;
  }
  check_table();
  char path[1200];
  snprintf(path, sizeof path, "%s/../README.md", VX_ASSETS_DIR);
  if (!readme_block(path)) {
    if (strcmp(block, table))
      FAIL("README.md's table between %s and %s is not vortexfmm --help-keys's; README.md has:\n%s\n"
           "--help-keys prints:\n%s",
           BEGIN, END, block, table);
    else printf("  ok: README.md holds the table vortexfmm --help-keys prints\n");
  }
  return vx_test_end("keys table checks passed");
}
#endif /* VX_RENDER_OFF */
