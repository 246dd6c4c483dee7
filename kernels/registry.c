/* registry.c — the one declaration of kernels (A2A_KERNELS), the call shims and the table
 * expanded from it, and the lookups over that table and the parameters' declaration. */
#include <stdio.h>
#include <string.h>
#include "a2a_registry.h"

/* ---- the kernels: one line each ---------------------------------------------------
 *
 * A2A_KERNELS is the one declaration of liba2a's kernels; the shims adapting each public
 * function to its family's call shape, the count of its parameters and the table below
 * are all expanded from it, in this order (the order of `a2atune list`).
 *
 *   X(family, name, function, is_baseline, needs, summary, ranges)
 *     family       uniform | nonuniform | inplace | sdde | sddev (the call shape)
 *     name         the kernel's name, unique within its family (an identifier)
 *     function     the public function the kernel calls
 *     is_baseline  1 for the MPI library's own collective of the family
 *     needs        A2A_NEEDS_* flags
 *     summary      one line for `a2atune list`
 *     ranges       the parameters the kernel takes, in the order `function` takes them
 *                  after its buffers (RANGE / RANGE_MEANING or the named ranges below, side
 *                  by side without commas), or NO_PARAMS
 * The shim passes params[p] of each range's parameter p to `function`, between the
 * family's leading arguments (the buffers, and the communicator but for SDDE) and its
 * trailing ones (the communicator of SDDE, and the stats). */

/* Ranges: RANGE(param, lo_base, lo_offset, hi_base, hi_offset), and RANGE_MEANING with
 * what the parameter means for the kernel in front (block_count means one thing each);
 * each expansion of A2A_KERNELS below defines them (a range: its parameter, a count, an
 * entry of the table). Named ranges several kernels share: */
#define BLOCK_COUNT_1_TO_P                                                                    \
    RANGE_MEANING("peers per batch; a batch completes before the next", A2A_PARAM_BLOCK_COUNT, \
                  A2A_BOUND_CONST, 1, A2A_BOUND_P, 0)
#define RADIX_2_TO_P RANGE(A2A_PARAM_RADIX, A2A_BOUND_CONST, 2, A2A_BOUND_P, 0)
#define RADIX_2_TO_Q RANGE(A2A_PARAM_RADIX, A2A_BOUND_CONST, 2, A2A_BOUND_Q, 0)
#define RADIX2_2_TO_N RANGE(A2A_PARAM_RADIX2, A2A_BOUND_CONST, 2, A2A_BOUND_N, 0)
#define PPN_0_TO_P RANGE(A2A_PARAM_PPN, A2A_BOUND_CONST, 0, A2A_BOUND_P, 0)
#define BLOCK_COUNT_1_TO_RADIX_1                                                             \
    RANGE_MEANING("sub-rounds of a round in flight", A2A_PARAM_BLOCK_COUNT, A2A_BOUND_CONST, 1, \
                  A2A_BOUND_RADIX, -1)
#define INT_0_TO_MAX(param) RANGE(param, A2A_BOUND_CONST, 0, A2A_BOUND_CONST, 2147483647)

#define A2A_KERNELS(X)                                                                        \
    X(uniform, vendor, A2A_Alltoall_vendor_algorithm, 1, 0,                                   \
      "the MPI library's MPI_Alltoall" A2A_VENDOR_ALLTOALL_SUMMARY,                            \
      RANGE(A2A_PARAM_VENDOR_ALGORITHM, A2A_BOUND_CONST, 0, A2A_BOUND_CONST,                  \
            A2A_VENDOR_ALLTOALL_MAX))                                                         \
    X(uniform, spread_out, A2A_Alltoall_spread_out, 0, 0,                                     \
      "all Isend/Irecv at once, round-robin peers", NO_PARAMS)                                 \
    X(uniform, pairwise, A2A_Alltoall_pairwise, 0, 0,                                         \
      "P-1 rounds of Sendrecv with rank+i / rank-i", NO_PARAMS)                                \
    X(uniform, scattered, A2A_Alltoall_scattered, 0, 0,                                       \
      "spread-out in batches of block_count (MPICH)", BLOCK_COUNT_1_TO_P)                      \
    X(uniform, bruck, A2A_Alltoall_bruck, 0, 0, "classic Bruck, radix 2: log2 P rounds",      \
      NO_PARAMS)                                                                              \
    X(uniform, tra, A2A_Alltoall_tra, 0, 0, "tunable-radix Bruck (TRA), any P", RADIX_2_TO_P) \
    X(uniform, tra2, A2A_Alltoall_tra2, 0, A2A_NEEDS_GROUPS,                                  \
      "two-layer TRA: intra-node radix, inter-node radix2",                                   \
      RADIX_2_TO_Q RADIX2_2_TO_N PPN_0_TO_P)                                                  \
    X(uniform, pairwise_xor, A2A_Alltoall_pairwise_xor, 0, 0,                                 \
      "pairwise as MPICH pairs: rank XOR i for P a power of 2, else rank+i / rank-i",          \
      NO_PARAMS)                                                                              \
    X(uniform, linear_sync, A2A_Alltoall_linear_sync, 0, 0,                                   \
      "Open MPI linear_sync: block_count requests of each kind outstanding, refilled",        \
      RANGE_MEANING("receives (and sends) outstanding; P-1 or more: all at once",             \
                    A2A_PARAM_BLOCK_COUNT, A2A_BOUND_CONST, 1, A2A_BOUND_P, 0))                \
    X(uniform, mpich_selection, A2A_Alltoall_mpich_selection, 0, 0,                           \
      "MPICH 4 MPI_Alltoall selection on liba2a kernels: bruck / scattered(32) / pairwise_xor", \
      NO_PARAMS)                                                                              \
    X(uniform, ompi_tuned_selection, A2A_Alltoall_ompi_tuned_selection, 0, 0,                 \
      "Open MPI 4.1 coll/tuned fixed MPI_Alltoall decision on liba2a kernels", NO_PARAMS)     \
    X(uniform, hint, A2A_Alltoall_hint, 0, A2A_NEEDS_GROUPS | A2A_NEEDS_SHARED,               \
      "HINT: ordered single copies through a shared window, hybrid NT stores",                \
      RANGE(A2A_PARAM_ORDER, A2A_BOUND_CONST, A2A_ORDER_ROW, A2A_BOUND_CONST, A2A_ORDER_LAST)  \
      INT_0_TO_MAX(A2A_PARAM_THRESHOLD) PPN_0_TO_P)                                           \
                                                                                              \
    X(nonuniform, vendor, A2A_Alltoallv_vendor_algorithm, 1, 0,                               \
      "the MPI library's MPI_Alltoallv" A2A_VENDOR_ALLTOALLV_SUMMARY,                          \
      RANGE(A2A_PARAM_VENDOR_ALGORITHM, A2A_BOUND_CONST, 0, A2A_BOUND_CONST,                  \
            A2A_VENDOR_ALLTOALLV_MAX))                                                        \
    X(nonuniform, spread_out, A2A_Alltoallv_spread_out, 0, 0,                                 \
      "all Isend/Irecv at once, round-robin peers, none for an empty block", NO_PARAMS)        \
    X(nonuniform, scattered, A2A_Alltoallv_scattered, 0, 0,                                   \
      "spread-out in batches of block_count, none for an empty block (MPICH)",                \
      BLOCK_COUNT_1_TO_P)                                                                     \
    X(nonuniform, linear, A2A_Alltoallv_linear, 0, 0,                                         \
      "all requests in ascending rank order, none for an empty block (Open MPI basic)",       \
      NO_PARAMS)                                                                              \
    X(nonuniform, pairwise, A2A_Alltoallv_pairwise, 0, 0,                                     \
      "per round one Irecv + blocking Send (Open MPI)", NO_PARAMS)                             \
    X(nonuniform, twophase_bruck, A2A_Alltoallv_twophase_bruck, 0, 0,                         \
      "two-phase Bruck, radix 2: sizes, then data", NO_PARAMS)                                 \
    X(nonuniform, tuna, A2A_Alltoallv_tuna, 0, 0,                                             \
      "TuNA: tunable radix, block_count sub-rounds in flight",                                \
      RADIX_2_TO_P BLOCK_COUNT_1_TO_RADIX_1)                                                  \
    X(nonuniform, tuna_staggered, A2A_Alltoallv_tuna_staggered, 0, A2A_NEEDS_GROUPS,          \
      "TuNA_l^g: intra-node TuNA, inter-node scattered, 1 block/message",                     \
      RADIX_2_TO_Q                                                                            \
      RANGE_MEANING("inter-node messages per batch (one block each)", A2A_PARAM_BLOCK_COUNT,  \
                    A2A_BOUND_CONST, 1, A2A_BOUND_P_Q, 0)                                     \
      PPN_0_TO_P)                                                                             \
    X(nonuniform, tuna_coalesced, A2A_Alltoallv_tuna_coalesced, 0, A2A_NEEDS_GROUPS,          \
      "TuNA_l^g: intra-node TuNA, inter-node scattered, Q blocks/message",                    \
      RADIX_2_TO_Q                                                                            \
      RANGE_MEANING("inter-node rounds per batch (Q blocks a message)", A2A_PARAM_BLOCK_COUNT, \
                    A2A_BOUND_CONST, 1, A2A_BOUND_N, -1)                                      \
      PPN_0_TO_P)                                                                             \
    X(nonuniform, mpich_selection, A2A_Alltoallv_mpich_selection, 0, 0,                       \
      "MPICH 4 MPI_Alltoallv on liba2a kernels: scattered(32), empty blocks skipped",         \
      NO_PARAMS)                                                                              \
    X(nonuniform, ompi_tuned_selection, A2A_Alltoallv_ompi_tuned_selection, 0, 0,             \
      "Open MPI 4.1 coll/tuned fixed MPI_Alltoallv decision: linear or pairwise by P",        \
      NO_PARAMS)                                                                              \
                                                                                              \
    X(inplace, vendor, A2A_Alltoallv_inplace_vendor, 1, 0,                                    \
      "the MPI library's MPI_Alltoallv(MPI_IN_PLACE)", NO_PARAMS)                              \
    X(inplace, mpich_order, A2A_Alltoallv_inplace_mpich_order, 0, 0,                          \
      "pairs (i, j >= i) with Sendrecv_replace, 2P-3 steps", NO_PARAMS)                        \
    X(inplace, linear_shift, A2A_Alltoallv_inplace_linear_shift, 0, 0,                        \
      "linear shift (LSA): at most P steps", NO_PARAMS)                                        \
    X(inplace, hier_sets, A2A_Alltoallv_inplace_hier_sets, 0, 0,                              \
      "hierarchical sets (HSA): P-1 steps for powers of 2", NO_PARAMS)                         \
    X(inplace, hier_sets_aux, A2A_Alltoallv_inplace_hier_sets_aux, 0, 0,                      \
      "HSA with an aux_bytes budget of extra memory", INT_0_TO_MAX(A2A_PARAM_AUX_BYTES))       \
                                                                                              \
    X(sdde, reference, A2A_Alltoall_crs_reference, 1, 0,                                      \
      "dense MPI_Alltoall of counts, then MPI_Alltoallv", NO_PARAMS)                           \
    X(sdde, personalized, A2A_Alltoall_crs_personalized, 0, 0,                                \
      "Allreduce of message counts, Isend, Probe/Recv", NO_PARAMS)                             \
    X(sdde, nonblocking, A2A_Alltoall_crs_nonblocking, 0, 0,                                  \
      "NBX: Issend, Iprobe loop, Ibarrier", NO_PARAMS)                                         \
    X(sdde, rma, A2A_Alltoall_crs_rma, 0, 0,                                                  \
      "window, fence, MPI_Put at the rank's slot, fence", NO_PARAMS)                           \
    X(sdde, locality_personalized, A2A_Alltoall_crs_locality_personalized, 0,                 \
      A2A_NEEDS_GROUPS, "personalized, one message per region", PPN_0_TO_P)                   \
    X(sdde, locality_nonblocking, A2A_Alltoall_crs_locality_nonblocking, 0, A2A_NEEDS_GROUPS, \
      "NBX, one message per region", PPN_0_TO_P)                                              \
                                                                                              \
    X(sddev, reference, A2A_Alltoallv_crs_reference, 1, 0,                                    \
      "dense MPI_Alltoall of counts, then MPI_Alltoallv", NO_PARAMS)                           \
    X(sddev, personalized, A2A_Alltoallv_crs_personalized, 0, 0,                              \
      "Allreduce of message counts, Isend, Probe/Recv", NO_PARAMS)                             \
    X(sddev, nonblocking, A2A_Alltoallv_crs_nonblocking, 0, 0,                                \
      "NBX: Issend, Iprobe loop, Ibarrier", NO_PARAMS)                                         \
    X(sddev, locality_personalized, A2A_Alltoallv_crs_locality_personalized, 0,               \
      A2A_NEEDS_GROUPS, "personalized, one message per region", PPN_0_TO_P)                   \
    X(sddev, locality_nonblocking, A2A_Alltoallv_crs_locality_nonblocking, 0,                 \
      A2A_NEEDS_GROUPS, "NBX, one message per region", PPN_0_TO_P)                           \
    /* the end of A2A_KERNELS: a new kernel is a line above, with its family */

/* ---- the families' call shapes ------------------------------------------------------
 * For each family: the shim's parameters (SHIM_ARGS_f, the family's call type), the
 * arguments the public function takes before the kernel's parameters (LEAD_f) and after
 * them (TRAIL_f), and the enumerator of the family (FAMILY_f). */

#define SHIM_ARGS_uniform                                                                 \
    const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt, MPI_Comm c, \
        const int *p, a2a_stats *s
#define LEAD_uniform sb, sc, st, rb, rc, rt, c
#define TRAIL_uniform , s
#define FAMILY_uniform A2A_FAMILY_UNIFORM

#define SHIM_ARGS_nonuniform                                                              \
    const void *sb, const int *sc, const int *sd, MPI_Datatype st, void *rb, const int *rc, \
        const int *rd, MPI_Datatype rt, MPI_Comm c, const int *p, a2a_stats *s
#define LEAD_nonuniform sb, sc, sd, st, rb, rc, rd, rt, c
#define TRAIL_nonuniform , s
#define FAMILY_nonuniform A2A_FAMILY_NONUNIFORM

#define SHIM_ARGS_inplace                                                                     \
    void *b, const int *n, const int *d, MPI_Datatype t, MPI_Comm c, const int *p, a2a_stats *s
#define LEAD_inplace b, n, d, t, c
#define TRAIL_inplace , s
#define FAMILY_inplace A2A_FAMILY_INPLACE

#define SHIM_ARGS_sdde                                                                        \
    int nnz, const int *dst, int sc, MPI_Datatype st, const void *sv, int *rnnz, int **src,   \
        int rc, MPI_Datatype rt, void **rv, MPI_Comm c, const int *p, a2a_stats *s
#define LEAD_sdde nnz, dst, sc, st, sv, rnnz, src, rc, rt, rv
#define TRAIL_sdde , c, s
#define FAMILY_sdde A2A_FAMILY_SDDE

#define SHIM_ARGS_sddev                                                                       \
    int nnz, int size, const int *dst, const int *sc, const int *sd, MPI_Datatype st,         \
        const void *sv, int *rnnz, int *rsize, int **src, int **rc, int **rd, MPI_Datatype rt, \
        void **rv, MPI_Comm c, const int *p, a2a_stats *s
#define LEAD_sddev nnz, size, dst, sc, sd, st, sv, rnnz, rsize, src, rc, rd, rt, rv
#define TRAIL_sddev , c, s
#define FAMILY_sddev A2A_FAMILY_SDDEV

/* ---- expansions of A2A_KERNELS ---------------------------------------------------- */

/* The shims: call_<family>_<name> calls the kernel's public function with the values of
 * its parameters taken from p (params[A2A_PARAM_*]) and returns what it returns. */
#define RANGE(param, lo_base, lo_off, hi_base, hi_off) , p[param]
#define RANGE_MEANING(meaning, param, lo_base, lo_off, hi_base, hi_off) , p[param]
#define NO_PARAMS
#define SHIM_(family, name, function, is_baseline, needs, summary, ranges)               \
    static int call_##family##_##name(SHIM_ARGS_##family)                                  \
    {                                                                                      \
        (void)p;                                                                           \
        return function(LEAD_##family ranges TRAIL_##family);                              \
    }
A2A_KERNELS(SHIM_)
#undef SHIM_
#undef RANGE
#undef RANGE_MEANING
#undef NO_PARAMS

/* How many parameters each kernel takes: nparams_<family>_<name>. */
#define RANGE(param, lo_base, lo_off, hi_base, hi_off) +1
#define RANGE_MEANING(meaning, param, lo_base, lo_off, hi_base, hi_off) +1
#define NO_PARAMS
#define NPARAMS_(family, name, function, is_baseline, needs, summary, ranges) \
    nparams_##family##_##name = 0 ranges,
enum { A2A_KERNELS(NPARAMS_) };
#undef NPARAMS_
#undef RANGE
#undef RANGE_MEANING
#undef NO_PARAMS

/* The table. */
#define RANGE(param, lo_base, lo_off, hi_base, hi_off) \
    { param, { lo_base, lo_off }, { hi_base, hi_off }, NULL },
#define RANGE_MEANING(meaning, param, lo_base, lo_off, hi_base, hi_off) \
    { param, { lo_base, lo_off }, { hi_base, hi_off }, meaning },
#define NO_PARAMS { 0 }
#define ENTRY_(family, name, function, is_baseline, needs, summary, ranges)                \
    { #name, FAMILY_##family, summary, is_baseline, nparams_##family##_##name, { ranges }, \
      needs, { .family = call_##family##_##name } },
static const a2a_kernel kernels[] = { A2A_KERNELS(ENTRY_) };
#undef ENTRY_
#undef RANGE
#undef RANGE_MEANING
#undef NO_PARAMS

/* ---- lookups ----------------------------------------------------------------------- */

static const char *const family_names[A2A_FAMILY_COUNT] = { "uniform", "nonuniform", "inplace",
                                                             "sdde", "sddev" };
#define A2A_PARAM_INFO_(ID, name, sweep_default, column, value_names, nvalues, meaning) \
    [A2A_PARAM_##ID] = { name, sweep_default, column, value_names, nvalues, meaning },
static const a2a_param_info param_info[A2A_PARAM_COUNT] = { A2A_PARAMS(A2A_PARAM_INFO_) };
#undef A2A_PARAM_INFO_

/* Guarantees: 1 exactly for kernels whose table entry has A2A_NEEDS_SHARED. */
int a2a_kernel_needs_shared(const a2a_kernel *kernel)
{
    return kernel && (kernel->needs & A2A_NEEDS_SHARED) != 0;
}

/* Guarantees: the whole table, in declaration order. */
const a2a_kernel *a2a_registry(int *count)
{
    *count = (int)(sizeof kernels / sizeof kernels[0]);
    return kernels;
}

/* Guarantees: the entry with this family and name, or NULL. */
const a2a_kernel *a2a_find_kernel(a2a_family family, const char *name)
{
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++)
        if (kernels[i].family == family && strcmp(kernels[i].name, name) == 0)
            return &kernels[i];
    return NULL;
}

/* Guarantees: a static name for every valid family, "?" otherwise. */
const char *a2a_family_name(a2a_family family)
{
    return family >= 0 && family < A2A_FAMILY_COUNT ? family_names[family] : "?";
}

/* Guarantees: the declaration of every valid parameter, NULL otherwise. */
const a2a_param_info *a2a_param_decl(a2a_param param)
{
    return param >= 0 && param < A2A_PARAM_COUNT ? &param_info[param] : NULL;
}

/* Guarantees: a static name for every valid parameter, "?" otherwise. */
const char *a2a_param_name(a2a_param param)
{
    return param >= 0 && param < A2A_PARAM_COUNT ? param_info[param].name : "?";
}

/* Guarantees: the parameter whose name matches exactly, or -1. */
int a2a_param_by_name(const char *name)
{
    for (int p = 0; p < A2A_PARAM_COUNT; p++)
        if (strcmp(param_info[p].name, name) == 0)
            return p;
    return -1;
}

/* Guarantees: see a2a_registry.h (read from the parameter's declaration). */
const char *const *a2a_param_value_names(a2a_param param, int *count)
{
    const a2a_param_info *info = a2a_param_decl(param);
    if (info && info->value_names) {
        *count = info->nvalues;
        return info->value_names();
    }
    *count = 0;
    return NULL;
}

/* Guarantees: the value's name, or its decimal number, NUL-terminated in text. */
void a2a_param_value_text(a2a_param param, int value, char *text, size_t len)
{
    int n;
    const char *const *names = a2a_param_value_names(param, &n);
    if (names && value >= 1 && value <= n)
        snprintf(text, len, "%s", names[value - 1]);
    else
        snprintf(text, len, "%d", value);
}

/* Guarantees: the family whose name matches exactly, or -1. */
int a2a_family_by_name(const char *name)
{
    for (int f = 0; f < A2A_FAMILY_COUNT; f++)
        if (strcmp(family_names[f], name) == 0)
            return f;
    return -1;
}

/* Guarantees: 1 iff `param` is among the kernel's parameters. */
int a2a_kernel_takes(const a2a_kernel *kernel, a2a_param param)
{
    for (int i = 0; i < kernel->nparams; i++)
        if (kernel->params[i].param == param)
            return 1;
    return 0;
}

static void bound_text(a2a_bound b, char *text, size_t len)
{
    static const char *const base[] = { "", "P", "Q", "N", "P-Q", "radix" };
    if (b.base == A2A_BOUND_CONST)
        snprintf(text, len, "%d", b.offset);
    else if (b.offset == 0)
        snprintf(text, len, "%s", base[b.base]);
    else
        snprintf(text, len, "%s%+d", base[b.base], b.offset);
}

/* Guarantees: "lo..hi" in text (truncated to len). */
void a2a_range_text(const a2a_param_range *range, char *text, size_t len)
{
    int n;
    const char *const *names = a2a_param_value_names(range->param, &n);
    if (names && range->lo.base == A2A_BOUND_CONST && range->hi.base == A2A_BOUND_CONST) {
        size_t used = 0;
        text[0] = 0;
        for (int v = range->lo.offset; v <= range->hi.offset && v >= 1 && v <= n && used < len; v++)
            used += (size_t)snprintf(text + used, len - used, "%s%s",
                                     v > range->lo.offset ? "|" : "", names[v - 1]);
        return;
    }
    char lo[24], hi[24];
    bound_text(range->lo, lo, sizeof lo);
    bound_text(range->hi, hi, sizeof hi);
    snprintf(text, len, "%s..%s", lo, hi);
}

static int bound_value(a2a_bound b, int P, int Q, const int *params)
{
    switch (b.base) {
    case A2A_BOUND_P: return P + b.offset;
    case A2A_BOUND_Q: return Q + b.offset;
    case A2A_BOUND_N: return (Q > 0 ? P / Q : P) + b.offset;
    case A2A_BOUND_P_Q: return P - Q + b.offset;
    case A2A_BOUND_RADIX: return params[A2A_PARAM_RADIX] + b.offset;
    default: return b.offset;
    }
}

/* Guarantees: the valid interval of range r at (P, Q): lo..max(lo, hi). */
void a2a_range_bounds(const a2a_param_range *r, int P, int Q, const int *params, int *lo,
                      int *hi)
{
    *lo = bound_value(r->lo, P, Q, params);
    *hi = bound_value(r->hi, P, Q, params);
    if (*hi < *lo)
        *hi = *lo;
}

/* Guarantees: 1 iff the parameter is not taken or its value is inside its interval. */
int a2a_param_in_range(const a2a_kernel *kernel, a2a_param param, int P, int Q,
                       const int *params)
{
    for (int i = 0; i < kernel->nparams; i++) {
        const a2a_param_range *r = &kernel->params[i];
        if (r->param != param)
            continue;
        if (param == A2A_PARAM_PPN) /* Q itself: ppn 0 means the real node */
            return params[param] >= 0 && params[param] <= P;
        int lo, hi;
        a2a_range_bounds(r, P, Q, params, &lo, &hi);
        return params[param] >= lo && params[param] <= hi;
    }
    return 1;
}

/* Guarantees: see a2a_registry.h. */
int a2a_kernel_choice(const a2a_kernel *kernel, int P, long long block_bytes, char *text,
                      size_t len)
{
    a2a_vendor_choice c;
    text[0] = 0;
    if (kernel->family == A2A_FAMILY_UNIFORM &&
        kernel->call.uniform == call_uniform_mpich_selection)
        c = A2A_Alltoall_mpich_selection_choice(P, block_bytes);
    else if (kernel->family == A2A_FAMILY_UNIFORM &&
             kernel->call.uniform == call_uniform_ompi_tuned_selection)
        c = A2A_Alltoall_ompi_tuned_selection_choice(P, block_bytes);
    else if (kernel->family == A2A_FAMILY_NONUNIFORM &&
             kernel->call.nonuniform == call_nonuniform_mpich_selection)
        c = A2A_Alltoallv_mpich_selection_choice(P);
    else if (kernel->family == A2A_FAMILY_NONUNIFORM &&
             kernel->call.nonuniform == call_nonuniform_ompi_tuned_selection)
        c = A2A_Alltoallv_ompi_tuned_selection_choice(P);
    else
        return 0;
    if (!c.kernel)
        snprintf(text, len, "chose %s (no data to move)", c.vendor_algorithm);
    else if (c.block_count > 0)
        snprintf(text, len, "chose %s = %s(block_count %d)", c.vendor_algorithm, c.kernel,
                 c.block_count);
    else
        snprintf(text, len, "chose %s = %s", c.vendor_algorithm, c.kernel);
    return 1;
}

/* Guarantees: 1 iff every parameter is in its range and the constraints hold. */
int a2a_params_valid(const a2a_kernel *kernel, int P, int Q, const int *params,
                     char *why, size_t len)
{
    for (int p = 0; p < A2A_PARAM_COUNT; p++)
        if (params[p] != 0 && !a2a_kernel_takes(kernel, (a2a_param)p)) {
            snprintf(why, len, "%s does not take %s", kernel->name, param_info[p].name);
            return 0;
        }
    if ((kernel->needs & A2A_NEEDS_GROUPS) && (Q < 1 || Q > P || P % Q != 0)) {
        snprintf(why, len, "P = %d is not a multiple of Q = %d", P, Q);
        return 0;
    }
    for (int i = 0; i < kernel->nparams; i++) {
        const a2a_param_range *r = &kernel->params[i];
        if (a2a_param_in_range(kernel, r->param, P, Q, params))
            continue;
        if (r->param == A2A_PARAM_PPN) {
            snprintf(why, len, "ppn = %d outside 0..P = 0..%d", params[r->param], P);
            return 0;
        }
        char range[64];
        int lo, hi;
        a2a_range_text(r, range, sizeof range);
        a2a_range_bounds(r, P, Q, params, &lo, &hi);
        snprintf(why, len, "%s = %d outside %s = %d..%d at P = %d, Q = %d",
                 param_info[r->param].name, params[r->param], range, lo, hi, P, Q);
        return 0;
    }
    return 1;
}
