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

/* The tuning parameters: each is declared once, here, and everything else reads this
 * declaration (the registry's tables, the sweep keys, the expansion and range checks, the
 * database's params JSON and columns, `a2atune list [--json]`, `a2atune app --NAME`, the
 * tuned dispatcher's tuning files, and through `a2atune list --json` the Python tools).
 *
 *   X(ID, name, sweep_default, column, value_names, nvalues, meaning)
 *     ID             the constant A2A_PARAM_<ID>, the parameter's index in a params array
 *     name           its one name: sweep key, params JSON key, option --name
 *     sweep_default  the text a sweep section takes when it leaves the key unset, or NULL
 *                    (then a section whose kernels take the parameter must set it)
 *     column         A2A_PARAM_COLUMN: the results table has a column of this name besides
 *                    the params JSON (harness/db/db.c, views.c and store.c expand the schema's column, its
 *                    INSERTs and views from this field, and adds the column to a database
 *                    written before); 0: the params JSON alone
 *     value_names    NULL, or a function returning the names of values 1..nvalues (sweeps,
 *                    tuning files and the params JSON use the names)
 *     meaning        one line for `a2atune list`
 * A kernel's valid range of a parameter (bounds as functions of P, Q, N and the radix) is
 * declared with the kernel, in its line of A2A_KERNELS (kernels/registry.c).
 *
 * The ABI: a kernel receives `params`, an array of A2A_PARAM_COUNT ints indexed by
 * a2a_param, 0 for the parameters it does not take. New parameters are appended at the end
 * of this list, so an existing parameter keeps its index. */
#define A2A_PARAM_COLUMN 1
#define A2A_PARAMS(X)                                                                       \
    X(RADIX, "radix", NULL, A2A_PARAM_COLUMN, NULL, 0,                                        \
      "radix of the digit rounds (intra-node radix of two-layer kernels)")                    \
    X(RADIX2, "radix2", NULL, A2A_PARAM_COLUMN, NULL, 0, "inter-node radix of two-layer kernels") \
    X(BLOCK_COUNT, "block_count", NULL, A2A_PARAM_COLUMN, NULL, 0,                            \
      "how much is in flight at once (each kernel says what: a2atune list)")                  \
    X(PPN, "ppn", "0", A2A_PARAM_COLUMN, NULL, 0, "processes per node Q (0 = the real node)")  \
    X(AUX_BYTES, "aux_bytes", NULL, 0, NULL, 0, "extra memory budget in bytes (in-place kernels)") \
    X(ORDER, "order", NULL, 0, A2A_Hint_order_names, A2A_ORDER_LAST,                         \
      "block copy order of intra-node kernels")                                               \
    X(THRESHOLD, "threshold", "0", 0, NULL, 0,                                                \
      "bytes from which a copy uses non-temporal stores (0 = search)")                        \
    X(VENDOR_ALGORITHM, "vendor_algorithm", "0", 0, NULL, 0,                                  \
      "the MPI library's own algorithm, forced (0 = its choice)")                             \
    /* the end of A2A_PARAMS: a new parameter is a line above */

#define A2A_PARAM_ENUM_(ID, name, sweep_default, column, value_names, nvalues, meaning) \
    A2A_PARAM_##ID,
typedef enum a2a_param { A2A_PARAMS(A2A_PARAM_ENUM_) A2A_PARAM_COUNT } a2a_param;
#undef A2A_PARAM_ENUM_

/* What the declaration above says of one parameter (a2a_param_decl). */
typedef struct a2a_param_info {
    const char *name;
    const char *sweep_default;             /* NULL: no default */
    int column;                            /* A2A_PARAM_COLUMN or 0 */
    const char *const *(*value_names)(void); /* NULL for plain numbers */
    int nvalues;
    const char *meaning;
} a2a_param_info;

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
    const char *meaning; /* what the parameter means for this kernel (block_count: what is
                          * in flight), or NULL: its declared meaning alone */
} a2a_param_range;

/* The call shapes of the families; `params` is the array of A2A_PARAM_COUNT described
 * with A2A_PARAMS above. */
typedef int (*a2a_uniform_call)(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                                int rcount, MPI_Datatype rtype, MPI_Comm comm,
                                const int *params, a2a_stats *stats);
typedef int (*a2a_nonuniform_call)(const void *sbuf, const int *scounts, const int *sdispls,
                                   MPI_Datatype stype, void *rbuf, const int *rcounts,
                                   const int *rdispls, MPI_Datatype rtype, MPI_Comm comm,
                                   const int *params, a2a_stats *stats);

typedef int (*a2a_inplace_call)(void *buf, const int *counts, const int *displs,
                                MPI_Datatype type, MPI_Comm comm,
                                const int *params, a2a_stats *stats);

typedef int (*a2a_sdde_call)(int send_nnz, const int *dest, int sendcount,
                             MPI_Datatype sendtype, const void *sendvals, int *recv_nnz,
                             int **src, int recvcount, MPI_Datatype recvtype, void **recvvals,
                             MPI_Comm comm, const int *params, a2a_stats *stats);
typedef int (*a2a_sddev_call)(int send_nnz, int send_size, const int *dest,
                              const int *sendcounts, const int *sdispls, MPI_Datatype sendtype,
                              const void *sendvals, int *recv_nnz, int *recv_size, int **src,
                              int **recvcounts, int **rdispls, MPI_Datatype recvtype,
                              void **recvvals, MPI_Comm comm, const int *params,
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

/* The declaration of a parameter (A2A_PARAMS), or NULL for an invalid one. */
const a2a_param_info *a2a_param_decl(a2a_param param);

/* The parameter called `name`, or -1. */
int a2a_param_by_name(const char *name);

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

/* The valid interval lo..hi of `range` at (P, Q) with the other parameters in params
 * (hi is raised to lo when below it, see a2a_param_range). */
void a2a_range_bounds(const a2a_param_range *range, int P, int Q, const int *params, int *lo,
                      int *hi);

/* 1 if params[param] lies in the kernel's range for that parameter at (P, Q); 1 also
 * when the kernel does not take the parameter. */
int a2a_param_in_range(const a2a_kernel *kernel, a2a_param param, int P, int Q,
                       const int *params);

/* For a kernel that runs a vendor's selection (mpich_selection, ompi_tuned_selection): the
 * algorithm it runs at communicator size P with blocks of block_bytes (uniform family; the
 * non-uniform selections decide by P alone), as "<vendor's name> = <liba2a kernel>" with
 * its block_count when it takes one, in text, and 1. For every other kernel: 0, text "". */
int a2a_kernel_choice(const a2a_kernel *kernel, int P, long long block_bytes, char *text,
                      size_t len);

/* Checks params against the kernel's ranges and constraints for a communicator of
 * size P with Q processes per node. Returns 1 if valid, else 0 with a one-line reason
 * in `why`. Parameters the kernel does not take must be 0. */
int a2a_params_valid(const a2a_kernel *kernel, int P, int Q, const int *params,
                     char *why, size_t len);

#endif
