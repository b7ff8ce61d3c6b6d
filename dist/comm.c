/* comm.c — the checked MPI communicator (comm.h). */
#include "comm.h"

#include <stdio.h>
#include <string.h>

int vx_comm_check(int rc, const char *call, char *err, size_t errlen) {
  if (rc == MPI_SUCCESS) return 0;
  char why[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, why, &len) != MPI_SUCCESS) snprintf(why, sizeof why, "MPI error %d", rc);
  if (err && errlen) snprintf(err, errlen, "%s: %s", call, why);
  return -1;
}

int vx_comm_create(MPI_Comm parent, vx_comm *c, char *err, size_t errlen) {
  memset(c, 0, sizeof *c);
  c->comm = MPI_COMM_NULL;
  if (vx_comm_check(MPI_Comm_dup(parent, &c->comm), "MPI_Comm_dup", err, errlen)) return -1;
  if (vx_comm_check(MPI_Comm_set_errhandler(c->comm, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler", err, errlen) ||
      vx_comm_check(MPI_Comm_rank(c->comm, &c->rank), "MPI_Comm_rank", err, errlen) ||
      vx_comm_check(MPI_Comm_size(c->comm, &c->size), "MPI_Comm_size", err, errlen)) {
    vx_comm_destroy(c);
    return -1;
  }
  return 0;
}

void vx_comm_destroy(vx_comm *c) {
  if (c->comm != MPI_COMM_NULL && c->comm != 0) MPI_Comm_free(&c->comm);
  c->comm = MPI_COMM_NULL;
}

int vx_comm_agree(const vx_comm *c, int ok) {
  int mine = ok ? 1 : 0, all = 0;
  if (MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, c->comm) != MPI_SUCCESS) return 0;
  return all;
}

int vx_comm_first_error(const vx_comm *c, const char *mine, int *first, int *count, char *out, size_t outlen) {
  const int has = mine && mine[0];
  int lo = has ? c->rank : c->size, n = has;
  char buf[512] = "";
  *first = -1, *count = 0;
  if (outlen) out[0] = 0;
  if (MPI_Allreduce(&lo, first, 1, MPI_INT, MPI_MIN, c->comm) != MPI_SUCCESS ||
      MPI_Allreduce(&n, count, 1, MPI_INT, MPI_SUM, c->comm) != MPI_SUCCESS)
    return *first = -1, -1;
  if (*first >= c->size) return *first = -1, 0;
  if (c->rank == *first) snprintf(buf, sizeof buf, "%s", mine);
  if (MPI_Bcast(buf, (int)sizeof buf, MPI_CHAR, *first, c->comm) != MPI_SUCCESS) return -1;
  if (outlen) snprintf(out, outlen, "%s", buf);
  return 0;
}
