/* v_staging.h — the common entry of the non-uniform kernels that copy bytes (tuna,
 * tuna_staggered, tuna_coalesced, twophase_bruck): the kernel prologue, then staging of a
 * side whose type is not one ascending run (a2a_stage), the kernel's body on run types,
 * and unstaging (internal). */
#ifndef A2A_V_STAGING_H
#define A2A_V_STAGING_H

#include "kernel_util.h"

/* The kernel-specific arguments a body takes besides the call's. */
typedef struct a2a_v_args {
    int radix, block_count, ppn;
} a2a_v_args;

/* A kernel body: called with send and receive types that are ascending runs (size =
 * extent, lower bound 0) and with the communicator the caller gave. */
typedef int (*a2a_v_body)(const void *sbuf, const int *scounts, const int *sdispls,
                          MPI_Datatype stype, void *rbuf, const int *rcounts,
                          const int *rdispls, MPI_Datatype rtype, MPI_Comm comm,
                          const a2a_v_args *args, a2a_stats *stats);

/* Guarantees: MPI_ERR_COMM for an intercommunicator or MPI_COMM_NULL and MPI_ERR_TYPE for
 * an invalid type, on every rank alike and before anything is sent; otherwise body's
 * result on the call, with any side whose type is not one ascending run packed into a
 * staging buffer first (MPI_Pack; decided on each rank alone: only type signatures must
 * match) and unpacked into the user's receive buffer after a successful body. */
static inline int a2a_v_staged(a2a_v_body body, const a2a_v_args *args, const void *sbuf,
                               const int *scounts, const int *sdispls, MPI_Datatype stype,
                               void *rbuf, const int *rcounts, const int *rdispls,
                               MPI_Datatype rtype, MPI_Comm comm, a2a_stats *stats)
{
    int rank, size, err;
    if ((err = a2a_kernel_prologue(comm, stype, rtype, &rank, &size)) != MPI_SUCCESS)
        return err;
    a2a_side send = { (void *)sbuf, stype, scounts, sdispls, 0 };
    a2a_side recv = { rbuf, rtype, rcounts, rdispls, 0 };
    a2a_staging st;
    if ((err = a2a_stage(&st, size, &send, &recv, comm, stats)) != MPI_SUCCESS)
        return err;
    err = body(send.buf, scounts, sdispls, send.type, recv.buf, rcounts, rdispls, recv.type,
               comm, args, stats);
    return a2a_unstage(&st, err);
}

#endif
