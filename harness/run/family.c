/* family.c — choosing a family's operations table, and what every family shares: agreeing
 * on a status over the communicator, the text of an MPI error (see family.h). */
#include <stdio.h>
#include <stdlib.h>
#include "family.h"
#include "polite.h"

/* Guarantees: see family.h; the sparse families ignore the buffer placement. */
const family_ops *family_ops_of(const config *c)
{
    if (c->kernel->family == A2A_FAMILY_SDDE || c->kernel->family == A2A_FAMILY_SDDEV)
        return family_sparse_ops(c);
    return family_dense_ops(c);
}

/* Guarantees: see family.h; A2A_SIM_VALIDATE_UP_TO is set by `scripts/a2a simulate`. */
int family_sim_unvalidated(int P)
{
#ifdef A2A_SIMGRID
    const char *limit = getenv("A2A_SIM_VALIDATE_UP_TO");
    return P > (limit && *limit ? atoi(limit) : 64);
#else
    (void)P;
    return 0;
#endif
}

/* Guarantees: see family.h. Collective over comm. */
int family_agree(int status, char *msg, size_t len, MPI_Comm comm)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    int mine[2] = { status, status ? rank : 1 << 30 }, worst[2];
    polite_allreduce(&mine[0], &worst[0], 1, MPI_INT, MPI_MAX, comm);
    polite_allreduce(&mine[1], &worst[1], 1, MPI_INT, MPI_MIN, comm);
    if (worst[0] != CHECK_OK && worst[1] != 0) {
        if (rank == worst[1])
            MPI_Send(msg, (int)len, MPI_CHAR, 0, 7, comm);
        else if (rank == 0)
            MPI_Recv(msg, (int)len, MPI_CHAR, worst[1], 7, comm, MPI_STATUS_IGNORE);
    }
    return worst[0];
}

/* Guarantees: see family.h. */
void family_mpi_error(int code, const char *what, char *msg, size_t len)
{
    char text[MPI_MAX_ERROR_STRING];
    int n = 0;
    if (MPI_Error_string(code, text, &n) != MPI_SUCCESS)
        snprintf(text, sizeof text, "code %d", code);
    snprintf(msg, len, "%.100s returned an MPI error: %.300s", what, text);
}

/* Guarantees: see family.h. */
int family_sent_check(long long counted, long long owed, int rank, char *msg, size_t len)
{
    if (counted <= 0 || counted >= owed)
        return CHECK_OK;
    snprintf(msg, len, "rank %d sent %lld payload bytes to other ranks, fewer than the %lld it "
             "owes them (payloads not compared: the kernel's own count checked)", rank, counted, owed);
    return CHECK_WRONG;
}
