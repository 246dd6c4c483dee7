/* sdde_internal.h — what the SDDE kernels share (internal to liba2a).
 *
 * Every public SDDE function is a thin wrapper: sdde_run_constant / sdde_run_variable
 * validate the arguments, turn the send side into a list of byte messages, call one
 * algorithm (an sdde_algorithm) that fills the list of received byte messages, and turn
 * that list, sorted by source, into the caller's arrays. The algorithms only move bytes.
 */
#ifndef A2A_SDDE_INTERNAL_H
#define A2A_SDDE_INTERNAL_H

#include <stddef.h>

#include "kernel_util.h"
#include "mpi_compat.h"

/* Algorithm numbers inside message tags (one per algorithm, so that no algorithm can
 * receive another's messages). */
enum {
    SDDE_ALG_PERSONALIZED = 1,
    SDDE_ALG_NONBLOCKING = 2,
    SDDE_ALG_LOCALITY_PERSONALIZED = 3,
    SDDE_ALG_LOCALITY_NONBLOCKING = 4
};

/* One byte message. Send side: peer = destination, data = its bytes. Receive side:
 * peer = source; its bytes are at `data` or, while the pool may still grow, at `offset`
 * in the pool (in_pool = 1) until sdde_resolve sets `data`. */
typedef struct sdde_msg {
    int peer;
    int bytes;
    const unsigned char *data;
    size_t offset;
    int in_pool;
} sdde_msg;

/* A list of messages that grows as messages arrive. */
typedef struct sdde_list {
    sdde_msg *msgs;
    int n, cap;
} sdde_list;

/* A growable byte buffer that received messages are copied into. */
typedef struct sdde_pool {
    unsigned char *data;
    size_t used, cap;
} sdde_pool;

/* One call of an SDDE kernel: its communicator, the messages to send, what arrived, and
 * the accounting. The algorithm reads everything above `got` and fills `got`. */
typedef struct sdde_call {
    MPI_Comm comm;
    int rank, size;
    int ppn;           /* region size argument of the locality-aware algorithms */
    int msg_bytes;     /* bytes of every message (constant size), -1 for variable size */
    int known_nnz;     /* the caller's recv_nnz when given, else -1 */
    int seq;           /* this call's number on comm, modulo SDDE_SEQ_MOD */
    const sdde_msg *sends;
    int nsend;
    const unsigned char *send_base; /* sendvals: sends[i].data point into it */
    sdde_list got;     /* received messages, self-messages included */
    sdde_pool pool[2]; /* storage of received bytes, released after the output is built */
    a2a_stats *stats;
    long long temp_now; /* temporary bytes held right now */
} sdde_call;

/* An algorithm: fills call->got with every message sent to this rank (self included),
 * their bytes in call->pool or pointing into the send buffer, or returns an MPI error. */
typedef int (*sdde_algorithm)(sdde_call *call);

/* ---- the drivers (sdde_common.c) ---------------------------------------------------- */

int sdde_run_constant(sdde_algorithm algorithm, int ppn, int send_nnz, const int *dest,
                      int sendcount, MPI_Datatype sendtype, const void *sendvals,
                      int *recv_nnz, int **src, int recvcount, MPI_Datatype recvtype,
                      void **recvvals, MPI_Comm comm, a2a_stats *stats);
int sdde_run_variable(sdde_algorithm algorithm, int ppn, int send_nnz, int send_size,
                      const int *dest, const int *sendcounts, const int *sdispls,
                      MPI_Datatype sendtype, const void *sendvals, int *recv_nnz,
                      int *recv_size, int **src, int **recvcounts, int **rdispls,
                      MPI_Datatype recvtype, void **recvvals, MPI_Comm comm,
                      a2a_stats *stats);

/* ---- helpers for the algorithms (sdde_common.c) ------------------------------------ */

enum { SDDE_SEQ_MOD = 128 };

/* The tag of (this call, algorithm, phase in 1..3); all in [0x4000, 0x4fff]. */
int sdde_tag(const sdde_call *call, int algorithm, int phase);

/* Temporary memory with accounting: sdde_alloc / sdde_calloc / sdde_free keep
 * call->temp_now current and its peak in call->stats->temp_bytes. A request for 0 bytes
 * still returns a valid pointer. */
void *sdde_alloc(sdde_call *call, size_t bytes);
void *sdde_calloc(sdde_call *call, size_t bytes);
void sdde_free(sdde_call *call, void *ptr, size_t bytes);

/* Appends a message to a list; MPI_ERR_NO_MEM on failure. */
int sdde_list_push(sdde_call *call, sdde_list *list, const sdde_msg *msg);
void sdde_list_free(sdde_call *call, sdde_list *list);

/* Reserves `bytes` at the end of the pool and returns their offset in *offset. */
int sdde_pool_reserve(sdde_call *call, sdde_pool *pool, size_t bytes, size_t *offset);
void sdde_pool_free(sdde_call *call, sdde_pool *pool);

/* Sets `data` of the in-pool messages list->msgs[from..n) once the pool is final. */
void sdde_resolve(sdde_list *list, int from, const sdde_pool *pool);

/* Adds one message sent to another rank to the stats: `blocks` original messages,
 * `payload` payload bytes, `meta` header bytes; `global` says whether it left the
 * sender's region (rounds_global) or not (rounds_local). */
void sdde_count_message(sdde_call *call, long long blocks, long long payload, long long meta,
                        int global);

/* ---- the point-to-point exchanges shared by the plain and locality-aware algorithms ----
 * Both send every message of sends[0..n) whose peer is not this rank (the caller handles
 * self-messages and the stats), with `tag`, and append every message that arrives to
 * `got`, its bytes copied into `pool` (in_pool = 1; call sdde_resolve afterwards).
 * expected >= 0 is the exact number of messages that will arrive from other ranks. */

/* personalized.c: MPI_Allreduce of an indicator vector when expected < 0, MPI_Isend,
 * then MPI_Mprobe/MPI_Mrecv `expected` times (a2a_probe / a2a_recv_probed: SimGrid's
 * substitute in mpi_compat.h). */
int sdde_exchange_personalized(sdde_call *call, const sdde_msg *sends, int n, int expected,
                               int tag, sdde_list *got, sdde_pool *pool);

/* nonblocking.c: NBX — MPI_Issend, MPI_Improbe/MPI_Mrecv loop (a2a_iprobe /
 * a2a_recv_probed), MPI_Ibarrier once the sends completed, done when the barrier is; with
 * expected >= 0 no barrier. */
int sdde_exchange_nonblocking(sdde_call *call, const sdde_msg *sends, int n, int expected,
                              int tag, sdde_list *got, sdde_pool *pool);

/* Receives one probed message (from a2a_probe / a2a_iprobe) into the pool and appends it
 * to got. */
int sdde_receive_matched(sdde_call *call, a2a_probed *probed, sdde_list *got,
                         sdde_pool *pool);

/* Posts the sends of an exchange: *requests gets n request slots (MPI_REQUEST_NULL
 * beyond *posted, size in *request_bytes), then every message of sends[0..n) whose peer
 * is not this rank is posted with `tag`, synchronous (MPI_Issend) when `synchronous`,
 * else standard (MPI_Isend), until the first error, which is returned. MPI_ERR_NO_MEM
 * with nothing posted and *requests NULL when the slots cannot be allocated. */
int sdde_post_sends(sdde_call *call, const sdde_msg *sends, int n, int tag, int synchronous,
                    MPI_Request **requests, size_t *request_bytes, int *posted);

/* Receives exactly `expected` messages with `tag` from any source (a2a_probe, then
 * sdde_receive_matched) into got and pool; the first error is returned at once. */
int sdde_receive_expected(sdde_call *call, int expected, int tag, sdde_list *got,
                          sdde_pool *pool);

/* Completes the posted sends of sdde_post_sends and frees their slots. Returns err when
 * it is an error, else the error of MPI_Waitall. */
int sdde_complete_sends(sdde_call *call, MPI_Request *requests, size_t request_bytes,
                        int posted, int err);

/* An exchange function of the shape above. */
typedef int (*sdde_exchange)(sdde_call *call, const sdde_msg *sends, int n, int expected,
                             int tag, sdde_list *got, sdde_pool *pool);

/* The plain (non-aggregating) algorithms around an exchange: self-messages are copied,
 * the others counted in the stats and exchanged with tag (algorithm, phase 1), and
 * `expected` derived from the caller's recv_nnz when given. */
int sdde_direct(sdde_call *call, sdde_exchange exchange, int algorithm);

/* ---- the algorithms --------------------------------------------------------------- */
int sdde_personalized(sdde_call *call);
int sdde_nonblocking(sdde_call *call);
int sdde_rma(sdde_call *call);
int sdde_locality_personalized(sdde_call *call);
int sdde_locality_nonblocking(sdde_call *call);
int sdde_reference(sdde_call *call);

/* ---- the public entry points ------------------------------------------------------ */

/* Defines A2A_Alltoall_crs_NAME and A2A_Alltoallv_crs_NAME (declared in a2a_sdde.h) as
 * sdde_run_constant / sdde_run_variable with ALGORITHM. REGION_PARAMETER is
 * SDDE_WITH_REGION for the locality-aware algorithms (both functions take the region
 * size ppn before comm, REGION = ppn) and SDDE_WITHOUT_REGION for the others (REGION = 0). */
#define SDDE_WITH_REGION int ppn,
#define SDDE_WITHOUT_REGION
#define SDDE_DEFINE_ENTRY_POINTS(NAME, ALGORITHM, REGION_PARAMETER, REGION)               \
    int A2A_Alltoall_crs_##NAME(int send_nnz, const int *dest, int sendcount,             \
                                MPI_Datatype sendtype, const void *sendvals, int *recv_nnz, \
                                int **src, int recvcount, MPI_Datatype recvtype,          \
                                void **recvvals, REGION_PARAMETER MPI_Comm comm,          \
                                a2a_stats *stats)                                         \
    {                                                                                     \
        return sdde_run_constant(ALGORITHM, REGION, send_nnz, dest, sendcount, sendtype,  \
                                 sendvals, recv_nnz, src, recvcount, recvtype, recvvals,  \
                                 comm, stats);                                            \
    }                                                                                     \
    int A2A_Alltoallv_crs_##NAME(int send_nnz, int send_size, const int *dest,            \
                                 const int *sendcounts, const int *sdispls,               \
                                 MPI_Datatype sendtype, const void *sendvals,             \
                                 int *recv_nnz, int *recv_size, int **src,                \
                                 int **recvcounts, int **rdispls, MPI_Datatype recvtype,  \
                                 void **recvvals, REGION_PARAMETER MPI_Comm comm,         \
                                 a2a_stats *stats)                                        \
    {                                                                                     \
        return sdde_run_variable(ALGORITHM, REGION, send_nnz, send_size, dest, sendcounts, \
                                 sdispls, sendtype, sendvals, recv_nnz, recv_size, src,   \
                                 recvcounts, rdispls, recvtype, recvvals, comm, stats);   \
    }

#endif
