/*
 * online_candidates.c — the online tuner's candidates for a call shape (see
 * online_candidates.h): the MPI library's own algorithm; the direct exchanges and Bruck;
 * scattered above one batch; the tunable-radix kernel (tra / tuna) at the radices the K/D
 * model of the TRA paper (kernels/common/radix_model.h) makes cheapest for a
 * latency/bandwidth ratio between 512 B and 8 KiB.
 */
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include "online_candidates.h"
#include "radix_model.h"

#define MAX_RADICES 3         /* tunable-radix candidates per shape */
#define MODEL_RATIO_LO 512.0  /* latency / bandwidth ratios (bytes) the radices are picked */
#define MODEL_RATIO_HI 8192.0 /* for: shared memory to a fast network */
#define SCATTERED_BATCH 32    /* scattered's batch, MPICH's default throttle */

typedef struct candidate_set {
    a2a_online_candidate *out;
    int n, max, P;
} candidate_set;

/* Guarantees: appends kernel `name` of the family with the parameters given (pairs of
 * a2a_param, value, ended by -1) when it exists, is valid at P, is not there yet and there
 * is room; kernels needing node groups or shared buffers are never added. */
static void add_candidate(candidate_set *set, a2a_family family, const char *name, ...)
{
    const a2a_kernel *k = a2a_find_kernel(family, name);
    if (!k || set->n >= set->max || k->needs)
        return;
    a2a_online_candidate *c = &set->out[set->n];
    memset(c, 0, sizeof *c);
    c->kernel = k;
    va_list ap;
    va_start(ap, name);
    for (int p = va_arg(ap, int); p >= 0; p = va_arg(ap, int))
        c->params[p] = va_arg(ap, int);
    va_end(ap);
    char why[160];
    for (int i = 0; i < set->n; i++) /* the same kernel and parameters once */
        if (set->out[i].kernel == k && !memcmp(set->out[i].params, c->params, sizeof c->params))
            return;
    /* valid at P alone, whatever S: so a call run on a predicted S (the alltoallv calls of
     * a2a_online_predicted_call) is valid for any candidate */
    if (a2a_params_valid(k, set->P, set->P, c->params, why, sizeof why))
        set->n++;
}

/* Guarantees: up to MAX_RADICES radices in 2..P, each the one minimising the K/D model's
 * cost K * ratio + D * S for some ratio of MODEL_RATIO_LO..MODEL_RATIO_HI (five ratios,
 * geometrically spaced); sorted ascending, no repeats. Returns how many. */
static int model_radices(int P, long long S, int *radices)
{
    int n = 0;
    double b = S > 0 ? (double)S : 1.0;
    for (int i = 0; i < 5; i++) {
        double ratio = MODEL_RATIO_LO * pow(MODEL_RATIO_HI / MODEL_RATIO_LO, i / 4.0);
        int best = 2;
        double best_cost = HUGE_VAL;
        for (int r = 2; r <= P; r++) {
            double cost = (double)a2a_model_rounds(P, r) * ratio + (double)a2a_model_blocks(P, r) * b;
            if (cost < best_cost) {
                best_cost = cost;
                best = r;
            }
        }
        int seen = 0;
        for (int j = 0; j < n; j++)
            seen |= radices[j] == best;
        if (!seen && n < MAX_RADICES)
            radices[n++] = best;
    }
    for (int i = 1; i < n; i++) /* insertion sort */
        for (int j = i; j > 0 && radices[j - 1] > radices[j]; j--) {
            int t = radices[j];
            radices[j] = radices[j - 1];
            radices[j - 1] = t;
        }
    return n;
}

/* Guarantees: see online_candidates.h. */
int a2a_online_candidates(int alltoallv, int P, long long S, a2a_online_candidate *out, int max)
{
    const int end = -1;
    long long low = 0; /* the lower end of S's bucket: one list for every S of a shape */
    for (long long s = S; s > 0; s >>= 1)
        low = low ? low << 1 : 1;
    S = low;
    candidate_set set = { out, 0, max, P };
    int radices[MAX_RADICES];
    int nr = model_radices(P, S, radices);
    a2a_family f = alltoallv ? A2A_FAMILY_NONUNIFORM : A2A_FAMILY_UNIFORM;
    add_candidate(&set, f, "vendor", A2A_PARAM_VENDOR_ALGORITHM, 0, end);
    add_candidate(&set, f, "spread_out", end);
    add_candidate(&set, f, "pairwise", end);
    if (!alltoallv) {
        add_candidate(&set, f, "bruck", end);
    } else {
        add_candidate(&set, f, "linear", end);
        add_candidate(&set, f, "twophase_bruck", end);
    }
    if (P > SCATTERED_BATCH) /* at or below it, one batch: spread_out */
        add_candidate(&set, f, "scattered", A2A_PARAM_BLOCK_COUNT, SCATTERED_BATCH, end);
    for (int i = 0; i < nr; i++) {
        if (!alltoallv)
            add_candidate(&set, f, "tra", A2A_PARAM_RADIX, radices[i], end);
        else /* every sub-round of a round in flight */
            add_candidate(&set, f, "tuna", A2A_PARAM_RADIX, radices[i], A2A_PARAM_BLOCK_COUNT,
                          radices[i] - 1, end);
    }
    return set.n;
}
