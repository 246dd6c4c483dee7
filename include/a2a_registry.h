/*
 * a2a_registry.h — the one table of kernels in liba2a.
 *
 * Tools (the a2atune driver, the tuned dispatcher) only ever see kernels through this
 * table: a name, a family (which fixes the call shape), the tuning parameters the
 * kernel takes with their valid ranges as functions of P and Q, and constraints.
 */
#ifndef A2A_REGISTRY_H
#define A2A_REGISTRY_H

#include <stddef.h>
#include "a2a.h"

typedef enum a2a_family {
    A2A_FAMILY_UNIFORM,    /* MPI_Alltoall shape */
    A2A_FAMILY_NONUNIFORM, /* MPI_Alltoallv shape */
    A2A_FAMILY_INPLACE,    /* MPI_Alltoallv(MPI_IN_PLACE, ...) with symmetric counts */
    A2A_FAMILY_SDDE,       /* A2A_Alltoall_crs: constant-size sparse dynamic exchange */
    A2A_FAMILY_SDDEV,      /* A2A_Alltoallv_crs: variable-size sparse dynamic exchange */
    A2A_FAMILY_COUNT
} a2a_family;

/* Tuning parameters a kernel may take. Values are ints; 0 means "not used". */
typedef enum a2a_param {
    A2A_PARAM_RADIX,       /* radix (intra-node radix for two-layer kernels) */
    A2A_PARAM_RADIX2,      /* inter-node radix of two-layer kernels */
    A2A_PARAM_BLOCK_COUNT, /* requests / sub-rounds in flight */
    A2A_PARAM_PPN,         /* processes per node Q (0 = the real node) */
    A2A_PARAM_AUX_BYTES,   /* extra memory budget in bytes (in-place kernels) */
    A2A_PARAM_ORDER,       /* block copy order of intra-node kernels (named values, below) */
    A2A_PARAM_THRESHOLD,   /* bytes from which a copy uses non-temporal stores (0 = search) */
    A2A_PARAM_VENDOR_ALGORITHM, /* the MPI library's own algorithm, forced (0 = its choice) */
    A2A_PARAM_COUNT
} a2a_param;

/* The values of A2A_PARAM_ORDER are enum a2a_order, named by A2A_Hint_order_names
 * (a2a_hint.h, included by a2a.h). */

/* A bound is base + offset, with base one of the sizes below. */
typedef enum a2a_bound_base {
    A2A_BOUND_CONST, /* offset alone */
    A2A_BOUND_P,     /* communicator size */
    A2A_BOUND_Q,     /* processes per node */
    A2A_BOUND_N,     /* nodes, P / Q */
    A2A_BOUND_P_Q,   /* ranks on other nodes, P - Q */
    A2A_BOUND_RADIX  /* the kernel's radix parameter */
} a2a_bound_base;

typedef struct a2a_bound {
    a2a_bound_base base;
    int offset;
} a2a_bound;

/* Valid values lo..max(lo, hi): an upper bound below the lower one (radix 2..P at
 * P = 1) still admits the lower bound, so every kernel runs at every P. */
typedef struct a2a_param_range {
    a2a_param param;
    a2a_bound lo, hi;
} a2a_param_range;

typedef int (*a2a_uniform_call)(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                                int rcount, MPI_Datatype rtype, MPI_Comm comm,
                                const int params[A2A_PARAM_COUNT], a2a_stats *stats);
typedef int (*a2a_nonuniform_call)(const void *sbuf, const int *scounts, const int *sdispls,
                                   MPI_Datatype stype, void *rbuf, const int *rcounts,
                                   const int *rdispls, MPI_Datatype rtype, MPI_Comm comm,
                                   const int params[A2A_PARAM_COUNT], a2a_stats *stats);

typedef int (*a2a_inplace_call)(void *buf, const int *counts, const int *displs,
                                MPI_Datatype type, MPI_Comm comm,
                                const int params[A2A_PARAM_COUNT], a2a_stats *stats);

typedef int (*a2a_sdde_call)(int send_nnz, const int *dest, int sendcount,
                             MPI_Datatype sendtype, const void *sendvals, int *recv_nnz,
                             int **src, int recvcount, MPI_Datatype recvtype, void **recvvals,
                             MPI_Comm comm, const int params[A2A_PARAM_COUNT],
                             a2a_stats *stats);
typedef int (*a2a_sddev_call)(int send_nnz, int send_size, const int *dest,
                              const int *sendcounts, const int *sdispls, MPI_Datatype sendtype,
                              const void *sendvals, int *recv_nnz, int *recv_size, int **src,
                              int **recvcounts, int **rdispls, MPI_Datatype recvtype,
                              void **recvvals, MPI_Comm comm, const int params[A2A_PARAM_COUNT],
                              a2a_stats *stats);

#define A2A_MAX_PARAMS 5

/* What a kernel needs of its call (a2a_kernel.needs, or-ed together). */
enum {
    A2A_NEEDS_GROUPS = 1, /* P % Q == 0 (Q = ppn, or the real node size) */
    A2A_NEEDS_SHARED = 2  /* buffers from A2A_Hint_alloc (a2atune: only `alloc = shared`) */
};

typedef struct a2a_kernel {
    const char *name;   /* unique within its family */
    a2a_family family;
    const char *summary;
    int is_baseline;    /* the MPI library's own collective of this family */
    int nparams;
    a2a_param_range params[A2A_MAX_PARAMS];
    unsigned needs;     /* A2A_NEEDS_* flags */
    union {
        a2a_uniform_call uniform;
        a2a_nonuniform_call nonuniform;
        a2a_inplace_call inplace;
        a2a_sdde_call sdde;
        a2a_sddev_call sddev;
    } call;
} a2a_kernel;

/* The table and its length. Entries are constant for the life of the program. */
const a2a_kernel *a2a_registry(int *count);

/* The kernel called `name` in `family`, or NULL. */
const a2a_kernel *a2a_find_kernel(a2a_family family, const char *name);

/* Name of a family ("uniform", ...) / of a parameter ("radix", ...). */
const char *a2a_family_name(a2a_family family);
const char *a2a_param_name(a2a_param param);

/* The names of a parameter's values, if it has named values (order: names[v - 1] is the
 * name of value v, *count of them); NULL for plain numeric parameters. */
const char *const *a2a_param_value_names(a2a_param param, int *count);

/* Value `value` of `param` as text: its name where it has one, else the number. */
void a2a_param_value_text(a2a_param param, int value, char *text, size_t len);

/* Family by name; returns -1 if unknown. */
int a2a_family_by_name(const char *name);

/* 1 if the kernel's buffers must come from A2A_Hint_alloc (A2A_NEEDS_SHARED). */
int a2a_kernel_needs_shared(const a2a_kernel *kernel);

/* 1 if the kernel takes parameter `param`. */
int a2a_kernel_takes(const a2a_kernel *kernel, a2a_param param);

/* Writes "lo..hi" for the kernel's range of `param` as text ("2..P", "1..radix-1"). */
void a2a_range_text(const a2a_param_range *range, char *text, size_t len);

/* 1 if params[param] lies in the kernel's range for that parameter at (P, Q); 1 also
 * when the kernel does not take the parameter. */
int a2a_param_in_range(const a2a_kernel *kernel, a2a_param param, int P, int Q,
                       const int params[A2A_PARAM_COUNT]);

/* Checks params against the kernel's ranges and constraints for a communicator of
 * size P with Q processes per node. Returns 1 if valid, else 0 with a one-line reason
 * in `why`. Parameters the kernel does not take must be 0. */
int a2a_params_valid(const a2a_kernel *kernel, int P, int Q, const int params[A2A_PARAM_COUNT],
                     char *why, size_t len);

#endif
