/* test_octree.c — checks of the CPU octree (fmm/octree_cpu.c): Morton keys, tree invariants on
 * uniform, clustered, degenerate and empty inputs, neighbour and interaction lists against brute
 * force from the geometric definitions, the level choice and its caps, input errors, and
 * determinism (same tree with 1 and with all threads, float and double input).
 * Run: ./build/tests/test_octree (exits non-zero and says what failed). */
#include "octree.h"
#include "pointsets.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "test_check.h"
#include "test_points.h"

/* point sets: test_points.h */

static oct_params params(int levels, int leaf, int max_level, size_t budget) {
  oct_params p;
  memset(&p, 0, sizeof p);
  p.levels = levels, p.leaf_size = leaf, p.max_level = max_level, p.hist_budget = budget;
  return p;
}

/* ---------- Morton keys ---------- */

static int test_morton(void) {
  uint64_t s = 42;
  for (int it = 0; it < 200000; it++) {
    uint32_t x = (uint32_t)(vx_rng_next(&s) & 1023), y = (uint32_t)(vx_rng_next(&s) & 1023),
             z = (uint32_t)(vx_rng_next(&s) & 1023);
    uint32_t k = oct_morton3(x, y, z);
    int dx, dy, dz;
    oct_demorton3(k, &dx, &dy, &dz);
    CHECK(dx == (int)x && dy == (int)y && dz == (int)z, "morton round trip (%u,%u,%u) -> %u -> (%d,%d,%d)", x, y,
          z, k, dx, dy, dz);
    CHECK(k < (1u << 30), "key %u of (%u,%u,%u) has more than 30 bits", k, x, y, z);
    CHECK(oct_morton3(x >> 1, y >> 1, z >> 1) == k >> 3, "parent of (%u,%u,%u) is not key >> 3", x, y, z);
    /* bit layout: x bit i -> 3i, y -> 3i+1, z -> 3i+2 */
    int bit = (int)(vx_rng_next(&s) % 10);
    CHECK(((k >> (3 * bit)) & 1u) == ((x >> bit) & 1u) && ((k >> (3 * bit + 1)) & 1u) == ((y >> bit) & 1u) &&
              ((k >> (3 * bit + 2)) & 1u) == ((z >> bit) & 1u),
          "bit layout of key %u", k);
  }
  CHECK(oct_morton3(1023, 1023, 1023) == (1u << 30) - 1, "largest key");
  return 0;
}

/* ---------- invariants ---------- */

typedef struct {
  const char *name;
  int n;
  const int *nbox;
  uint32_t *const *key;
  int *const *map, *const *parent, *const *child;
  const int *start, *order;
} set_ref;

static int check_set(const oct_tree *t, set_ref s, const double *pos, const char *label) {
  const int L = t->L;
  const double inv = 1.0 / t->side;
  CHECK(s.nbox[0] == (s.n > 0), "%s %s: %d boxes at level 0 for %d points", label, s.name, s.nbox[0], s.n);
  for (int l = 0; l <= L; l++) {
    const int nb = s.nbox[l];
    const size_t ncell = (size_t)1 << (3 * l);
    CHECK(nb >= 0 && (size_t)nb <= ncell && nb <= (s.n > 0 ? s.n : 0), "%s %s: %d boxes at level %d", label, s.name,
          nb, l);
    CHECK(s.key[l] && s.map[l], "%s %s: missing key/map at level %d", label, s.name, l);
    for (int b = 0; b < nb; b++) {
      CHECK(s.key[l][b] < ncell, "%s %s: key %u out of range at level %d", label, s.name, s.key[l][b], l);
      CHECK(b == 0 || s.key[l][b] > s.key[l][b - 1], "%s %s: keys not strictly ascending at level %d box %d", label,
            s.name, l, b);
      CHECK(s.map[l][s.key[l][b]] == b, "%s %s: map[key[%d]] = %d at level %d", label, s.name, b,
            s.map[l][s.key[l][b]], l);
    }
    int used = 0;
    for (size_t k = 0; k < ncell; k++) {
      int b = s.map[l][k];
      CHECK(b >= -1 && b < nb, "%s %s: map[%zu] = %d at level %d", label, s.name, k, b, l);
      if (b >= 0) {
        CHECK(s.key[l][b] == k, "%s %s: map[%zu] = %d but key = %u at level %d", label, s.name, k, b, s.key[l][b], l);
        used++;
      }
    }
    CHECK(used == nb, "%s %s: map has %d entries, %d boxes at level %d", label, s.name, used, nb, l);
    if (l < L) { /* children of level-l boxes */
      const int *ch = s.child[l], *par = s.parent[l + 1];
      CHECK(ch && par, "%s %s: missing child/parent at level %d", label, s.name, l);
      CHECK(ch[0] == 0 && ch[nb] == s.nbox[l + 1], "%s %s: child offsets span %d..%d, %d boxes below (level %d)",
            label, s.name, ch[0], ch[nb], s.nbox[l + 1], l);
      for (int b = 0; b < nb; b++) {
        CHECK(ch[b + 1] > ch[b] && ch[b + 1] - ch[b] <= 8, "%s %s: box %d at level %d has %d children", label, s.name,
              b, l, ch[b + 1] - ch[b]);
        for (int c = ch[b]; c < ch[b + 1]; c++) {
          CHECK(par[c] == b, "%s %s: parent of box %d at level %d is %d, expected %d", label, s.name, c, l + 1, par[c],
                b);
          CHECK(s.key[l + 1][c] >> 3 == s.key[l][b], "%s %s: child key %u of key %u (level %d)", label, s.name,
                s.key[l + 1][c], s.key[l][b], l);
        }
      }
    }
  }

  /* leaves and particles */
  const int nb = s.nbox[L];
  CHECK(s.start[0] == 0 && s.start[nb] == s.n, "%s %s: leaf offsets span %d..%d for %d points", label, s.name,
        s.start[0], s.start[nb], s.n);
  char *seen = calloc((size_t)(s.n > 0 ? s.n : 1), 1);
  if (!seen) exit(EXIT_FAILURE);
  const double h = oct_box_side(t, L);
  int rc = 0;
  long long total = 0;
  for (int b = 0; b < nb && !rc; b++) {
    int cnt = s.start[b + 1] - s.start[b];
    if (cnt <= 0) {
      fprintf(stderr, "FAIL %s %s: leaf %d has %d particles\n", label, s.name, b, cnt);
      rc = 1;
      break;
    }
    total += cnt;
    int x, y, z;
    oct_demorton3(s.key[L][b], &x, &y, &z);
    double c[3];
    oct_box_centre(t, L, s.key[L][b], c);
    for (int j = s.start[b]; j < s.start[b + 1]; j++) {
      int i = s.order[j];
      if (i < 0 || i >= s.n || seen[i]) {
        fprintf(stderr, "FAIL %s %s: order[%d] = %d (out of range or repeated)\n", label, s.name, j, i);
        rc = 1;
        break;
      }
      seen[i] = 1;
      if (j > s.start[b] && s.order[j - 1] >= i) {
        fprintf(stderr, "FAIL %s %s: leaf %d not in ascending index order\n", label, s.name, b);
        rc = 1;
        break;
      }
      const double *p = pos + 3 * (size_t)i;
      uint32_t cx = oct_cell(p[0], t->lo[0], inv, L), cy = oct_cell(p[1], t->lo[1], inv, L),
               cz = oct_cell(p[2], t->lo[2], inv, L);
      if ((int)cx != x || (int)cy != y || (int)cz != z) {
        fprintf(stderr, "FAIL %s %s: particle %d in leaf (%d,%d,%d), its cell is (%u,%u,%u)\n", label, s.name, i, x, y,
                z, cx, cy, cz);
        rc = 1;
        break;
      }
      /* geometric containment, to a tolerance far below a cell but above rounding */
      double tol = 1e-9 * h + 1e-15 * t->side;
      for (int k = 0; k < 3; k++)
        if (fabs(p[k] - c[k]) > 0.5 * h + tol) {
          fprintf(stderr, "FAIL %s %s: particle %d coordinate %d = %.17g outside its leaf [%.17g, %.17g]\n", label,
                  s.name, i, k, p[k], c[k] - 0.5 * h, c[k] + 0.5 * h);
          rc = 1;
          break;
        }
      if (rc) break;
    }
  }
  if (!rc && total != s.n) {
    fprintf(stderr, "FAIL %s %s: leaves hold %lld particles, expected %d\n", label, s.name, total, s.n);
    rc = 1;
  }
  for (int i = 0; i < s.n && !rc; i++)
    if (!seen[i]) {
      fprintf(stderr, "FAIL %s %s: particle %d in no leaf\n", label, s.name, i);
      rc = 1;
    }
  free(seen);
  if (rc) failures++;
  return rc;
}

static int check_tree(const oct_tree *t, const double *spos, int ns, const double *tpos, int nt, const char *label) {
  CHECK(t->L >= 2 && t->L <= VX_LMAX, "%s: L = %d", label, t->L);
  CHECK(t->ns == ns && t->nt == nt, "%s: ns, nt = %d, %d, expected %d, %d", label, t->ns, t->nt, ns, nt);
  CHECK(t->side > 0 && isfinite(t->side), "%s: side = %g", label, t->side);
  CHECK(oct_box_side(t, 3) == t->side / 8, "%s: oct_box_side", label);
  /* every point strictly inside the root cube */
  for (int set = 0; set < 2; set++) {
    const double *p = set ? tpos : spos;
    int n = set ? nt : ns;
    for (int i = 0; i < n; i++)
      for (int k = 0; k < 3; k++)
        CHECK(p[3 * i + k] > t->lo[k] && p[3 * i + k] < t->lo[k] + t->side, "%s: point %d of set %d outside root cube",
              label, i, set);
  }
  set_ref s = {"src", ns, t->nsrc, t->src_key, t->src_map, t->src_parent, t->src_child, t->src_start, t->src_order};
  set_ref g = {"tgt", nt, t->ntgt, t->tgt_key, t->tgt_map, t->tgt_parent, t->tgt_child, t->tgt_start, t->tgt_order};
  if (check_set(t, s, spos, label) || check_set(t, g, tpos, label)) return 1;
  return 0;
}

/* Neighbour and interaction lists against brute force over all pairs of boxes of a level, from
 * integer cell coordinates. */
static int check_lists(const oct_tree *t, const char *label) {
  const int L = t->L;
  int *sx = malloc(sizeof(int) * 3 * (size_t)(t->nsrc[L] + 1));
  int *buf = malloc(sizeof(int) * (size_t)(t->nsrc[L] + 1));
  if (!sx || !buf) exit(EXIT_FAILURE);
  int rc = 0;
  for (int l = 0; l <= L && !rc; l++) {
    const int nsb = t->nsrc[l], ntb = t->ntgt[l];
    for (int b = 0; b < nsb; b++) oct_demorton3(t->src_key[l][b], &sx[3 * b], &sx[3 * b + 1], &sx[3 * b + 2]);
    const int *is = t->il_start[l];
    if (!is) {
      fprintf(stderr, "FAIL %s: il_start[%d] missing\n", label, l);
      rc = 1;
      break;
    }
    for (int b = 0; b <= ntb && l < 2; b++)
      if (is[b] != 0) {
        fprintf(stderr, "FAIL %s: il_start[%d][%d] = %d, levels 0 and 1 must be empty\n", label, l, b, is[b]);
        rc = 1;
        break;
      }
    if (is[0] != 0) {
      fprintf(stderr, "FAIL %s: il_start[%d][0] = %d\n", label, l, is[0]);
      rc = 1;
    }
    for (int b = 0; b < ntb && !rc; b++) {
      int x, y, z;
      oct_demorton3(t->tgt_key[l][b], &x, &y, &z);
      for (int pass = 0; pass < 2 && !rc; pass++) {
        if (pass == 0 && l < 2) continue;
        if (pass == 1 && l != L) continue;
        int m = 0;
        for (int c = 0; c < nsb; c++) {
          int dx = abs(sx[3 * c] - x), dy = abs(sx[3 * c + 1] - y), dz = abs(sx[3 * c + 2] - z);
          int adjacent = dx <= 1 && dy <= 1 && dz <= 1;
          int pdx = abs((sx[3 * c] >> 1) - (x >> 1)), pdy = abs((sx[3 * c + 1] >> 1) - (y >> 1)),
              pdz = abs((sx[3 * c + 2] >> 1) - (z >> 1));
          int parents_adjacent = pdx <= 1 && pdy <= 1 && pdz <= 1;
          if (pass == 0 ? (parents_adjacent && !adjacent) : adjacent) buf[m++] = c;
        }
        const int *lst = pass == 0 ? t->il[l] + is[b] : t->nbr + t->nbr_start[b];
        int got = pass == 0 ? is[b + 1] - is[b] : t->nbr_start[b + 1] - t->nbr_start[b];
        const char *what = pass == 0 ? "interaction" : "neighbour";
        if (got != m || (pass == 0 && m > 189) || (pass == 1 && m > 27)) {
          fprintf(stderr, "FAIL %s: %s list of target box %d at level %d has %d entries, brute force %d\n", label,
                  what, b, l, got, m);
          rc = 1;
          break;
        }
        for (int j = 0; j < m; j++)
          if (lst[j] != buf[j]) {
            fprintf(stderr, "FAIL %s: %s list of target box %d at level %d: entry %d is %d, brute force %d\n", label,
                    what, b, l, j, lst[j], buf[j]);
            rc = 1;
            break;
          }
      }
    }
  }
  free(sx);
  free(buf);
  if (rc) failures++;
  return rc;
}

/* Build, check invariants and lists, free. Prints one line per case. */
static int run_case(const char *label, const double *spos, int ns, const double *tpos, int nt, oct_params p,
                    int lists) {
  oct_tree t;
  char err[256];
  if (oct_build_cpu(&t, spos, ns, tpos, nt, 0, &p, err, sizeof err) != 0) {
    fprintf(stderr, "FAIL %s: oct_build_cpu: %s\n", label, err);
    failures++;
    return 1;
  }
  int rc = check_tree(&t, spos, ns, tpos, nt, label);
  if (!rc && lists) rc = check_lists(&t, label);
  long long nil = 0;
  for (int l = 2; l <= t.L; l++) nil += t.il_start[l][t.ntgt[l]];
  printf("  %-28s ns=%6d nt=%6d L=%d capped=%d leaves src/tgt %6d/%6d  nbr %8d  il %9lld  %s\n", label, ns, nt, t.L,
         t.capped, t.nsrc[t.L], t.ntgt[t.L], t.nbr_start[t.ntgt[t.L]], nil, rc ? "FAIL" : "ok");
  oct_free_cpu(&t);
  return rc;
}

static int test_invariants(void) {
  const int n = 20000;
  double *u1 = vx_test_uniform_pos(n, 1), *u2 = vx_test_uniform_pos(n, 2), *c1 = vx_test_clustered_pos(n, 3, 0.05), *c2 = vx_test_clustered_pos(n / 2, 4, 0.05);
  double *c3 = vx_test_clustered_pos(n, 6, 0.01);
  double *u3 = vx_test_uniform_pos(7000, 5);
  double *same = vx_test_alloc_pos(1000);
  for (int i = 0; i < 1000; i++) same[3 * i] = 0.3, same[3 * i + 1] = 0.7, same[3 * i + 2] = -0.1;
  oct_params dflt = params(0, 64, 0, 0);
  int rc = 0;
  printf("invariants and lists:\n");
  rc |= run_case("uniform", u1, n, u2, n, dflt, 1);
  rc |= run_case("uniform leaf 8", u1, n, u2, n, params(0, 8, 0, 0), 1);
  rc |= run_case("clustered", c1, n, c2, n / 2, dflt, 1);
  rc |= run_case("clustered, budget 4 MiB", c1, n, c1, n, params(0, 64, 0, (size_t)4 << 20), 1);
  rc |= run_case("tight clusters", c3, n, c2, n / 2, dflt, 1);
  rc |= run_case("tight clusters, 4 MiB", c3, n, c3, n, params(0, 64, 0, (size_t)4 << 20), 1);
  rc |= run_case("ns != nt", u1, n, u3, 7000, dflt, 1);
  rc |= run_case("ns != nt (swapped)", u3, 7000, u1, n, dflt, 1);
  rc |= run_case("sources = targets", u1, n, u1, n, dflt, 1);
  rc |= run_case("nt = 0", u1, n, NULL, 0, dflt, 1);
  rc |= run_case("ns = 0", NULL, 0, c1, n, dflt, 1);
  rc |= run_case("one source, one target", u1, 1, u2, 1, dflt, 1);
  rc |= run_case("coincident points", same, 1000, same, 1000, dflt, 1);
  rc |= run_case("coincident, levels 3", same, 1000, u3, 7000, params(3, 64, 0, 0), 1);
  for (int lv = 2; lv <= 5; lv++) {
    char name[64];
    snprintf(name, sizeof name, "uniform, levels %d", lv);
    rc |= run_case(name, u1, lv == 5 ? 8000 : n, u2, lv == 5 ? 8000 : n, params(lv, 64, 0, 0), 1);
    snprintf(name, sizeof name, "clustered, levels %d", lv);
    rc |= run_case(name, c1, n, u3, 7000, params(lv, 64, 0, 0), 1);
  }
  free(u1), free(u2), free(c1), free(c2), free(c3), free(u3), free(same);
  return rc;
}

/* ---------- level choice and errors ---------- */

/* Non-empty cells at level l of a point set, from the tree's cube. */
static long long occupied_cells(const oct_tree *t, const double *pos, int n, int l) {
  size_t ncell = (size_t)1 << (3 * l);
  char *occ = calloc(ncell, 1);
  if (!occ) exit(EXIT_FAILURE);
  const double inv = 1.0 / t->side;
  long long c = 0;
  for (int i = 0; i < n; i++) {
    const double *p = pos + 3 * (size_t)i;
    uint32_t k = oct_morton3(oct_cell(p[0], t->lo[0], inv, l), oct_cell(p[1], t->lo[1], inv, l),
                             oct_cell(p[2], t->lo[2], inv, l));
    if (!occ[k]) occ[k] = 1, c++;
  }
  free(occ);
  return c;
}

static int test_level_choice(void) {
  const int n = 50000;
  double *u = vx_test_uniform_pos(n, 11), *v = vx_test_uniform_pos(n / 4, 12);
  char err[256];
  oct_tree t;
  printf("level choice:\n");
  const int leafs[3] = {16, 64, 5};
  for (int i = 0; i < 3; i++) {
    oct_params p = params(0, leafs[i], 0, 0);
    CHECK(oct_build_cpu(&t, u, n, v, n / 4, 0, &p, err, sizeof err) == 0, "build: %s", err);
    long long occ = occupied_cells(&t, u, n, t.L), occ_up = occupied_cells(&t, u, n, t.L - 1);
    double mean = (double)n / (double)occ, mean_up = (double)n / (double)occ_up;
    printf("  uniform n=%d leaf_size=%d: L=%d mean %.2f (level %d: %.2f) capped=%d\n", n, leafs[i], t.L, mean,
           t.L - 1, mean_up, t.capped);
    CHECK(occ == t.nsrc[t.L], "occupied leaves %lld vs nsrc %d", occ, t.nsrc[t.L]);
    CHECK(mean <= leafs[i], "mean occupancy %.2f > leaf_size %d at L=%d", mean, leafs[i], t.L);
    CHECK(t.L == 2 || mean_up > leafs[i], "level %d would already do (mean %.2f <= %d)", t.L - 1, mean_up, leafs[i]);
    CHECK(!t.capped, "capped set with the default budget");
    oct_free_cpu(&t);
  }
  /* tiny budget: maps of levels 0..3 fit, 0..4 do not -> capped at 3 */
  size_t b3 = 2 * sizeof(int) * (1 + 8 + 64 + 512);
  oct_params p = params(0, 16, 0, b3);
  CHECK(oct_build_cpu(&t, u, n, v, n / 4, 0, &p, err, sizeof err) == 0, "build: %s", err);
  printf("  hist_budget %zu bytes: L=%d capped=%d\n", b3, t.L, t.capped);
  CHECK(t.L == 3 && t.capped == 1, "budget %zu: L=%d capped=%d, expected L=3 capped=1", b3, t.L, t.capped);
  CHECK(check_tree(&t, u, n, v, n / 4, "capped by budget") == 0, "invariants of the capped tree");
  oct_free_cpu(&t);
  p = params(0, 16, 3, 0);
  CHECK(oct_build_cpu(&t, u, n, v, n / 4, 0, &p, err, sizeof err) == 0, "build: %s", err);
  printf("  max_level 3: L=%d capped=%d\n", t.L, t.capped);
  CHECK(t.L == 3 && t.capped == 1, "max_level 3: L=%d capped=%d", t.L, t.capped);
  oct_free_cpu(&t);
  p = params(0, 16, 6, 0); /* the cap is not reached: not capped */
  CHECK(oct_build_cpu(&t, u, n, v, n / 4, 0, &p, err, sizeof err) == 0, "build: %s", err);
  CHECK(t.L == 4 && t.capped == 0, "max_level 6: L=%d capped=%d, expected 4, 0", t.L, t.capped);
  oct_free_cpu(&t);
  /* min_leaf_width: the cube side is 1 + O(1e-6), so level l boxes are ~2^-l wide */
  const double widths[4] = {0.1, 0.05, 0.3, 0.0};
  const int want_L[4] = {3, 4, 2, 4}, want_capped[4] = {1, 0, 1, 0};
  for (int i = 0; i < 4; i++) {
    p = params(0, 16, 0, 0);
    p.min_leaf_width = widths[i];
    CHECK(oct_build_cpu(&t, u, n, v, n / 4, 0, &p, err, sizeof err) == 0, "build: %s", err);
    printf("  min_leaf_width %.2f: L=%d capped=%d leaf width %.4f\n", widths[i], t.L, t.capped, oct_box_side(&t, t.L));
    CHECK(t.L == want_L[i] && t.capped == want_capped[i], "min_leaf_width %g: L=%d capped=%d, expected %d, %d",
          widths[i], t.L, t.capped, want_L[i], want_capped[i]);
    CHECK(t.L == 2 || oct_box_side(&t, t.L) >= widths[i], "leaves narrower than min_leaf_width");
    oct_free_cpu(&t);
  }
  /* min_leaves: 64 level-2 boxes of 781 points each (leaf 2000) are too few for a floor of 100 and
   * hold more than 2000/8: level 3 (512 leaves); with leaf 8000 they hold less than 8000/8: level 2
   * stays; a cap of 2 keeps level 2 without calling it capped (the leaf size asked for no more) */
  const int ml_leaf[3] = {2000, 8000, 2000}, ml_cap[3] = {0, 0, 2}, ml_want[3] = {3, 2, 2};
  for (int i = 0; i < 3; i++) {
    for (int floor_on = 0; floor_on < 2; floor_on++) {
      p = params(0, ml_leaf[i], ml_cap[i], 0);
      p.min_leaves = floor_on ? 100 : 0;
      CHECK(oct_build_cpu(&t, u, n, v, n / 4, 0, &p, err, sizeof err) == 0, "build: %s", err);
      const int want = floor_on ? ml_want[i] : 2;
      printf("  leaf %d max_level %d min_leaves %d: L=%d capped=%d\n", ml_leaf[i], ml_cap[i], p.min_leaves, t.L, t.capped);
      CHECK(t.L == want && t.capped == 0, "leaf %d max_level %d min_leaves %d: L=%d capped=%d, expected %d, 0", ml_leaf[i],
            ml_cap[i], p.min_leaves, t.L, t.capped, want);
      oct_free_cpu(&t);
    }
  }
  p = params(5, 16, 4, 0); /* an explicit level is capped too */
  CHECK(oct_build_cpu(&t, u, n, v, n / 4, 0, &p, err, sizeof err) == 0, "build: %s", err);
  CHECK(t.L == 4 && t.capped == 1, "levels 5, max_level 4: L=%d capped=%d", t.L, t.capped);
  oct_free_cpu(&t);

  /* errors: message non-empty, tree zeroed (so oct_free_cpu is harmless) */
  struct {
    const char *what;
    oct_params p;
    int ns, nt;
  } bad[] = {
      {"impossible budget", params(0, 64, 0, 500), n, n / 4},
      {"levels = 1", params(1, 64, 0, 0), n, n / 4},
      {"levels = 11", params(11, 64, 0, 0), n, n / 4},
      {"levels = -3", params(-3, 64, 0, 0), n, n / 4},
      {"leaf_size = 0", params(0, 0, 0, 0), n, n / 4},
      {"max_level = 1", params(0, 64, 1, 0), n, n / 4},
      {"min_leaf_width < 0", params(0, 64, 0, 0), n, n / 4},
      {"no points", params(0, 64, 0, 0), 0, 0},
  };
  bad[6].p.min_leaf_width = -1.0; /* "min_leaf_width < 0" */
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    err[0] = '\0';
    int r = oct_build_cpu(&t, u, bad[i].ns, v, bad[i].nt, 0, &bad[i].p, err, sizeof err);
    printf("  %-18s -> %d \"%s\"\n", bad[i].what, r, err);
    CHECK(r != 0 && err[0] != '\0', "%s: expected an error with a message (got %d, \"%s\")", bad[i].what, r, err);
    CHECK(t.src_order == NULL && t.L == 0, "%s: tree not zeroed after an error", bad[i].what);
    oct_free_cpu(&t);
  }
  /* non-finite coordinates: the message names the first bad point */
  double keep = u[3 * 1234 + 1], keep2 = u[3 * 4321];
  u[3 * 1234 + 1] = NAN;
  u[3 * 4321] = NAN;
  p = params(0, 64, 0, 0);
  int r = oct_build_cpu(&t, u, n, v, n / 4, 0, &p, err, sizeof err);
  printf("  NaN source 1234    -> %d \"%s\"\n", r, err);
  CHECK(r != 0 && strstr(err, "1234") && strstr(err, "source"), "NaN source: got %d \"%s\"", r, err);
  u[3 * 1234 + 1] = keep, u[3 * 4321] = keep2;
  keep = v[3 * 77 + 2];
  v[3 * 77 + 2] = -INFINITY;
  r = oct_build_cpu(&t, u, n, v, n / 4, 0, &p, err, sizeof err);
  printf("  -Inf target 77     -> %d \"%s\"\n", r, err);
  CHECK(r != 0 && strstr(err, "77") && strstr(err, "target"), "Inf target: got %d \"%s\"", r, err);
  v[3 * 77 + 2] = keep;
  oct_free_cpu(&t);
  oct_free_cpu(&t); /* twice on a zeroed tree */
  free(u), free(v);
  return 0;
}

/* ---------- determinism ---------- */

#define SAME(a, b, n, what, l)                                                            \
  do {                                                                                    \
    if ((n) > 0 && memcmp((a), (b), (size_t)(n) * sizeof(*(a))) != 0) {                  \
      fprintf(stderr, "FAIL %s: trees differ in %s at level %d\n", label, (what), (l)); \
      failures++;                                                                           \
      return 1;                                                                           \
    }                                                                                     \
  } while (0)

static int same_tree(const oct_tree *a, const oct_tree *b, const char *label) {
  CHECK(a->L == b->L && a->capped == b->capped && a->ns == b->ns && a->nt == b->nt && a->side == b->side &&
            memcmp(a->lo, b->lo, sizeof a->lo) == 0,
        "%s: trees differ in L/capped/ns/nt/cube", label);
  const int L = a->L;
  for (int l = 0; l <= L; l++) {
    CHECK(a->nsrc[l] == b->nsrc[l] && a->ntgt[l] == b->ntgt[l], "%s: box counts differ at level %d", label, l);
    size_t ncell = (size_t)1 << (3 * l);
    SAME(a->src_key[l], b->src_key[l], a->nsrc[l], "src_key", l);
    SAME(a->tgt_key[l], b->tgt_key[l], a->ntgt[l], "tgt_key", l);
    SAME(a->src_map[l], b->src_map[l], ncell, "src_map", l);
    SAME(a->tgt_map[l], b->tgt_map[l], ncell, "tgt_map", l);
    if (l > 0) {
      SAME(a->src_parent[l], b->src_parent[l], a->nsrc[l], "src_parent", l);
      SAME(a->tgt_parent[l], b->tgt_parent[l], a->ntgt[l], "tgt_parent", l);
    }
    if (l < L) {
      SAME(a->src_child[l], b->src_child[l], a->nsrc[l] + 1, "src_child", l);
      SAME(a->tgt_child[l], b->tgt_child[l], a->ntgt[l] + 1, "tgt_child", l);
    }
    SAME(a->il_start[l], b->il_start[l], a->ntgt[l] + 1, "il_start", l);
    SAME(a->il[l], b->il[l], a->il_start[l][a->ntgt[l]], "il", l);
  }
  SAME(a->src_start, b->src_start, a->nsrc[L] + 1, "src_start", L);
  SAME(a->tgt_start, b->tgt_start, a->ntgt[L] + 1, "tgt_start", L);
  SAME(a->src_order, b->src_order, a->ns, "src_order", L);
  SAME(a->tgt_order, b->tgt_order, a->nt, "tgt_order", L);
  SAME(a->nbr_start, b->nbr_start, a->ntgt[L] + 1, "nbr_start", L);
  SAME(a->nbr, b->nbr, a->nbr_start[a->ntgt[L]], "nbr", L);
  return 0;
}

static int test_determinism(void) {
  const int n = 30000;
  double *c = vx_test_clustered_pos(n, 21, 0.05), *u = vx_test_uniform_pos(n, 22);
  float *cf = malloc(3 * (size_t)n * sizeof(float)), *uf = malloc(3 * (size_t)n * sizeof(float));
  if (!cf || !uf) exit(EXIT_FAILURE);
  for (int i = 0; i < 3 * n; i++) cf[i] = (float)c[i], uf[i] = (float)u[i];
  oct_params p = params(0, 32, 0, (size_t)16 << 20);
  oct_tree a, b;
  char err[256];
  printf("determinism:\n");
  int nthr = 1;
#ifdef _OPENMP
  nthr = omp_get_max_threads();
#endif
  CHECK(oct_build_cpu(&a, c, n, u, n, 0, &p, err, sizeof err) == 0, "build: %s", err);
  CHECK(oct_build_cpu(&b, c, n, u, n, 0, &p, err, sizeof err) == 0, "build: %s", err);
  CHECK(same_tree(&a, &b, "two runs") == 0, "two runs differ");
  oct_free_cpu(&b);
#ifdef _OPENMP
  omp_set_num_threads(1);
  CHECK(oct_build_cpu(&b, c, n, u, n, 0, &p, err, sizeof err) == 0, "build: %s", err);
  omp_set_num_threads(nthr);
  CHECK(same_tree(&a, &b, "1 thread vs all") == 0, "1 thread vs %d differ", nthr);
  oct_free_cpu(&b);
#endif
  printf("  clustered+uniform n=%d: identical over two runs and with 1 vs %d threads (L=%d)\n", n, nthr, a.L);
  oct_free_cpu(&a);

  /* tight clusters, capped low: leaves of thousands of particles (heavy atomic contention, and the
   * long-leaf sort path) */
  double *tc = vx_test_clustered_pos(n, 23, 0.01);
  oct_params q = params(0, 32, 4, 0);
  CHECK(oct_build_cpu(&a, tc, n, tc, n, 0, &q, err, sizeof err) == 0, "build: %s", err);
#ifdef _OPENMP
  omp_set_num_threads(1);
#endif
  CHECK(oct_build_cpu(&b, tc, n, tc, n, 0, &q, err, sizeof err) == 0, "build: %s", err);
#ifdef _OPENMP
  omp_set_num_threads(nthr);
#endif
  int big = 0;
  for (int i = 0; i < a.nsrc[a.L]; i++)
    if (a.src_start[i + 1] - a.src_start[i] > big) big = a.src_start[i + 1] - a.src_start[i];
  CHECK(same_tree(&a, &b, "tight clusters, 1 thread vs all") == 0, "tight clusters: trees differ");
  printf("  tight clusters n=%d, max_level 4: identical with 1 vs %d threads (largest leaf %d)\n", n, nthr, big);
  oct_free_cpu(&a);
  oct_free_cpu(&b);
  free(tc);

  /* float input = double input of the same (float-rounded) values */
  for (int i = 0; i < 3 * n; i++) c[i] = (double)cf[i], u[i] = (double)uf[i];
  CHECK(oct_build_cpu(&a, c, n, u, n, 0, &p, err, sizeof err) == 0, "build: %s", err);
  CHECK(oct_build_cpu(&b, cf, n, uf, n, 1, &p, err, sizeof err) == 0, "build (float): %s", err);
  CHECK(same_tree(&a, &b, "float vs double") == 0, "float and double input differ");
  printf("  float input gives the same tree as double input (L=%d)\n", a.L);
  CHECK(check_tree(&b, c, n, u, n, "float input") == 0, "float tree invariants");
  oct_free_cpu(&a);
  oct_free_cpu(&b);
  free(c), free(u), free(cf), free(uf);
  return 0;
}

int main(void) {
  test_morton();
  if (!failures) printf("morton keys: ok\n");
  test_invariants();
  test_level_choice();
  test_determinism();
  if (failures) {
    fprintf(stderr, "test_octree: %d check(s) FAILED\n", failures);
    return EXIT_FAILURE;
  }
  printf("test_octree: all checks passed\n");
  return EXIT_SUCCESS;
}
