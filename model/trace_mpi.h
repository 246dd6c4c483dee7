/* trace_mpi.h — the tracing MPI layer of the model tier (internal to model/).
 *
 * liba2a's kernels are compiled unchanged against MPICH's <mpi.h> (whose handles are
 * integer constants, so no MPI library object is needed) and linked with trace_mpi.c in
 * place of an MPI library. trace_mpi.c implements the MPI calls those kernels make for ONE
 * rank of a virtual communicator of P ranks: sends and receives complete at once (nothing
 * is delivered: receive buffers keep what they held), and every message is recorded with
 * its peer, its bytes and its epoch. A traced world (trace_world_run) runs instead every
 * rank of the communicator, one coroutine each, and delivers what a kernel reads back
 * (sizes, counts: predefined types wider than a byte), never payload bytes, so that the
 * schedules of the non-uniform kernels, which depend on the sizes they receive, are
 * their real ones. An epoch ends at each blocking exchange
 * (MPI_Sendrecv) and at each completion call (MPI_Wait, MPI_Waitall): the messages a rank
 * has in flight together. The kernels' copies (routed through kernels/common/sim_copy.c,
 * the SimGrid build's copy-cost model) are charged to the epoch they precede. */
#ifndef A2A_TRACE_MPI_H
#define A2A_TRACE_MPI_H

#include <mpi.h>

/* One message of the traced rank: epoch, peer rank, payload bytes, and whether it was
 * sent (1) or received (0). */
typedef struct trace_message {
    long long epoch, bytes;
    int peer, sent;
} trace_message;

/* Guarantees: a new communicator in which the calling process is rank `rank` of `size`
 * (0 <= rank < size), whose shared-memory nodes (MPI_Comm_split_type) are blocks of
 * `node_size` consecutive ranks; the trace is emptied. MPI_COMM_NULL when out of slots. */
MPI_Comm trace_comm_create(int size, int rank, int node_size);

/* Guarantees: the messages recorded since trace_comm_create, in call order; *n their
 * count. Valid until the next trace_comm_create. */
const trace_message *trace_messages(long long *n);

/* Guarantees: the number of epochs closed since trace_comm_create, plus one if copies
 * were charged after the last one (a final epoch without messages). */
long long trace_epochs(void);

/* Guarantees: the copy seconds charged to epoch e (0 <= e < trace_epochs()). */
double trace_copy_seconds(long long e);

/* SimGrid 3.32's default smpi/cpu-threshold, in seconds */
#define TRACE_CPU_THRESHOLD_DEFAULT 1e-6

/* Guarantees: from now on a copy charge (smpi_execute) shorter than `seconds` is
 * discarded, as SMPI discards a computation shorter than smpi/cpu-threshold (default
 * TRACE_CPU_THRESHOLD_DEFAULT; 0 or below charges every copy). */
void trace_cpu_threshold(double seconds);

/* One rank's part of a traced world: returns an MPI error code. */
typedef int (*trace_rank_body)(MPI_Comm comm, int rank, void *arg);

/* Guarantees: body has run on every rank 0..size-1 of a virtual communicator (nodes of
 * node_size consecutive ranks), interleaved as coroutines of this one thread: a rank runs
 * until it waits for a message not yet sent (MPI_Waitall) or for the other ranks
 * (MPI_Allreduce). Messages are matched as MPI matches them (source, tag, communicator,
 * oldest first); a message of a predefined type wider than a byte carries its values, any
 * other (payload: MPI_BYTE, derived types) only its size. The messages of ranks below
 * `traced` are recorded (trace_world_select); every rank's sends are counted. Returns
 * MPI_SUCCESS, the first rank's error, MPI_ERR_PENDING when every unfinished rank waits
 * (a deadlock), or MPI_ERR_NO_MEM. */
int trace_world_run(int size, int node_size, int traced, trace_rank_body body, void *arg);

/* Guarantees: trace_messages, trace_epochs and trace_copy_seconds report rank `rank`
 * (< traced) of the last world until the next call. */
void trace_world_select(int rank);

/* Guarantees: the sends to other ranks of rank `rank` of the last world, and their bytes. */
void trace_world_sends(int rank, long long *sends, long long *bytes);

/* Guarantees: the MPI_Allreduce calls the last world completed, in call order: *n of them,
 * each its payload bytes per rank (count x type size). Valid until trace_world_free. */
const long long *trace_world_reductions(int *n);

/* Guarantees: everything the last world held is released; the layer traces one rank. */
void trace_world_free(void);

#endif
