/* registry.c — the one table of kernels: names, families, parameters, ranges, calls. */
#include <stdio.h>
#include <string.h>
#include "a2a_registry.h"

/* ---- calls: adapt each public function to its family's call shape ---------------- */

#define UNIFORM_ARGS                                                                      \
    const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt, MPI_Comm c, \
        const int *p, a2a_stats *s
#define NONUNIFORM_ARGS                                                                   \
    const void *sb, const int *sc, const int *sd, MPI_Datatype st, void *rb, const int *rc, \
        const int *rd, MPI_Datatype rt, MPI_Comm c, const int *p, a2a_stats *s

static int u_vendor(UNIFORM_ARGS)
{
    return A2A_Alltoall_vendor_algorithm(sb, sc, st, rb, rc, rt, c, p[A2A_PARAM_VENDOR_ALGORITHM], s);
}
static int u_spread_out(UNIFORM_ARGS) { (void)p; return A2A_Alltoall_spread_out(sb, sc, st, rb, rc, rt, c, s); }
static int u_pairwise(UNIFORM_ARGS) { (void)p; return A2A_Alltoall_pairwise(sb, sc, st, rb, rc, rt, c, s); }
static int u_scattered(UNIFORM_ARGS)
{
    return A2A_Alltoall_scattered(sb, sc, st, rb, rc, rt, c, p[A2A_PARAM_BLOCK_COUNT], s);
}
static int u_bruck(UNIFORM_ARGS) { (void)p; return A2A_Alltoall_bruck(sb, sc, st, rb, rc, rt, c, s); }
static int u_tra(UNIFORM_ARGS) { return A2A_Alltoall_tra(sb, sc, st, rb, rc, rt, c, p[A2A_PARAM_RADIX], s); }
static int u_tra2(UNIFORM_ARGS)
{
    return A2A_Alltoall_tra2(sb, sc, st, rb, rc, rt, c, p[A2A_PARAM_RADIX], p[A2A_PARAM_RADIX2],
                             p[A2A_PARAM_PPN], s);
}
static int u_pairwise_xor(UNIFORM_ARGS)
{
    (void)p;
    return A2A_Alltoall_pairwise_xor(sb, sc, st, rb, rc, rt, c, s);
}
static int u_linear_sync(UNIFORM_ARGS)
{
    return A2A_Alltoall_linear_sync(sb, sc, st, rb, rc, rt, c, p[A2A_PARAM_BLOCK_COUNT], s);
}
static int u_mpich_selection(UNIFORM_ARGS)
{
    (void)p;
    return A2A_Alltoall_mpich_selection(sb, sc, st, rb, rc, rt, c, s);
}
static int u_ompi_tuned_selection(UNIFORM_ARGS)
{
    (void)p;
    return A2A_Alltoall_ompi_tuned_selection(sb, sc, st, rb, rc, rt, c, s);
}
static int u_hint(UNIFORM_ARGS)
{
    return A2A_Alltoall_hint(sb, sc, st, rb, rc, rt, c, p[A2A_PARAM_ORDER],
                             p[A2A_PARAM_THRESHOLD], p[A2A_PARAM_PPN], s);
}

static int v_vendor(NONUNIFORM_ARGS)
{
    return A2A_Alltoallv_vendor_algorithm(sb, sc, sd, st, rb, rc, rd, rt, c,
                                          p[A2A_PARAM_VENDOR_ALGORITHM], s);
}
static int v_spread_out(NONUNIFORM_ARGS) { (void)p; return A2A_Alltoallv_spread_out(sb, sc, sd, st, rb, rc, rd, rt, c, s); }
static int v_linear(NONUNIFORM_ARGS) { (void)p; return A2A_Alltoallv_linear(sb, sc, sd, st, rb, rc, rd, rt, c, s); }
static int v_pairwise(NONUNIFORM_ARGS) { (void)p; return A2A_Alltoallv_pairwise(sb, sc, sd, st, rb, rc, rd, rt, c, s); }
static int v_scattered(NONUNIFORM_ARGS)
{
    return A2A_Alltoallv_scattered(sb, sc, sd, st, rb, rc, rd, rt, c, p[A2A_PARAM_BLOCK_COUNT], s);
}
static int v_twophase_bruck(NONUNIFORM_ARGS)
{
    (void)p;
    return A2A_Alltoallv_twophase_bruck(sb, sc, sd, st, rb, rc, rd, rt, c, s);
}
static int v_tuna(NONUNIFORM_ARGS)
{
    return A2A_Alltoallv_tuna(sb, sc, sd, st, rb, rc, rd, rt, c, p[A2A_PARAM_RADIX],
                              p[A2A_PARAM_BLOCK_COUNT], s);
}
static int v_tuna_staggered(NONUNIFORM_ARGS)
{
    return A2A_Alltoallv_tuna_staggered(sb, sc, sd, st, rb, rc, rd, rt, c, p[A2A_PARAM_RADIX],
                                        p[A2A_PARAM_BLOCK_COUNT], p[A2A_PARAM_PPN], s);
}
static int v_tuna_coalesced(NONUNIFORM_ARGS)
{
    return A2A_Alltoallv_tuna_coalesced(sb, sc, sd, st, rb, rc, rd, rt, c, p[A2A_PARAM_RADIX],
                                        p[A2A_PARAM_BLOCK_COUNT], p[A2A_PARAM_PPN], s);
}

static int v_mpich_selection(NONUNIFORM_ARGS)
{
    (void)p;
    return A2A_Alltoallv_mpich_selection(sb, sc, sd, st, rb, rc, rd, rt, c, s);
}
static int v_ompi_tuned_selection(NONUNIFORM_ARGS)
{
    (void)p;
    return A2A_Alltoallv_ompi_tuned_selection(sb, sc, sd, st, rb, rc, rd, rt, c, s);
}

#define INPLACE_ARGS                                                                          \
    void *b, const int *n, const int *d, MPI_Datatype t, MPI_Comm c, const int *p, a2a_stats *s

static int i_vendor(INPLACE_ARGS) { (void)p; return A2A_Alltoallv_inplace_vendor(b, n, d, t, c, s); }
static int i_mpich_order(INPLACE_ARGS) { (void)p; return A2A_Alltoallv_inplace_mpich_order(b, n, d, t, c, s); }
static int i_linear_shift(INPLACE_ARGS) { (void)p; return A2A_Alltoallv_inplace_linear_shift(b, n, d, t, c, s); }
static int i_hier_sets(INPLACE_ARGS) { (void)p; return A2A_Alltoallv_inplace_hier_sets(b, n, d, t, c, s); }
static int i_hier_sets_aux(INPLACE_ARGS)
{
    return A2A_Alltoallv_inplace_hier_sets_aux(b, n, d, t, c, p[A2A_PARAM_AUX_BYTES], s);
}

#define SDDE_ARGS                                                                             \
    int nnz, const int *dst, int sc, MPI_Datatype st, const void *sv, int *rnnz, int **src,   \
        int rc, MPI_Datatype rt, void **rv, MPI_Comm c, const int *p, a2a_stats *s
#define SDDE_PASS nnz, dst, sc, st, sv, rnnz, src, rc, rt, rv
#define SDDEV_ARGS                                                                            \
    int nnz, int size, const int *dst, const int *sc, const int *sd, MPI_Datatype st,         \
        const void *sv, int *rnnz, int *rsize, int **src, int **rc, int **rd, MPI_Datatype rt, \
        void **rv, MPI_Comm c, const int *p, a2a_stats *s
#define SDDEV_PASS nnz, size, dst, sc, sd, st, sv, rnnz, rsize, src, rc, rd, rt, rv

static int s_reference(SDDE_ARGS) { (void)p; return A2A_Alltoall_crs_reference(SDDE_PASS, c, s); }
static int s_personalized(SDDE_ARGS) { (void)p; return A2A_Alltoall_crs_personalized(SDDE_PASS, c, s); }
static int s_nonblocking(SDDE_ARGS) { (void)p; return A2A_Alltoall_crs_nonblocking(SDDE_PASS, c, s); }
static int s_rma(SDDE_ARGS) { (void)p; return A2A_Alltoall_crs_rma(SDDE_PASS, c, s); }
static int s_loc_personalized(SDDE_ARGS)
{
    return A2A_Alltoall_crs_locality_personalized(SDDE_PASS, p[A2A_PARAM_PPN], c, s);
}
static int s_loc_nonblocking(SDDE_ARGS)
{
    return A2A_Alltoall_crs_locality_nonblocking(SDDE_PASS, p[A2A_PARAM_PPN], c, s);
}
static int sv_reference(SDDEV_ARGS) { (void)p; return A2A_Alltoallv_crs_reference(SDDEV_PASS, c, s); }
static int sv_personalized(SDDEV_ARGS) { (void)p; return A2A_Alltoallv_crs_personalized(SDDEV_PASS, c, s); }
static int sv_nonblocking(SDDEV_ARGS) { (void)p; return A2A_Alltoallv_crs_nonblocking(SDDEV_PASS, c, s); }
static int sv_loc_personalized(SDDEV_ARGS)
{
    return A2A_Alltoallv_crs_locality_personalized(SDDEV_PASS, p[A2A_PARAM_PPN], c, s);
}
static int sv_loc_nonblocking(SDDEV_ARGS)
{
    return A2A_Alltoallv_crs_locality_nonblocking(SDDEV_PASS, p[A2A_PARAM_PPN], c, s);
}

/* ---- the table -------------------------------------------------------------------- */

#define RANGE(param, lo_base, lo_off, hi_base, hi_off) \
    { param, { lo_base, lo_off }, { hi_base, hi_off }, NULL }
/* A range with what the parameter means for the kernel (block_count means one thing each) */
#define RANGE_MEANING(meaning, param, lo_base, lo_off, hi_base, hi_off) \
    { param, { lo_base, lo_off }, { hi_base, hi_off }, meaning }
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

static const a2a_kernel kernels[] = {
    { "vendor", A2A_FAMILY_UNIFORM, "the MPI library's MPI_Alltoall" A2A_VENDOR_ALLTOALL_SUMMARY,
      1, 1, { RANGE(A2A_PARAM_VENDOR_ALGORITHM, A2A_BOUND_CONST, 0, A2A_BOUND_CONST,
                    A2A_VENDOR_ALLTOALL_MAX) }, 0, { .uniform = u_vendor } },
    { "spread_out", A2A_FAMILY_UNIFORM, "all Isend/Irecv at once, round-robin peers", 0, 0,
      { { 0 } }, 0, { .uniform = u_spread_out } },
    { "pairwise", A2A_FAMILY_UNIFORM, "P-1 rounds of Sendrecv with rank+i / rank-i", 0, 0,
      { { 0 } }, 0, { .uniform = u_pairwise } },
    { "scattered", A2A_FAMILY_UNIFORM, "spread-out in batches of block_count (MPICH)", 0, 1,
      { BLOCK_COUNT_1_TO_P }, 0, { .uniform = u_scattered } },
    { "bruck", A2A_FAMILY_UNIFORM, "classic Bruck, radix 2: log2 P rounds", 0, 0, { { 0 } }, 0,
      { .uniform = u_bruck } },
    { "tra", A2A_FAMILY_UNIFORM, "tunable-radix Bruck (TRA), any P", 0, 1, { RADIX_2_TO_P }, 0,
      { .uniform = u_tra } },
    { "tra2", A2A_FAMILY_UNIFORM, "two-layer TRA: intra-node radix, inter-node radix2", 0, 3,
      { RADIX_2_TO_Q, RADIX2_2_TO_N, PPN_0_TO_P }, A2A_NEEDS_GROUPS, { .uniform = u_tra2 } },
    { "pairwise_xor", A2A_FAMILY_UNIFORM,
      "pairwise as MPICH pairs: rank XOR i for P a power of 2, else rank+i / rank-i", 0, 0,
      { { 0 } }, 0, { .uniform = u_pairwise_xor } },
    { "linear_sync", A2A_FAMILY_UNIFORM,
      "Open MPI linear_sync: block_count requests of each kind outstanding, refilled", 0, 1,
      { RANGE_MEANING("receives (and sends) outstanding; P-1 or more: all at once",
                      A2A_PARAM_BLOCK_COUNT, A2A_BOUND_CONST, 1, A2A_BOUND_P, 0) },
      0, { .uniform = u_linear_sync } },
    { "mpich_selection", A2A_FAMILY_UNIFORM,
      "MPICH 4 MPI_Alltoall selection on liba2a kernels: bruck / scattered(32) / pairwise_xor",
      0, 0, { { 0 } }, 0, { .uniform = u_mpich_selection } },
    { "ompi_tuned_selection", A2A_FAMILY_UNIFORM,
      "Open MPI 4.1 coll/tuned fixed MPI_Alltoall decision on liba2a kernels", 0, 0, { { 0 } },
      0, { .uniform = u_ompi_tuned_selection } },
    { "hint", A2A_FAMILY_UNIFORM,
      "HINT: ordered single copies through a shared window, hybrid NT stores", 0, 3,
      { RANGE(A2A_PARAM_ORDER, A2A_BOUND_CONST, A2A_ORDER_ROW, A2A_BOUND_CONST, A2A_ORDER_LAST),
        RANGE(A2A_PARAM_THRESHOLD, A2A_BOUND_CONST, 0, A2A_BOUND_CONST, 2147483647), PPN_0_TO_P },
      A2A_NEEDS_GROUPS | A2A_NEEDS_SHARED, { .uniform = u_hint } },

    { "vendor", A2A_FAMILY_NONUNIFORM, "the MPI library's MPI_Alltoallv" A2A_VENDOR_ALLTOALLV_SUMMARY,
      1, 1, { RANGE(A2A_PARAM_VENDOR_ALGORITHM, A2A_BOUND_CONST, 0, A2A_BOUND_CONST,
                    A2A_VENDOR_ALLTOALLV_MAX) }, 0, { .nonuniform = v_vendor } },
    { "spread_out", A2A_FAMILY_NONUNIFORM, "all Isend/Irecv at once, round-robin peers", 0, 0,
      { { 0 } }, 0, { .nonuniform = v_spread_out } },
    { "scattered", A2A_FAMILY_NONUNIFORM, "spread-out in batches of block_count (MPICH)", 0,
      1, { BLOCK_COUNT_1_TO_P }, 0, { .nonuniform = v_scattered } },
    { "linear", A2A_FAMILY_NONUNIFORM, "all requests in ascending rank order (Open MPI basic)",
      0, 0, { { 0 } }, 0, { .nonuniform = v_linear } },
    { "pairwise", A2A_FAMILY_NONUNIFORM, "per round one Irecv + blocking Send (Open MPI)", 0, 0,
      { { 0 } }, 0, { .nonuniform = v_pairwise } },
    { "twophase_bruck", A2A_FAMILY_NONUNIFORM, "two-phase Bruck, radix 2: sizes, then data", 0,
      0, { { 0 } }, 0, { .nonuniform = v_twophase_bruck } },
    { "tuna", A2A_FAMILY_NONUNIFORM, "TuNA: tunable radix, block_count sub-rounds in flight", 0,
      2, { RADIX_2_TO_P, BLOCK_COUNT_1_TO_RADIX_1 }, 0, { .nonuniform = v_tuna } },
    { "tuna_staggered", A2A_FAMILY_NONUNIFORM,
      "TuNA_l^g: intra-node TuNA, inter-node scattered, 1 block/message", 0, 3,
      { RADIX_2_TO_Q,
        RANGE_MEANING("inter-node messages per batch (one block each)", A2A_PARAM_BLOCK_COUNT,
                      A2A_BOUND_CONST, 1, A2A_BOUND_P_Q, 0),
        PPN_0_TO_P }, A2A_NEEDS_GROUPS, { .nonuniform = v_tuna_staggered } },
    { "tuna_coalesced", A2A_FAMILY_NONUNIFORM,
      "TuNA_l^g: intra-node TuNA, inter-node scattered, Q blocks/message", 0, 3,
      { RADIX_2_TO_Q,
        RANGE_MEANING("inter-node rounds per batch (Q blocks a message)", A2A_PARAM_BLOCK_COUNT,
                      A2A_BOUND_CONST, 1, A2A_BOUND_N, -1),
        PPN_0_TO_P }, A2A_NEEDS_GROUPS, { .nonuniform = v_tuna_coalesced } },
    { "mpich_selection", A2A_FAMILY_NONUNIFORM,
      "MPICH 4 MPI_Alltoallv on liba2a kernels: scattered(32), empty blocks skipped", 0, 0,
      { { 0 } }, 0, { .nonuniform = v_mpich_selection } },
    { "ompi_tuned_selection", A2A_FAMILY_NONUNIFORM,
      "Open MPI 4.1 coll/tuned fixed MPI_Alltoallv decision: linear or pairwise by P", 0, 0,
      { { 0 } }, 0, { .nonuniform = v_ompi_tuned_selection } },

    { "vendor", A2A_FAMILY_INPLACE, "the MPI library's MPI_Alltoallv(MPI_IN_PLACE)", 1, 0,
      { { 0 } }, 0, { .inplace = i_vendor } },
    { "mpich_order", A2A_FAMILY_INPLACE, "pairs (i, j >= i) with Sendrecv_replace, 2P-3 steps", 0,
      0, { { 0 } }, 0, { .inplace = i_mpich_order } },
    { "linear_shift", A2A_FAMILY_INPLACE, "linear shift (LSA): at most P steps", 0, 0, { { 0 } },
      0, { .inplace = i_linear_shift } },
    { "hier_sets", A2A_FAMILY_INPLACE, "hierarchical sets (HSA): P-1 steps for powers of 2", 0, 0,
      { { 0 } }, 0, { .inplace = i_hier_sets } },
    { "hier_sets_aux", A2A_FAMILY_INPLACE, "HSA with an aux_bytes budget of extra memory", 0, 1,
      { RANGE(A2A_PARAM_AUX_BYTES, A2A_BOUND_CONST, 0, A2A_BOUND_CONST, 2147483647) }, 0,
      { .inplace = i_hier_sets_aux } },

    { "reference", A2A_FAMILY_SDDE, "dense MPI_Alltoall of counts, then MPI_Alltoallv", 1, 0,
      { { 0 } }, 0, { .sdde = s_reference } },
    { "personalized", A2A_FAMILY_SDDE, "Allreduce of message counts, Isend, Probe/Recv", 0, 0,
      { { 0 } }, 0, { .sdde = s_personalized } },
    { "nonblocking", A2A_FAMILY_SDDE, "NBX: Issend, Iprobe loop, Ibarrier", 0, 0, { { 0 } }, 0,
      { .sdde = s_nonblocking } },
    { "rma", A2A_FAMILY_SDDE, "window, fence, MPI_Put at the rank's slot, fence", 0, 0,
      { { 0 } }, 0, { .sdde = s_rma } },
    { "locality_personalized", A2A_FAMILY_SDDE, "personalized, one message per region", 0, 1,
      { PPN_0_TO_P }, A2A_NEEDS_GROUPS, { .sdde = s_loc_personalized } },
    { "locality_nonblocking", A2A_FAMILY_SDDE, "NBX, one message per region", 0, 1,
      { PPN_0_TO_P }, A2A_NEEDS_GROUPS, { .sdde = s_loc_nonblocking } },

    { "reference", A2A_FAMILY_SDDEV, "dense MPI_Alltoall of counts, then MPI_Alltoallv", 1, 0,
      { { 0 } }, 0, { .sddev = sv_reference } },
    { "personalized", A2A_FAMILY_SDDEV, "Allreduce of message counts, Isend, Probe/Recv", 0, 0,
      { { 0 } }, 0, { .sddev = sv_personalized } },
    { "nonblocking", A2A_FAMILY_SDDEV, "NBX: Issend, Iprobe loop, Ibarrier", 0, 0, { { 0 } }, 0,
      { .sddev = sv_nonblocking } },
    { "locality_personalized", A2A_FAMILY_SDDEV, "personalized, one message per region", 0, 1,
      { PPN_0_TO_P }, A2A_NEEDS_GROUPS, { .sddev = sv_loc_personalized } },
    { "locality_nonblocking", A2A_FAMILY_SDDEV, "NBX, one message per region", 0, 1,
      { PPN_0_TO_P }, A2A_NEEDS_GROUPS, { .sddev = sv_loc_nonblocking } },
};

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
    if (kernel->family == A2A_FAMILY_UNIFORM && kernel->call.uniform == u_mpich_selection)
        c = A2A_Alltoall_mpich_selection_choice(P, block_bytes);
    else if (kernel->family == A2A_FAMILY_UNIFORM && kernel->call.uniform == u_ompi_tuned_selection)
        c = A2A_Alltoall_ompi_tuned_selection_choice(P, block_bytes);
    else if (kernel->family == A2A_FAMILY_NONUNIFORM && kernel->call.nonuniform == v_mpich_selection)
        c = A2A_Alltoallv_mpich_selection_choice(P);
    else if (kernel->family == A2A_FAMILY_NONUNIFORM &&
             kernel->call.nonuniform == v_ompi_tuned_selection)
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
