/* family.h — how the runner drives one family of kernels: an operations table per family
 * (dense alltoall and alltoallv, in-place, sparse sdde and sddev, and the shared-window
 * variants of the dense ones under alloc = shared), as Open MPI's coll modules carry
 * function tables. The runner (runner.c) has one path over these operations; each family
 * knows its buffers, its kernel call, its reference and its comparison. */
#ifndef A2A_FAMILY_H
#define A2A_FAMILY_H

#include <stddef.h>
#include "configs.h"

/* The outcome of building, calling or comparing on one rank, worst last. */
enum { CHECK_OK = 0, CHECK_WRONG = 1, CHECK_ERROR = 2 };

/* What a family's build tells the runner about this rank's workload. */
typedef struct family_load {
    void *state;        /* the family's buffers; released by its free (which accepts NULL) */
    long long sent;     /* payload bytes this rank sends to other ranks */
    long long arrived;  /* payload bytes arriving at this rank, its own block included */
    int unvalidated;    /* SimGrid above the validation limit: the reference is never
                           called and nothing is compared */
    const char *unvalidated_why; /* with unvalidated: why, for the row's message */
} family_load;

/* The operations of one family. Every function but check and discard is collective over
 * the configuration's communicator. */
typedef struct family_ops {
    /* names the reference in error messages ("the vendor collective", "the reference") */
    const char *reference;
    /* Builds this rank's workload from the seed into *load; returns the status agreed over
     * comm (every rank the same), with the lowest failing rank's message on rank 0. */
    int (*build)(const config *c, MPI_Comm comm, family_load *load, char *msg, size_t len);
    /* One call of the configuration's kernel (stats may be NULL); an MPI error code. */
    int (*call)(const config *c, void *state, MPI_Comm comm, a2a_stats *stats);
    /* Prepares the receive side (poison, in-place copies) and calls the reference whose
     * result the kernel's first call is compared with; an MPI error code. */
    int (*call_reference)(const config *c, void *state, MPI_Comm comm);
    /* Releases what the previous call returned (NULL: the family keeps nothing per call). */
    void (*discard)(void *state);
    /* Compares this rank's buffers: after_timing = 0 right after call_reference and one call
     * (against the reference), 1 after `calls` kernel calls in all. CHECK_* with a message. */
    int (*check)(const config *c, void *state, int rank, int after_timing, long long calls,
                 char *msg, size_t len);
    /* Releases the state (collective: shared windows are freed together). */
    void (*free)(void *state);
} family_ops;

/* The operations table of c's kernel family and buffer placement (never NULL). */
const family_ops *family_ops_of(const config *c);

/* The dense tables (alltoall, alltoallv, in-place; shared-window under alloc = shared) and
 * the sparse ones (sdde, sddev), for family_ops_of. */
const family_ops *family_dense_ops(const config *c);
const family_ops *family_sparse_ops(const config *c);

/* Whether a configuration of P ranks is simulated above the validation limit (SimGrid
 * build: P > A2A_SIM_VALIDATE_UP_TO, default 64): its payloads are not compared and the
 * reference is not called. Always 0 outside SimGrid. */
int family_sim_unvalidated(int P);

/* Agrees on the worst status over comm and brings the message of the lowest failing rank
 * to rank 0; returns that status on every rank. */
int family_agree(int status, char *msg, size_t len, MPI_Comm comm);

/* Writes "<what> returned an MPI error: <text of code>" into msg. */
void family_mpi_error(int code, const char *what, char *msg, size_t len);

/* The check of a call whose payloads cannot be compared (SimGrid above the validation
 * limit): every byte a rank owes the others must leave it at least once, so a kernel that
 * counts the payload bytes it sends (counted > 0: the vendor collectives count nothing)
 * and counts fewer than owed is wrong. CHECK_OK, or CHECK_WRONG with the reason in msg. */
int family_sent_check(long long counted, long long owed, int rank, char *msg, size_t len);

#endif
