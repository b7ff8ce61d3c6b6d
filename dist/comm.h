/* comm.h — the MPI communicator the distributed engine runs on (papers 002 and 004: one rank per
 * GPU, or per process with the CPU backend). Every MPI call in dist/ goes through vx_comm_check, so
 * a failure becomes one line naming the call and MPI's own reason; the communicator returns errors
 * instead of aborting, and vx_comm_agree lets every rank learn that one of them failed. */
#ifndef VX_COMM_H
#define VX_COMM_H

#include <stddef.h>
#include <mpi.h>

typedef struct {
  MPI_Comm comm; /* a duplicate of the caller's, errors returned */
  int rank, size;
} vx_comm;

/* Duplicates `parent` into c (errors returned, not fatal). 0, or -1 with the reason in err. */
int vx_comm_create(MPI_Comm parent, vx_comm *c, char *err, size_t errlen);
/* Frees what vx_comm_create made; safe on a zeroed vx_comm. */
void vx_comm_destroy(vx_comm *c);

/* 0 when rc is MPI_SUCCESS; else -1 with "CALL: MPI's reason" in err. */
int vx_comm_check(int rc, const char *call, char *err, size_t errlen);

/* Collective: 1 when `ok` is nonzero on every rank, else 0 (also 0 when the reduction itself fails). */
int vx_comm_agree(const vx_comm *c, int ok);

/* Collective, after a failure the ranks agreed on: on every rank, the lowest rank whose own reason
 * `mine` is not empty into *first (-1: none has one), how many have one into *count, and that
 * rank's reason into out — so that one rank can say it once. 0, or -1 when MPI itself fails. */
int vx_comm_first_error(const vx_comm *c, const char *mine, int *first, int *count, char *out, size_t outlen);

#endif
