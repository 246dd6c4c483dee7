/* kernel_util.h — small helpers shared by the kernels of liba2a (internal). */
#ifndef A2A_KERNEL_UTIL_H
#define A2A_KERNEL_UTIL_H

#include "a2a.h"

#include <stddef.h>

/* The prologue of every dense kernel (alltoall and alltoallv shapes), before anything is
 * sent: MPI_ERR_COMM for MPI_COMM_NULL or an intercommunicator (a property of the
 * communicator, so every rank refuses alike; the kernels implement the intracommunicator
 * exchange only), MPI_ERR_TYPE for an invalid datatype; then *rank and *size in comm. */
int a2a_kernel_prologue(MPI_Comm comm, MPI_Datatype stype, MPI_Datatype rtype, int *rank,
                        int *size);

/* The parameters of MPI_Alltoallv, in its order and under the names every non-uniform
 * kernel gives them: a kernel's definition takes them first (A2A_V_PARAMS, then its own
 * parameters and the stats) and hands them on as they are (A2A_V_ARGS). The public
 * declarations (a2a.h) spell them out. */
#define A2A_V_PARAMS                                                                          \
    const void *sbuf, const int *scounts, const int *sdispls, MPI_Datatype stype, void *rbuf, \
        const int *rcounts, const int *rdispls, MPI_Datatype rtype, MPI_Comm comm
#define A2A_V_ARGS sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm

/* What a kernel that hands the caller's types to MPI as they are needs of them: the
 * displacement units of the send and receive types (their extents) and the bytes of one
 * element of each (their sizes, what stats count). */
typedef struct a2a_type_units {
    MPI_Aint sextent, rextent;
    int ssize, rsize;
} a2a_type_units;

/* Guarantees: the extents and sizes of stype and rtype, for types a2a_kernel_prologue
 * accepted. */
a2a_type_units a2a_type_units_of(MPI_Datatype stype, MPI_Datatype rtype);

/* The prologue of the kernels that hand the caller's types to MPI as they are and take no
 * parameter of their own to check: a2a_kernel_prologue (MPI_ERR_COMM, MPI_ERR_TYPE, before
 * anything is sent; *rank and *size), then *units = a2a_type_units_of(stype, rtype), then
 * *comm replaced by its private communicator (kernel traffic never meets the
 * application's). On an error *units and *comm are left unchanged. */
int a2a_direct_prologue(MPI_Comm *comm, MPI_Datatype stype, MPI_Datatype rtype, int *rank,
                        int *size, a2a_type_units *units);

/* The prologue of every in-place kernel (one buffer, one type): a2a_kernel_prologue with
 * type on both sides (MPI_ERR_COMM, MPI_ERR_TYPE), then the bytes of one element in *bytes
 * (A2A_Type_bytes: MPI_ERR_TYPE for a type that is not one ascending run), then *comm
 * replaced by its private communicator (kernel traffic never meets the application's).
 * On an error nothing is set but what the checks before it set, and *comm is unchanged. */
int a2a_inplace_prologue(MPI_Comm *comm, MPI_Datatype type, int *rank, int *size,
                         MPI_Aint *bytes);

/* The size in bytes of a predefined type that is one ascending run (MPI_BYTE, MPI_INT,
 * MPI_DOUBLE, ...), recognised by its handle without an MPI call; 0 for any other type
 * (which A2A_Type_bytes then inspects). */
MPI_Aint a2a_basic_run_type(MPI_Datatype type);

/* One side (send or receive) of a dense call: buffer, type, and per block j either
 * counts[j] elements at displs[j] (alltoallv) or `count` elements at j * count
 * (alltoall, counts == displs == NULL). Displacements are in extents of type. */
typedef struct a2a_side {
    void *buf;
    MPI_Datatype type;
    const int *counts, *displs;
    int count;
} a2a_side;

/* A side that was staged: its packed bytes, the run type standing for the user's, and
 * the user's side to unpack into. */
typedef struct a2a_staged_side {
    char *buf;          /* malloc'ed, or NULL: not staged */
    MPI_Datatype type;  /* MPI_Type_contiguous(size, MPI_BYTE), or MPI_DATATYPE_NULL */
    a2a_side user;
    int size;
    MPI_Aint extent;
    long long lowest;
} a2a_staged_side;

typedef struct a2a_staging {
    int P;
    MPI_Comm comm;
    a2a_staged_side send, recv;
} a2a_staging;

/* Lets a kernel that copies bytes take any datatype, deciding on each rank alone (MPI
 * only requires the type signatures to match, and a packed element is the signature's
 * bytes in order): a side whose type is one ascending run (A2A_Type_bytes) is left as it
 * is; the other sides are rewritten onto a staging buffer of packed elements (MPI_Pack)
 * and a contiguous run type of the same size, with the same counts and displacements.
 * The caller runs on the rewritten sides, then calls a2a_unstage. Temporary memory is
 * counted in stats. On an error nothing is left allocated. */
int a2a_stage(a2a_staging *st, int P, a2a_side *send, a2a_side *recv, MPI_Comm comm,
              a2a_stats *stats);

/* Ends a2a_stage: when err is MPI_SUCCESS, unpacks the staged receive side into the
 * user's receive buffer (MPI_Unpack); frees the staging buffers and types. Returns err,
 * or the unpacking error. */
int a2a_unstage(a2a_staging *st, int err);

/* Largest byte count one message (or one derived-type element count) may carry: INT_MAX,
 * or the value of A2A_MAX_MESSAGE_BYTES when set (a test hook, so that the large-count
 * paths are exercised at small sizes). Read once per process. */
long long a2a_max_message_bytes(void);

/* MPI_Sendrecv of `bytes` bytes to dest and the same number from source, as pieces of at
 * most a2a_max_message_bytes() each (one empty message for 0 bytes); both partners
 * derive the same pieces from the same byte count. *messages (if given) = pieces sent. */
int a2a_sendrecv_bytes(const char *send, long long bytes, int dest, char *recv, int source,
                       int tag, MPI_Comm comm, long long *messages);

/* Adds one message of `bytes` payload carrying `blocks` blocks to stats (if given). */
static inline void a2a_count_send(a2a_stats *stats, long long blocks, long long bytes)
{
    if (stats) {
        stats->messages += 1;
        stats->blocks += blocks;
        stats->bytes += bytes;
    }
}

/* Adds one metadata message of `bytes` to stats (if given). */
static inline void a2a_count_meta(a2a_stats *stats, long long bytes)
{
    if (stats) {
        stats->messages += 1;
        stats->meta_bytes += bytes;
    }
}

/* Adds `n` communication rounds to stats (if given). */
static inline void a2a_count_rounds(a2a_stats *stats, long long n)
{
    if (stats)
        stats->rounds += n;
}

/* Records that `bytes` of temporary memory are held at once (peak, if given). */
static inline void a2a_count_temp(a2a_stats *stats, long long bytes)
{
    if (stats && bytes > stats->temp_bytes)
        stats->temp_bytes = bytes;
}

#endif
