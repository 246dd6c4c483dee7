/*
 * a2a.h — the public API of liba2a: all-to-all kernels with MPI-like signatures.
 *
 * Every kernel can replace the MPI collective of the same shape:
 *   A2A_Alltoall_<name>(sbuf, scount, stype, rbuf, rcount, rtype, comm, <tuning...>, stats)
 *   A2A_Alltoallv_<name>(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype,
 *                        comm, <tuning...>, stats)
 *
 * Contract shared by all kernels:
 *  - the send buffer is never written; the receive buffer is never read before the
 *    kernel wrote it (no flags in user memory);
 *  - only the communicator passed in is used (never MPI_COMM_WORLD);
 *  - everything the kernel allocates is freed before it returns;
 *  - communicators: intracommunicators. An intercommunicator (or MPI_COMM_NULL) is
 *    refused with MPI_ERR_COMM on every rank before anything is sent;
 *  - datatypes: any committed datatype, and the send and receive types may differ from
 *    rank to rank as MPI allows (only the type signatures must match). A type whose
 *    typemap is one ascending run of bytes from lower bound 0 to its extent
 *    (A2A_Type_bytes) is used in place; the kernels that copy bytes themselves (bruck,
 *    tra, tra2, hint) pack any other type into a staging buffer with MPI_Pack and unpack
 *    the result with MPI_Unpack, each rank deciding alone; the others hand the type to
 *    MPI. So a permuted or overlapping "contiguous" type gives MPI's result, never
 *    reordered bytes. (tuna, tuna_staggered, tuna_coalesced and twophase_bruck refuse a
 *    type that is not one ascending run with MPI_ERR_TYPE; the in-place and SDDE kernels
 *    take only such types, see their headers);
 *  - large counts: no message carries more than INT_MAX bytes: kernels that form byte
 *    counts split a larger round into several messages; a kernel that cannot refuses
 *    with MPI_ERR_COUNT, on every rank alike and before any data moved (the tuned
 *    dispatcher then runs the MPI library's collective instead);
 *  - return value: MPI_SUCCESS, or an MPI error code (MPI_ERR_ARG for a tuning
 *    parameter out of range, MPI_ERR_COMM, MPI_ERR_TYPE for an invalid type,
 *    MPI_ERR_COUNT, MPI_ERR_NO_MEM); the kernels return errors and do not call the
 *    communicator's error handler (the dispatcher A2A_Alltoall(v) does, as MPI would);
 *  - stats may be NULL. When given, the kernel ADDS what it did to it (the caller zeroes
 *    it first); temp_bytes is combined with max, not added.
 */
#ifndef A2A_H
#define A2A_H

#include <mpi.h>
#include "a2a_stats.h" /* a2a_stats, which every kernel takes */

#ifdef __cplusplus
extern "C" {
#endif

/* ---- uniform all-to-all (MPI_Alltoall shape) ------------------------------------ */

/* The MPI library's own MPI_Alltoall. */
int A2A_Alltoall_vendor(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                        int rcount, MPI_Datatype rtype, MPI_Comm comm, a2a_stats *stats);
/* Spread-out: all Irecv/Isend at once, round-robin peers (rank+i, rank-i); none for
 * blocks of 0 bytes. */
int A2A_Alltoall_spread_out(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                            int rcount, MPI_Datatype rtype, MPI_Comm comm, a2a_stats *stats);
/* Pairwise exchange: P-1 rounds of MPI_Sendrecv with (rank+i, rank-i). */
int A2A_Alltoall_pairwise(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                          int rcount, MPI_Datatype rtype, MPI_Comm comm, a2a_stats *stats);
/* Scattered: spread-out in batches of block_count peers, each batch completed before
 * the next (MPICH's throttle), none for blocks of 0 bytes. block_count in [1, P]. */
int A2A_Alltoall_scattered(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                           int rcount, MPI_Datatype rtype, MPI_Comm comm, int block_count,
                           a2a_stats *stats);
/* Classic Bruck, radix 2: rotation, ceil(log2 P) rounds, inverse rotation. */
int A2A_Alltoall_bruck(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                       int rcount, MPI_Datatype rtype, MPI_Comm comm, a2a_stats *stats);
/* TRA: tunable-radix Bruck, radix in [2, max(2, P)], any P. */
int A2A_Alltoall_tra(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                     int rcount, MPI_Datatype rtype, MPI_Comm comm, int radix,
                     a2a_stats *stats);
/* TRA2: TRA inside each node with radix_local in [2, Q], then TRA across the N = P/Q
 * nodes with radix_global in [2, N]; ppn = Q, or 0 for the real node size. P % Q == 0. */
int A2A_Alltoall_tra2(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                      int rcount, MPI_Datatype rtype, MPI_Comm comm, int radix_local,
                      int radix_global, int ppn, a2a_stats *stats);

/* Pairwise exchange as MPICH runs it: P-1 rounds of MPI_Sendrecv with partner rank XOR i
 * when P is a power of two, else sending to rank+i and receiving from rank-i. */
int A2A_Alltoall_pairwise_xor(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                              int rcount, MPI_Datatype rtype, MPI_Comm comm, a2a_stats *stats);
/* Open MPI's linear_sync: receives from rank+1, rank+2, ..., sends to rank-1, rank-2, ...,
 * at most block_count of each outstanding, each completed one replaced by the next.
 * block_count in [1, P]; P-1 or more posts all at once (Open MPI's basic linear). */
int A2A_Alltoall_linear_sync(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                             int rcount, MPI_Datatype rtype, MPI_Comm comm, int block_count,
                             a2a_stats *stats);

/* ---- the vendors' selections, rebuilt from liba2a's kernels ------------------------
 * So that the baseline is the same algorithm under every backend (Open MPI, MPICH,
 * SimGrid), the decisions of two MPI libraries are rebuilt here on liba2a's kernels.
 * Their constants are declared once, below, with the libraries' defaults. */

/* MPICH 4 (and Cray MPICH, derived from it), MPI_Alltoall on an intracommunicator without
 * MPI_IN_PLACE, per-block bytes b = sendcount * size(sendtype): b = 0 moves nothing;
 * Bruck when b <= SHORT and P >= BRUCK_MIN_P; else scattered (THROTTLE peers a batch)
 * when b <= MEDIUM; else pairwise (XOR partners for P a power of two). MPI_Alltoallv:
 * scattered with THROTTLE peers a batch, blocks of 0 bytes skipped. THROTTLE = 0 means
 * all peers in one batch. Sources: MPIR_CVAR_ALLTOALL_SHORT_MSG_SIZE (256),
 * MPIR_CVAR_ALLTOALL_MEDIUM_MSG_SIZE (32768), MPIR_CVAR_ALLTOALL_THROTTLE (32; also the
 * batch of MPIR_Alltoallv_intra_scattered, which has no cvar of its own), declared in
 * MPICH's src/mpi/coll/alltoall/alltoall.c; the comparisons are those of
 * MPIR_Alltoall_intra_auto there and of MPICH 4's maint/tuning/coll/mpir/generic.json
 * ("comm_size<8": scattered up to avg_msg_size<=32768, else pairwise; otherwise
 * avg_msg_size<=256 brucks, <=32768 scattered, else pairwise). */
#define A2A_MPICH_ALLTOALL_SHORT_MSG_SIZE 256
#define A2A_MPICH_ALLTOALL_MEDIUM_MSG_SIZE 32768
#define A2A_MPICH_ALLTOALL_THROTTLE 32
#define A2A_MPICH_ALLTOALL_BRUCK_MIN_P 8 /* "comm_size >= 8": in MPICH's code, not a cvar */

/* Open MPI 4.1 coll/tuned without dynamic rules: the fixed decision
 * ompi_coll_tuned_alltoall_intra_dec_fixed (ompi/mca/coll/tuned/coll_tuned_decision_fixed.c)
 * picks linear, pairwise, modified_bruck, linear_sync or two_proc by communicator size and
 * per-block bytes dsize * scount (strict "<" bounds); linear_sync runs with
 * coll_tuned_alltoall_algorithm_max_requests outstanding requests (0 = all, the default,
 * ompi_info of Open MPI 4.1.4). MPI_Alltoallv (ompi_coll_tuned_alltoallv_intra_dec_fixed):
 * pairwise for P < 4, 64 <= P < 128 and 256 <= P < 1024, basic linear otherwise. */
#define A2A_OMPI_ALLTOALL_MAX_REQUESTS 0

/* Which of liba2a's kernels a vendor's selection runs for one call. */
typedef struct a2a_vendor_choice {
    const char *vendor_algorithm; /* the library's name for it ("brucks", "linear_sync", ...);
                                   * "none" when nothing moves */
    const char *kernel;           /* the liba2a kernel of the same family that runs it, NULL
                                   * when nothing moves */
    int block_count;              /* that kernel's block_count, 0 when it takes none */
} a2a_vendor_choice;

/* MPICH's choice at communicator size P for blocks of block_bytes bytes. */
a2a_vendor_choice A2A_Alltoall_mpich_selection_choice(int P, long long block_bytes);
/* MPI_Alltoall as MPICH 4 selects and runs it, on liba2a's kernels (see above). */
int A2A_Alltoall_mpich_selection(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                                 int rcount, MPI_Datatype rtype, MPI_Comm comm,
                                 a2a_stats *stats);
/* Open MPI 4.1 coll/tuned's fixed choice at communicator size P for blocks of block_bytes. */
a2a_vendor_choice A2A_Alltoall_ompi_tuned_selection_choice(int P, long long block_bytes);
/* MPI_Alltoall as Open MPI 4.1 coll/tuned selects and runs it, on liba2a's kernels. */
int A2A_Alltoall_ompi_tuned_selection(const void *sbuf, int scount, MPI_Datatype stype,
                                      void *rbuf, int rcount, MPI_Datatype rtype,
                                      MPI_Comm comm, a2a_stats *stats);

/* ---- non-uniform all-to-all (MPI_Alltoallv shape) -------------------------------- */

/* The MPI library's own MPI_Alltoallv. */
int A2A_Alltoallv_vendor(const void *sbuf, const int *scounts, const int *sdispls,
                         MPI_Datatype stype, void *rbuf, const int *rcounts,
                         const int *rdispls, MPI_Datatype rtype, MPI_Comm comm,
                         a2a_stats *stats);
/* Spread-out: all Irecv/Isend at once, round-robin peers; none for a block of 0 bytes
 * (as MPICH's and Open MPI's alltoallv: both sides know its size). */
int A2A_Alltoallv_spread_out(const void *sbuf, const int *scounts, const int *sdispls,
                             MPI_Datatype stype, void *rbuf, const int *rcounts,
                             const int *rdispls, MPI_Datatype rtype, MPI_Comm comm,
                             a2a_stats *stats);
/* Scattered: spread-out in batches of block_count peers (MPICH), none for a block of 0
 * bytes; block_count in [1, P]. */
int A2A_Alltoallv_scattered(const void *sbuf, const int *scounts, const int *sdispls,
                            MPI_Datatype stype, void *rbuf, const int *rcounts,
                            const int *rdispls, MPI_Datatype rtype, MPI_Comm comm,
                            int block_count, a2a_stats *stats);
/* Linear (Open MPI basic): all requests posted in ascending rank order, none for a
 * block of 0 bytes. */
int A2A_Alltoallv_linear(const void *sbuf, const int *scounts, const int *sdispls,
                         MPI_Datatype stype, void *rbuf, const int *rcounts,
                         const int *rdispls, MPI_Datatype rtype, MPI_Comm comm,
                         a2a_stats *stats);
/* Pairwise (Open MPI): per round one Irecv and a blocking Send, then wait. */
int A2A_Alltoallv_pairwise(const void *sbuf, const int *scounts, const int *sdispls,
                           MPI_Datatype stype, void *rbuf, const int *rcounts,
                           const int *rdispls, MPI_Datatype rtype, MPI_Comm comm,
                           a2a_stats *stats);
/* Two-phase non-uniform Bruck (radix 2): block sizes first, then data, each round. */
int A2A_Alltoallv_twophase_bruck(const void *sbuf, const int *scounts, const int *sdispls,
                                 MPI_Datatype stype, void *rbuf, const int *rcounts,
                                 const int *rdispls, MPI_Datatype rtype, MPI_Comm comm,
                                 a2a_stats *stats);
/* TuNA: tunable radix in [2, max(2, P)], block_count in [1, radix-1] sub-rounds in flight. */
int A2A_Alltoallv_tuna(const void *sbuf, const int *scounts, const int *sdispls,
                       MPI_Datatype stype, void *rbuf, const int *rcounts,
                       const int *rdispls, MPI_Datatype rtype, MPI_Comm comm, int radix,
                       int block_count, a2a_stats *stats);
/* TuNA_l^g staggered: intra-node TuNA (radix in [2, Q]) then inter-node scattered, one
 * block per message, block_count messages a batch. ppn = Q or 0 for the real node. */
int A2A_Alltoallv_tuna_staggered(const void *sbuf, const int *scounts, const int *sdispls,
                                 MPI_Datatype stype, void *rbuf, const int *rcounts,
                                 const int *rdispls, MPI_Datatype rtype, MPI_Comm comm,
                                 int radix, int block_count, int ppn, a2a_stats *stats);
/* TuNA_l^g coalesced: as staggered, but Q blocks per inter-node message, N-1 rounds. */
int A2A_Alltoallv_tuna_coalesced(const void *sbuf, const int *scounts, const int *sdispls,
                                 MPI_Datatype stype, void *rbuf, const int *rcounts,
                                 const int *rdispls, MPI_Datatype rtype, MPI_Comm comm,
                                 int radix, int block_count, int ppn, a2a_stats *stats);

/* MPICH 4's alltoallv choice at communicator size P: always scattered (with the throttle). */
a2a_vendor_choice A2A_Alltoallv_mpich_selection_choice(int P);
/* MPI_Alltoallv as MPICH 4 runs it: scattered, A2A_MPICH_ALLTOALL_THROTTLE peers a batch,
 * no message for a block of 0 bytes. */
int A2A_Alltoallv_mpich_selection(const void *sbuf, const int *scounts, const int *sdispls,
                                  MPI_Datatype stype, void *rbuf, const int *rcounts,
                                  const int *rdispls, MPI_Datatype rtype, MPI_Comm comm,
                                  a2a_stats *stats);
/* Open MPI 4.1 coll/tuned's fixed alltoallv choice at communicator size P. */
a2a_vendor_choice A2A_Alltoallv_ompi_tuned_selection_choice(int P);
/* MPI_Alltoallv as Open MPI 4.1 coll/tuned selects and runs it (linear or pairwise). */
int A2A_Alltoallv_ompi_tuned_selection(const void *sbuf, const int *scounts,
                                       const int *sdispls, MPI_Datatype stype, void *rbuf,
                                       const int *rcounts, const int *rdispls,
                                       MPI_Datatype rtype, MPI_Comm comm, a2a_stats *stats);

/* ---- helpers shared by kernels and applications ---------------------------------- */

/* Bytes per element of a contiguous datatype in *bytes: one element's typemap is one
 * ascending run of bytes from lower bound 0 to its extent (read with
 * MPI_Type_get_envelope / MPI_Type_get_contents; the verdict on a derived type is cached
 * on it). MPI_ERR_TYPE otherwise: size != extent, lower bound != 0, entries out of order
 * (MPI_Type_indexed {1, 0}), overlapping, or built by a constructor not read here
 * (subarray, darray). */
int A2A_Type_bytes(MPI_Datatype type, MPI_Aint *bytes);

/* Processes per node Q for comm: ppn if ppn > 0, otherwise the size of the calling
 * rank's shared-memory node. Also returns the node index of the calling rank
 * (rank / Q) and its local rank (rank % Q), assuming ranks are numbered node by node.
 * MPI_ERR_ARG if P % Q != 0 or the real nodes are not numbered in blocks of Q. */
int A2A_Node_layout(MPI_Comm comm, int ppn, int *q, int *node, int *local_rank);

#ifdef __cplusplus
}
#endif

#include "a2a_inplace.h" /* in-place symmetric alltoallv kernels */
#include "a2a_sdde.h"    /* sparse dynamic data exchange: Alltoall_crs / Alltoallv_crs */
#include "a2a_tuned.h"   /* the tuned dispatcher A2A_Alltoall(v); vendor algorithms forced */
#include "a2a_hint.h"    /* HINT: intra-node all-to-all through shared windows */

#endif
