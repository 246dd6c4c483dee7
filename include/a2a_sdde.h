/*
 * a2a_sdde.h — sparse dynamic data exchange (SDDE): Alltoall_crs and Alltoallv_crs.
 *
 * Each rank knows the messages it sends (destinations and data) but not who sends to
 * it; one call delivers every message and tells each rank its sources. The API follows
 * Table I of "A More Scalable Sparse Dynamic Data Exchange" (Bienz et al.), MPI-like:
 *
 *   A2A_Alltoall_crs_<alg>(send_nnz, dest, sendcount, sendtype, sendvals,
 *                          recv_nnz, src, recvcount, recvtype, recvvals,
 *                          [ppn,] comm, stats)
 *   A2A_Alltoallv_crs_<alg>(send_nnz, send_size, dest, sendcounts, sdispls, sendtype,
 *                           sendvals, recv_nnz, recv_size, src, recvcounts, rdispls,
 *                           recvtype, recvvals, [ppn,] comm, stats)
 *
 * Send side (input, never written):
 *   send_nnz            number of messages this rank sends (>= 0);
 *   dest[i]             destination of message i, in [0, P); entries must be distinct
 *                       (one message per destination); the rank itself is allowed;
 *   constant size:      every message is sendcount elements of sendtype, message i at
 *                       sendvals + i * sendcount elements; sendcount is the same on all
 *                       ranks and sendcount * size(sendtype) == recvcount * size(recvtype);
 *   variable size:      message i is sendcounts[i] elements at sendvals + sdispls[i]
 *                       elements; send_size bounds the send buffer: sdispls[i] +
 *                       sendcounts[i] <= send_size. Messages of 0 elements are messages
 *                       (the receiver lists their source with a count of 0).
 * Receive side:
 *   *recv_nnz           number of messages received. Input when >= 0 (it must then be
 *                       exact; the personalized algorithms skip their MPI_Allreduce, the
 *                       non-blocking ones their synchronous-send termination), otherwise
 *                       pass -1 and the algorithm finds it. Always set on success.
 *   *recv_size          (v only) total elements of recvtype received; input when >= 0
 *                       (must be exact), otherwise pass -1. Always set on success.
 *   *src                malloc'ed array of *recv_nnz source ranks, ascending;
 *   *recvcounts         (v only) malloc'ed, *recv_nnz counts in elements of recvtype;
 *   *rdispls            (v only) malloc'ed, *recv_nnz displacements (prefix sums of
 *                       recvcounts, so messages lie back to back in source order);
 *   *recvvals           malloc'ed; the payload of the message from (*src)[i] at
 *                       element i * recvcount (constant) or (*rdispls)[i] (v).
 *   Every returned array belongs to the caller, who releases it with free(). An array
 *   with nothing to hold (no message, or no payload bytes) is returned as NULL. On error
 *   nothing is allocated: *src, *recvvals (and *recvcounts, *rdispls) are set to NULL.
 *   Results are sorted by source rank, so every algorithm returns identical output.
 *
 * Contract as for every liba2a kernel (see a2a.h): contiguous datatypes (MPI_ERR_TYPE
 * otherwise), only comm is used, everything temporary is freed. MPI_ERR_ARG for a
 * destination out of range, negative counts or a displacement outside send_size;
 * MPI_ERR_COUNT when a given recv_nnz / recv_size disagrees with what arrived (the
 * algorithms that trust recv_nnz cannot always detect a wrong one: it is erroneous);
 * MPI_ERR_TRUNCATE when a message's bytes are not a whole number of recvtype elements
 * (v) or differ from recvcount elements (constant).
 *
 * Consecutive calls on one communicator need no barrier in between: messages carry a
 * tag derived from a per-communicator call counter (cached as an attribute of comm), so
 * a rank that runs ahead into the next call cannot be mistaken for a sender of this one
 * (unless it runs 128 calls ahead, which only the personalized algorithms with a given
 * recv_nnz allow in principle). The SDDE kernels use only tags in [0x4000, 0x4fff];
 * other kernels sharing a communicator with them must stay out of that range.
 *
 * Stats (when stats != NULL, added to what the caller zeroed): `messages`, `blocks`,
 * `bytes` count point-to-point messages or puts to other ranks, the original messages
 * they carry and their payload bytes (self-messages are copies and not counted);
 * `meta_bytes` the headers of aggregated messages; `rounds` = messages sent,
 * `rounds_global` = of those, the ones sent to another region (the non-locality
 * algorithms have no regions: every rank is its own region, so rounds_global = rounds),
 * `rounds_local` = the ones sent inside the region; so the maximum of rounds_global over
 * ranks is the paper's "maximum inter-region messages". Collectives used for counting
 * (MPI_Allreduce, MPI_Ibarrier, window fences) are not messages. `temp_bytes` is the
 * peak of temporary memory (not the returned arrays).
 */
#ifndef A2A_SDDE_H
#define A2A_SDDE_H

#include "a2a_stats.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- constant-size SDDE (MPIX_Alltoall_crs) --------------------------------------- */

/* Personalized (Algorithm 1): MPI_Allreduce of a P-entry indicator to learn how many
 * messages arrive (skipped when *recv_nnz >= 0), MPI_Isend of every message, then
 * MPI_Mprobe/MPI_Mrecv from any source that many times. */
int A2A_Alltoall_crs_personalized(int send_nnz, const int *dest, int sendcount,
                                  MPI_Datatype sendtype, const void *sendvals, int *recv_nnz,
                                  int **src, int recvcount, MPI_Datatype recvtype,
                                  void **recvvals, MPI_Comm comm, a2a_stats *stats);

/* Non-blocking, NBX (Algorithm 2, Hoefler et al.): MPI_Issend of every message, then a
 * loop of MPI_Improbe/MPI_Mrecv; once this rank's sends completed it enters an
 * MPI_Ibarrier, and it stops when the barrier completes. With *recv_nnz >= 0 it stops
 * after that many receives and the completion of its own sends (no barrier). */
int A2A_Alltoall_crs_nonblocking(int send_nnz, const int *dest, int sendcount,
                                 MPI_Datatype sendtype, const void *sendvals, int *recv_nnz,
                                 int **src, int recvcount, MPI_Datatype recvtype,
                                 void **recvvals, MPI_Comm comm, a2a_stats *stats);

/* RMA (Algorithm 3, constant size only): a window of P slots created with
 * MPI_Win_create, fence, one MPI_Put per message into slot `rank` of the destination,
 * fence. Each slot has a presence byte next to the payload, so senders are known from
 * the puts themselves, never from the payload (all-zero and empty payloads arrive).
 * Memory: P * (1 + message bytes) per rank. */
int A2A_Alltoall_crs_rma(int send_nnz, const int *dest, int sendcount, MPI_Datatype sendtype,
                         const void *sendvals, int *recv_nnz, int **src, int recvcount,
                         MPI_Datatype recvtype, void **recvvals, MPI_Comm comm,
                         a2a_stats *stats);

/* Locality-aware personalized (Algorithm 4). Regions of Q = ppn consecutive ranks (ppn
 * = 0: the real shared-memory node; P % Q == 0, else MPI_ERR_ARG). All messages of this
 * rank for one other region travel as one aggregated message (headers + payloads) to
 * the rank of that region with the same local rank, exchanged with the personalized
 * algorithm (its MPI_Allreduce always runs when there are several regions: recv_nnz
 * does not tell how many aggregated messages arrive). Then every rank sends each other
 * member of its region exactly one message (possibly empty) with what it holds for that
 * member, its own messages included: a dense redistribution that needs neither a count
 * exchange nor a region communicator. Inter-region messages per rank: at most
 * P/Q - 1; intra-region: exactly Q - 1. With ppn = 0 every call pays A2A_Node_layout's
 * MPI_Comm_split_type and MPI_Allreduce on comm; pass the node size to avoid them. */
int A2A_Alltoall_crs_locality_personalized(int send_nnz, const int *dest, int sendcount,
                                           MPI_Datatype sendtype, const void *sendvals,
                                           int *recv_nnz, int **src, int recvcount,
                                           MPI_Datatype recvtype, void **recvvals, int ppn,
                                           MPI_Comm comm, a2a_stats *stats);

/* Locality-aware non-blocking (Algorithm 5): as the locality-aware personalized one,
 * with the aggregated inter-region messages exchanged by NBX (always with its barrier,
 * as recv_nnz does not tell how many aggregated messages arrive). */
int A2A_Alltoall_crs_locality_nonblocking(int send_nnz, const int *dest, int sendcount,
                                          MPI_Datatype sendtype, const void *sendvals,
                                          int *recv_nnz, int **src, int recvcount,
                                          MPI_Datatype recvtype, void **recvvals, int ppn,
                                          MPI_Comm comm, a2a_stats *stats);

/* Reference for tests and the benchmark runner (not a competitor): MPI_Alltoall of the
 * dense pattern (per destination: -1 = no message, else its bytes), then MPI_Alltoallv
 * of the payloads. Same output as every algorithm above. */
int A2A_Alltoall_crs_reference(int send_nnz, const int *dest, int sendcount,
                               MPI_Datatype sendtype, const void *sendvals, int *recv_nnz,
                               int **src, int recvcount, MPI_Datatype recvtype,
                               void **recvvals, MPI_Comm comm, a2a_stats *stats);

/* ---- variable-size SDDE (MPIX_Alltoallv_crs) -------------------------------------- */

/* Personalized, as A2A_Alltoall_crs_personalized; sizes come from the probes. */
int A2A_Alltoallv_crs_personalized(int send_nnz, int send_size, const int *dest,
                                   const int *sendcounts, const int *sdispls,
                                   MPI_Datatype sendtype, const void *sendvals, int *recv_nnz,
                                   int *recv_size, int **src, int **recvcounts, int **rdispls,
                                   MPI_Datatype recvtype, void **recvvals, MPI_Comm comm,
                                   a2a_stats *stats);

/* Non-blocking (NBX), as A2A_Alltoall_crs_nonblocking. */
int A2A_Alltoallv_crs_nonblocking(int send_nnz, int send_size, const int *dest,
                                  const int *sendcounts, const int *sdispls,
                                  MPI_Datatype sendtype, const void *sendvals, int *recv_nnz,
                                  int *recv_size, int **src, int **recvcounts, int **rdispls,
                                  MPI_Datatype recvtype, void **recvvals, MPI_Comm comm,
                                  a2a_stats *stats);

/* Locality-aware personalized, as A2A_Alltoall_crs_locality_personalized. */
int A2A_Alltoallv_crs_locality_personalized(int send_nnz, int send_size, const int *dest,
                                            const int *sendcounts, const int *sdispls,
                                            MPI_Datatype sendtype, const void *sendvals,
                                            int *recv_nnz, int *recv_size, int **src,
                                            int **recvcounts, int **rdispls,
                                            MPI_Datatype recvtype, void **recvvals, int ppn,
                                            MPI_Comm comm, a2a_stats *stats);

/* Locality-aware non-blocking, as A2A_Alltoall_crs_locality_nonblocking. */
int A2A_Alltoallv_crs_locality_nonblocking(int send_nnz, int send_size, const int *dest,
                                           const int *sendcounts, const int *sdispls,
                                           MPI_Datatype sendtype, const void *sendvals,
                                           int *recv_nnz, int *recv_size, int **src,
                                           int **recvcounts, int **rdispls,
                                           MPI_Datatype recvtype, void **recvvals, int ppn,
                                           MPI_Comm comm, a2a_stats *stats);

/* Reference (MPI_Alltoall of the dense pattern + MPI_Alltoallv), as
 * A2A_Alltoall_crs_reference. */
int A2A_Alltoallv_crs_reference(int send_nnz, int send_size, const int *dest,
                                const int *sendcounts, const int *sdispls,
                                MPI_Datatype sendtype, const void *sendvals, int *recv_nnz,
                                int *recv_size, int **src, int **recvcounts, int **rdispls,
                                MPI_Datatype recvtype, void **recvvals, MPI_Comm comm,
                                a2a_stats *stats);

#ifdef __cplusplus
}
#endif

#endif
