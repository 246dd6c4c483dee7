/* v_staging.h — the common entry of the non-uniform kernels that copy bytes (tuna,
 * tuna_staggered, tuna_coalesced, twophase_bruck): the kernel prologue, then staging of a
 * side whose type is not one ascending run (a2a_stage), the kernel's body on run types,
 * and unstaging (internal). */
#ifndef A2A_V_STAGING_H
#define A2A_V_STAGING_H

#include "kernel_util.h"

/* The kernel-specific arguments a body takes besides the call's (the TuNA_l^g kernels
 * also hand their shared body, in tuna_local.c, how their inter-node messages group blocks
 * and their inter-node phase: a2a_tuna_message and a2a_tuna_inter_node of tuna_local.h),
 * and what the entry already knows of the call: the element sizes of the (run) types and
 * the caller's rank and size in comm. */
struct a2a_tuna_hier;
typedef struct a2a_v_args {
    int radix, block_count, ppn;
    int message;
    int (*inter_node)(struct a2a_tuna_hier *hier, a2a_stats *stats);
    MPI_Aint sbytes, rbytes; /* filled by a2a_v_staged */
    int rank, size;          /* filled by a2a_v_staged */
} a2a_v_args;

/* A kernel body: called with the counts and displacements in elements of args->sbytes
 * (send) and args->rbytes (receive) bytes, each element one ascending run (the staged
 * side where the caller's type was not), and with the communicator the caller gave. */
typedef int (*a2a_v_body)(const void *sbuf, const int *scounts, const int *sdispls,
                          void *rbuf, const int *rcounts, const int *rdispls, MPI_Comm comm,
                          const a2a_v_args *args, a2a_stats *stats);

/* Guarantees: MPI_ERR_COMM for an intercommunicator or MPI_COMM_NULL and MPI_ERR_TYPE for
 * an invalid type, on every rank alike and before anything is sent; otherwise body's
 * result on the call, with any side whose type is not one ascending run packed into a
 * staging buffer first (MPI_Pack; decided on each rank alone: only type signatures must
 * match) and unpacked into the user's receive buffer after a successful body. Two
 * predefined run types (MPI_BYTE, MPI_INT, ...) go to the body without any inspection. */
static inline int a2a_v_staged(a2a_v_body body, const a2a_v_args *args, A2A_V_PARAMS,
                               a2a_stats *stats)
{
    a2a_v_args call = *args;
    int err = a2a_kernel_prologue(comm, stype, rtype, &call.rank, &call.size);
    if (err != MPI_SUCCESS)
        return err;
    call.sbytes = a2a_basic_run_type(stype);
    call.rbytes = a2a_basic_run_type(rtype);
    if (call.sbytes > 0 && call.rbytes > 0)
        return body(sbuf, scounts, sdispls, rbuf, rcounts, rdispls, comm, &call, stats);
    a2a_side send = { (void *)sbuf, stype, scounts, sdispls, 0 };
    a2a_side recv = { rbuf, rtype, rcounts, rdispls, 0 };
    a2a_staging st;
    if ((err = a2a_stage(&st, call.size, &send, &recv, comm, stats)) != MPI_SUCCESS)
        return err;
    if ((err = A2A_Type_bytes(send.type, &call.sbytes)) == MPI_SUCCESS &&
        (err = A2A_Type_bytes(recv.type, &call.rbytes)) == MPI_SUCCESS)
        err = body(send.buf, scounts, sdispls, recv.buf, rcounts, rdispls, comm, &call, stats);
    return a2a_unstage(&st, err);
}

#endif
