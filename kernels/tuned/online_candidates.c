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

/* The cost model: a candidate's time is steps * alpha + messages * o + bytes sent (in
 * units of the time of one byte). The ranges of alpha and o (bytes) are those the rule must
 * hold over; a candidate beyond KEEP_FACTOR times the cheapest at every point of the grid
 * over them is left out. Chosen on the dev data sets of `a2a online-candidates`
 * (docs/results/online-candidates.md). */
#ifndef ALPHA_LO
#define ALPHA_LO 1024.0
#endif
#ifndef ALPHA_HI
#define ALPHA_HI 16384.0
#endif
#ifndef OVERHEAD_LO
#define OVERHEAD_LO 256.0
#endif
#ifndef OVERHEAD_HI
#define OVERHEAD_HI 8192.0
#endif
#ifndef KEEP_FACTOR
#define KEEP_FACTOR 1.5
#endif
#ifndef TUNA_STEPS_DIGITS     /* 1: tuna's serial steps are its digits (block_count = */
#define TUNA_STEPS_DIGITS 1   /* radix - 1 keeps a round's sub-rounds in flight); 0: K */
#endif
#define GRID 5                /* points of each range, geometrically spaced */
#define MAX_RADICES 3         /* tunable-radix candidates per shape */
#define SCATTERED_BATCH 32    /* scattered's batch, MPICH's default throttle */
#define MAX_MODELLED 16

typedef struct candidate_set {
    a2a_online_candidate *out;
    int n, max, P;
} candidate_set;

/* A candidate's counts in the cost model: serial steps, messages and blocks one rank
 * sends. */
typedef struct counts {
    double steps, messages, blocks;
} counts;

/* Guarantees: the cost model's time of c at grid point (i, j) for blocks of S bytes. */
static double cost(const counts *c, int i, int j, double S)
{
    double alpha = ALPHA_LO * pow(ALPHA_HI / ALPHA_LO, i / (GRID - 1.0));
    double o = OVERHEAD_LO * pow(OVERHEAD_HI / OVERHEAD_LO, j / (GRID - 1.0));
    return c->steps * alpha + c->messages * o + c->blocks * S;
}

/* Guarantees: the counts of the tunable-radix kernel at radix r: tra's rounds are serial
 * steps (K), tuna's (every sub-round of a round in flight, block_count = r - 1) are its
 * digits; both send K messages and D blocks. */
static counts radix_counts(int P, int r, int alltoallv)
{
    counts c = { (double)a2a_model_rounds(P, r), (double)a2a_model_rounds(P, r),
                 (double)a2a_model_blocks(P, r) };
    if (alltoallv && TUNA_STEPS_DIGITS)
        c.steps = a2a_model_digits(P, r);
    return c;
}

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
    if (a2a_params_valid(k, set->P, set->P, c->params, why, sizeof why))
        set->n++;
}

/* Guarantees: up to MAX_RADICES radices in 2..P, each the cheapest radix of the cost
 * model at some point of the grid (the larger on a tie: radix P's one exchange), those
 * cheapest at the most points first; sorted ascending, no repeats. Returns how many. */
static int model_radices(int P, double S, int alltoallv, int *radices)
{
    int found[GRID * GRID], wins[GRID * GRID], n = 0;
    for (int i = 0; i < GRID; i++)
        for (int j = 0; j < GRID; j++) {
            int best = 2;
            double best_cost = HUGE_VAL;
            for (int r = 2; r <= P; r++) {
                counts c = radix_counts(P, r, alltoallv);
                double t = cost(&c, i, j, S);
                if (t <= best_cost) {
                    best_cost = t;
                    best = r;
                }
            }
            int k = 0;
            while (k < n && found[k] != best)
                k++;
            if (k == n) {
                found[n] = best;
                wins[n++] = 0;
            }
            wins[k]++;
        }
    int m = 0;
    while (m < MAX_RADICES && m < n) { /* the most wins first */
        int top = m;
        for (int k = m + 1; k < n; k++)
            if (wins[k] > wins[top])
                top = k;
        int f = found[top], w = wins[top];
        found[top] = found[m], wins[top] = wins[m];
        found[m] = f, wins[m] = w;
        radices[m] = f;
        m++;
    }
    for (int i = 1; i < m; i++) /* insertion sort */
        for (int j = i; j > 0 && radices[j - 1] > radices[j]; j--) {
            int t = radices[j];
            radices[j] = radices[j - 1];
            radices[j - 1] = t;
        }
    return m;
}

/* Guarantees: 1 when `mine` is within KEEP_FACTOR of the cheapest of all[0..n) at some
 * point of the grid. */
static int worth_trying(const counts *mine, const counts *all, int n, double S)
{
    for (int i = 0; i < GRID; i++)
        for (int j = 0; j < GRID; j++) {
            double least = HUGE_VAL;
            for (int k = 0; k < n; k++) {
                double t = cost(&all[k], i, j, S);
                least = t < least ? t : least;
            }
            if (cost(mine, i, j, S) <= KEEP_FACTOR * least)
                return 1;
        }
    return 0;
}

/* Guarantees: see online_candidates.h. The MPI library always; the direct exchanges
 * (spread_out and linear: one step of P - 1 messages; pairwise: P - 1 steps; scattered:
 * a step per batch of 32), Bruck (tra's counts at radix 2; twophase_bruck twice that, its
 * sizes first) and tra / tuna at the model's radices, each only when the cost model puts it
 * within KEEP_FACTOR of the cheapest of them at some point of the grid. */
int a2a_online_candidates(int alltoallv, int P, long long S, a2a_online_candidate *out, int max)
{
    const int end = -1;
    long long low = 0; /* the lower end of S's bucket: one list for every S of a shape */
    for (long long s = S; s > 0; s >>= 1)
        low = low ? low << 1 : 1;
    double b = low > 0 ? (double)low : 1.0;
    candidate_set set = { out, 0, max, P };
    a2a_family f = alltoallv ? A2A_FAMILY_NONUNIFORM : A2A_FAMILY_UNIFORM;
    add_candidate(&set, f, "vendor", A2A_PARAM_VENDOR_ALGORITHM, 0, end);
    if (P < 2)
        return set.n;
    int radices[MAX_RADICES];
    int nr = model_radices(P, b, alltoallv, radices);
    double n1 = P - 1.0;
    counts direct = { 1, n1, n1 }, pairwise = { n1, n1, n1 };
    counts scattered = { ceil(n1 / SCATTERED_BATCH), n1, n1 };
    counts bruck = radix_counts(P, 2, 0);
    counts twophase = { 2 * bruck.steps, 2 * bruck.messages, bruck.blocks };
    counts all[MAX_MODELLED];
    int na = 0;
    all[na++] = direct;
    all[na++] = pairwise;
    all[na++] = alltoallv ? twophase : bruck;
    if (P > SCATTERED_BATCH)
        all[na++] = scattered;
    for (int i = 0; i < nr; i++)
        all[na++] = radix_counts(P, radices[i], alltoallv);
    if (worth_trying(&direct, all, na, b))
        add_candidate(&set, f, "spread_out", end);
    if (worth_trying(&pairwise, all, na, b))
        add_candidate(&set, f, "pairwise", end);
    if (!alltoallv && worth_trying(&bruck, all, na, b))
        add_candidate(&set, f, "bruck", end);
    if (alltoallv && worth_trying(&direct, all, na, b))
        add_candidate(&set, f, "linear", end);
    if (alltoallv && worth_trying(&twophase, all, na, b))
        add_candidate(&set, f, "twophase_bruck", end);
    if (P > SCATTERED_BATCH && worth_trying(&scattered, all, na, b)) /* at or below: spread_out */
        add_candidate(&set, f, "scattered", A2A_PARAM_BLOCK_COUNT, SCATTERED_BATCH, end);
    for (int i = 0; i < nr; i++) {
        counts c = radix_counts(P, radices[i], alltoallv);
        if (!worth_trying(&c, all, na, b))
            continue;
        if (!alltoallv)
            add_candidate(&set, f, "tra", A2A_PARAM_RADIX, radices[i], end);
        else /* every sub-round of a round in flight */
            add_candidate(&set, f, "tuna", A2A_PARAM_RADIX, radices[i], A2A_PARAM_BLOCK_COUNT,
                          radices[i] - 1, end);
    }
    return set.n;
}
