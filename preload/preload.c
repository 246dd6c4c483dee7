/*
 * preload.c — liba2a_preload.so: the tuned dispatcher for unmodified MPI programs.
 *
 *   A2A_TUNING_FILE=tuning.json LD_PRELOAD=build/openmpi/liba2a_preload.so mpirun ... ./app
 *
 * Defines MPI_Alltoall and MPI_Alltoallv (and MPI_Comm_free and MPI_Finalize, where the
 * online tuner closes its last windows), which the dynamic linker binds ahead of the MPI
 * library's, and routes each call through A2A_Alltoall / A2A_Alltoallv (kernels/tuned/
 * dispatch.c): the kernel the tuning file names, or the MPI library where the file has no
 * rule (PMPI_Alltoall(v)); A2A_VERBOSE=1 logs every choice. Inside a routed call, every
 * MPI_Alltoall(v) — the MPI library's own collective chosen by the file, or one a kernel
 * makes internally — goes straight to PMPI, so nothing is dispatched twice; so does one
 * made inside MPI_Comm_free (by an attribute's delete callback, perhaps on the
 * communicator being freed, to which the dispatcher must not attach its state). The
 * library must be built against the same MPI as the program (build/openmpi or build/mpich).
 *
 * Routed: blocking MPI_Alltoall and MPI_Alltoallv on intracommunicators, with separate
 * send and receive buffers, any datatypes. Left to the MPI library: intercommunicators,
 * MPI_IN_PLACE, calls the file has no valid rule for, calls a kernel refuses
 * (MPI_ERR_COUNT), and every other entry point: MPI_Alltoallw, the nonblocking
 * (MPI_Ialltoall(v)) and persistent (MPI_Alltoall(v)_init) collectives, the
 * neighbourhood collectives, and the Fortran bindings (they do not pass through these C
 * symbols).
 */
#include "a2a.h"

/* Guarantees: when the library is loaded, before the program's MPI_Init, the environment
 * lets vendor rules of the tuning file force the MPI library's algorithms
 * (A2A_Vendor_prepare: the dispatcher's program cannot call it itself). */
__attribute__((constructor)) static void prepare_vendor_forcing(void)
{
    A2A_Vendor_prepare();
}

static _Thread_local int inside; /* > 0 while a routed call is running on this thread */

/* The communicator A2A_Comm_free is freeing on this thread (its own MPI_Comm_free call
 * comes back here), or MPI_COMM_NULL. */
static _Thread_local MPI_Comm freeing = MPI_COMM_NULL;

/* Guarantees: the result of MPI_Alltoall; routed through the tuned dispatcher unless
 * already inside a routed call or inside MPI_Comm_free (a delete callback's call, maybe
 * on the communicator being freed, where the dispatcher must not attach its state: then
 * exactly PMPI_Alltoall). */
int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                 MPI_Datatype rtype, MPI_Comm comm)
{
    if (inside || freeing != MPI_COMM_NULL)
        return PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    inside++;
    int rc = A2A_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    inside--;
    return rc;
}

/* Guarantees: the result of MPI_Alltoallv; routed like MPI_Alltoall above. */
int MPI_Alltoallv(const void *sbuf, const int *scounts, const int *sdispls, MPI_Datatype stype,
                  void *rbuf, const int *rcounts, const int *rdispls, MPI_Datatype rtype,
                  MPI_Comm comm)
{
    if (inside || freeing != MPI_COMM_NULL)
        return PMPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm);
    inside++;
    int rc = A2A_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm);
    inside--;
    return rc;
}

/* Guarantees: MPI_Comm_free, after the online tuner has checked the communicator's
 * deferred-agreement window still open (A2A_Comm_free: nothing unless A2A_TUNING=online
 * and the communicator was tuned); exactly PMPI_Comm_free inside a routed call and for
 * A2A_Comm_free's own call. A communicator freed by a delete callback that MPI runs inside
 * that PMPI_Comm_free (another communicator, of the program's attribute) goes through
 * A2A_Comm_free too, its window checked before it is freed. */
int MPI_Comm_free(MPI_Comm *comm)
{
    if (inside || !comm || *comm == MPI_COMM_NULL || *comm == freeing)
        return PMPI_Comm_free(comm);
    MPI_Comm outer = freeing;
    freeing = *comm;
    int rc = A2A_Comm_free(comm);
    freeing = outer;
    return rc;
}

/* Guarantees: MPI_Finalize, after the online tuner has checked its last windows and
 * written its file (A2A_Tuning_finalize: nothing unless A2A_TUNING=online; the file only
 * with A2A_TUNING_OUT). */
int MPI_Finalize(void)
{
    A2A_Tuning_finalize();
    return PMPI_Finalize();
}
