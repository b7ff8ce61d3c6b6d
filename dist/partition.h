/* partition.h — the distributed engine's domain decomposition (Yokota & Barba, paper 002; Lashuk et
 * al., paper 004): each rank owns one contiguous range of the space-filling curve, the octree's own
 * 30-bit Morton key of a point's finest cell in the global root cube (fmm/octree.h), the ranges
 * chosen so that every rank carries an equal share of the particles' cost; particles then move to the
 * rank that owns their key. All calls are collective over the communicator and return 0, or -1 with
 * the reason in err on every rank that failed (vx_comm_agree tells the others). */
#ifndef VX_PARTITION_H
#define VX_PARTITION_H

#include <stddef.h>
#include <stdint.h>
#include "comm.h"

#define VX_PART_KEY_BITS 30 /* 10 bits an axis: the octree's deepest level (VX_LMAX) */

typedef struct {
  double lo[3], side; /* the root cube of every rank's points, as oct_build_cpu makes it of their union */
} vx_part_cube;

/* The root cube of the points of all ranks (pos: 3n doubles, x y z a point). */
int vx_part_cube_all(const vx_comm *c, const double *pos, int n, vx_part_cube *cube, char *err, size_t errlen);
/* Its two halves: this rank's bounds of n points in double (pos_float 0) or float (1), those with a
 * non-finite coordinate skipped and the first such point into *bad (-1: none; not collective), and the
 * root cube of every rank's bounds (collective: any rank's bad point fails every rank). */
void vx_part_bounds(const void *pos, int pos_float, int n, double mn[3], double mx[3], int *bad);
int vx_part_cube_of(const vx_comm *c, const double mn[3], const double mx[3], int bad, vx_part_cube *cube, char *err,
                    size_t errlen);

/* Each point's key: the Morton code of its finest cell in the cube. */
void vx_part_keys(const vx_part_cube *cube, const double *pos, int n, uint32_t *keys);
/* The same of positions in double (pos_float 0) or float (1), as the octree reads either. */
void vx_part_keys_of(const vx_part_cube *cube, const void *pos, int pos_float, int n, uint32_t *keys);

/* split[0..size]: rank r owns the keys in [split[r], split[r+1]); split[0] = 0, split[size] =
 * 2^30, the same on every rank. Each split[r] is the largest key s with cost(keys < s) <= r/size of
 * the total (cost: n values >= 0, NULL for 1 each), found bit by bit with one reduction a bit, so a
 * rank's share exceeds its target by at most the cost of the points in one finest cell. */
int vx_part_splitters(const vx_comm *c, const uint32_t *keys, const double *cost, int n, uint32_t *split,
                      char *err, size_t errlen);

/* The ranks' key ranges as the halo reads them (halo.h: least and greatest key of each, R pairs) from
 * split[0..R]. */
void vx_part_ranges(const uint32_t *split, int R, uint32_t *ranges);

/* The rank that owns `key`. */
int vx_part_owner(const uint32_t *split, int size, uint32_t key);

/* Moves n records of rec_bytes each (record i with key keys[i]) to their owners. *out (malloc'ed;
 * the caller frees it) receives *nout records: those from rank 0 first, then rank 1's, each
 * rank's in its original order, so the result depends only on the inputs. */
int vx_part_migrate(const vx_comm *c, const uint32_t *split, const uint32_t *keys, int n, const void *rec,
                    size_t rec_bytes, void **out, int *nout, char *err, size_t errlen);

/* The copies of n records (rb bytes each) going to any ranks, record i to dest[start[i] .. start[i+1]),
 * packed by rank into *packed (malloc'ed), each rank's in the records' order; count[r] and displ[r] (R
 * each) in bytes. The copies to rank `skip` are left out (count 0; -1: none left out). Not collective.
 * 0, or -1 out of memory. */
int vx_part_pack(int R, int skip, const int *start, const int *dest, int n, const void *records, size_t rb, char **packed,
                 int *count, int *displ);
/* Sends copies of records to any ranks: record i to dest[start[i] .. start[i+1]) (start: n+1
 * offsets). *out and *nout as vx_part_migrate's. */
int vx_part_exchange(const vx_comm *c, const int *start, const int *dest, int n, const void *rec, size_t rec_bytes,
                     void **out, int *nout, char *err, size_t errlen);

/* max over ranks of the local cost divided by the mean (1: perfect balance); 0 when it fails. */
double vx_part_imbalance(const vx_comm *c, double local_cost);

#endif
