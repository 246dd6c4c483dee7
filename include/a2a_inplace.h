/*
 * a2a_inplace.h — in-place symmetric alltoallv kernels (included at the end of a2a.h).
 *
 * Each kernel replaces MPI_Alltoallv(MPI_IN_PLACE, ..., buf, counts, displs, type, comm)
 * for a SYMMETRIC exchange: count[i][j] == count[j][i] for every pair of ranks, so on each
 * rank the send counts equal the receive counts and one displacement array (in elements
 * of `type`) describes the one buffer. On return, block j of buf (counts[j] elements at
 * displs[j]) holds what rank j had in its block for this rank; the own block and every
 * byte outside the blocks are left untouched. Blocks must not overlap. Following Hofmann
 * and Rünger, "In-place Algorithms for the Symmetric All-to-all Exchange with MPI"
 * (EuroMPI 2013), every kernel but the vendor one is a global schedule of pairwise
 * exchanges: rank i and rank j swap block j of rank i with block i of rank j, each pair
 * once (self-exchanges are skipped; zero-count exchanges are performed like the others,
 * the paper's pseudocode has no count test). All ranks of comm must call the same kernel
 * with symmetric counts. Messages use tag 0 on comm, as the other kernels of liba2a.
 *
 * Steps: the paper counts "consecutive communication steps": each process takes part in
 * at most one pairwise exchange per step, and an exchange takes place in the first step
 * in which both partners have completed their earlier exchanges. `rounds` in a2a_stats is
 * the total number of steps of the kernel's schedule for the communicator size p, the
 * SAME value on every rank (steps in which a rank is idle count as well); it depends on p
 * only. rounds_local and rounds_global are not touched.
 * blocks / messages: one per exchange with another rank (p - 1 per call, zero-count
 * exchanges included); bytes: the payload bytes sent, sum of counts[j] * size(type) over
 * j != rank. temp_bytes: peak bytes of DATA buffers the kernel allocated (small index or
 * request arrays of O(p) entries are not counted). MPI_Sendrecv_replace itself may stage
 * one message inside the MPI library; that memory is the library's and not counted.
 *
 * Errors: MPI_ERR_TYPE for a type whose data is not contiguous, MPI_ERR_ARG for
 * aux_bytes < 0, otherwise what the MPI calls return.
 */
#ifndef A2A_INPLACE_H
#define A2A_INPLACE_H

#include "a2a_stats.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The MPI library's own MPI_Alltoallv(MPI_IN_PLACE, ...). stats are left untouched (the
 * library's algorithm and memory use are not visible). */
int A2A_Alltoallv_inplace_vendor(void *buf, const int *counts, const int *displs,
                                 MPI_Datatype type, MPI_Comm comm, a2a_stats *stats);

/* MPICH's order (paper Fig. 1): for i = 0..p-1, for j = i..p-1, ranks i and j exchange
 * with MPI_Sendrecv_replace; the self-exchange (i == j) is skipped. Each rank therefore
 * meets its peers in ascending order, one blocking exchange at a time; the double loop
 * costs O(p^2) iterations on every rank, as in MPICH. Steps: the paper's 2p - 1 counts
 * the self-exchanges, whose first and last steps contain nothing else; without them the
 * exchange (i, j), i < j, happens in step i + j, so rounds = 2p - 3 for p >= 2, 0 for
 * p = 1. temp_bytes = 0. */
int A2A_Alltoallv_inplace_mpich_order(void *buf, const int *counts, const int *displs,
                                      MPI_Datatype type, MPI_Comm comm,
                                      a2a_stats *stats);

/* Linear shift algorithm, LSA (paper Fig. 3): in iteration i = 0..p-1 the rank exchanges
 * with j = (i - rank + p) mod p unless j == rank (MPI_Sendrecv_replace). Both partners
 * of an exchange are in the same iteration, so iteration i is step i + 1: rounds = p for
 * p >= 3 (p = 2: 1, the first iteration is idle on both ranks; p = 1: 0). Idle ranks per
 * step: exactly one for odd p; for even p, two (ranks i/2 and i/2 + p/2) in the steps of
 * even i and none in the others — the paper's "at most one" holds for odd p only.
 * temp_bytes = 0. */
int A2A_Alltoallv_inplace_linear_shift(void *buf, const int *counts, const int *displs,
                                       MPI_Datatype type, MPI_Comm comm,
                                       a2a_stats *stats);

/* Hierarchical sets algorithm, HSA (paper Fig. 4): the rank range [low, high) is halved
 * at mid = floor((low + high) / 2); the two halves exchange with a shifted linear order
 * (as many steps as the larger half has ranks), then each half recurses on its own
 * (MPI_Sendrecv_replace). rounds = T(p) with T(1) = 0, T(m) = ceil(m/2) + T(ceil(m/2)):
 * exactly p - 1 when p is a power of two, at most p + ceil(log2 p) - 2 otherwise.
 * temp_bytes = 0. */
int A2A_Alltoallv_inplace_hier_sets(void *buf, const int *counts, const int *displs,
                                    MPI_Datatype type, MPI_Comm comm,
                                    a2a_stats *stats);

/* HSA with an auxiliary buffer of at most aux_bytes (paper section 3.4): exchanges are
 * taken in HSA order; one whose outgoing block fits the still free part of the auxiliary
 * buffer (first fit, space is not reused within a call) is copied there and done with
 * MPI_Isend from the copy and MPI_Irecv into the block, the others with
 * MPI_Sendrecv_replace; all non-blocking exchanges complete before return. The buffer is
 * allocated once with exactly the bytes the copies need, so temp_bytes <= aux_bytes.
 * An empty exchange always fits, so aux_bytes = 0 is HSA except that exchanges of 0
 * elements are non-blocking; aux_bytes >= the rank's outgoing bytes makes every exchange
 * non-blocking. If that allocation fails the kernel falls back to HSA (no error, no
 * hang). rounds = the HSA steps T(p) (the order in which exchanges are started is HSA's).
 * MPI_ERR_ARG if aux_bytes < 0. */
int A2A_Alltoallv_inplace_hier_sets_aux(void *buf, const int *counts, const int *displs,
                                        MPI_Datatype type, MPI_Comm comm,
                                        long long aux_bytes, a2a_stats *stats);

#ifdef __cplusplus
}
#endif

#endif
