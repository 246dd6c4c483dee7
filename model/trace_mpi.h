/* trace_mpi.h — the tracing MPI layer of the model tier (internal to model/).
 *
 * liba2a's kernels are compiled unchanged against MPICH's <mpi.h> (whose handles are
 * integer constants, so no MPI library object is needed) and linked with trace_mpi.c in
 * place of an MPI library. trace_mpi.c implements the MPI calls those kernels make for ONE
 * rank of a virtual communicator of P ranks: sends and receives complete at once (nothing
 * is delivered: receive buffers keep what they held), and every message is recorded with
 * its peer, its bytes and its epoch. An epoch ends at each blocking exchange
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

#endif
