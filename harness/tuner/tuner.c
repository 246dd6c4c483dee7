/* tuner.c — model-guided choice of the configurations to measure (see tuner.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "radix_model.h"
#include "tuner.h"

/* Length scales of the residual smoothing, in log2 units: a neighbour one octave of S
 * away weighs exp(-(1/1.5)^2) = 0.64, one doubling of P or of the radix exp(-1) = 0.37;
 * a different value of another parameter (block_count, vendor_algorithm) divides by e^2. */
#define SCALE_S 1.5
#define SCALE_P 1.0
#define SCALE_R 1.0
#define OTHER_PARAM_PENALTY 2.0
#define CELL_SCALE_S 0.75      /* what the model misses at one (P, S) in every kernel (a
                                * protocol switch, a cache) changes quickly with S */
#define PRIOR_WEIGHT 0.5      /* weight of "the model is right" against the neighbours */
#define DEFAULT_MODEL_SD 0.5  /* log-scale spread of the model before it can be measured */
#define MIN_MODEL_SD 0.05
#define MIN_MEDIAN_SE 0.005
#define SCREEN_SD 0.05        /* a screen's log median from the measurement's, before the
                               * candidates both screened and measured say (screen_sd) */
#define SCREEN_SD_WEIGHT 2.0  /* ...counted as this many such candidates */
#define DEFAULT_DRIFT 0.35     /* a2a tune's CELL_DRIFT (tune.py): sd of log(default / choice)
                               * from a cell to its neighbour */
#define DEFAULT_CONFIDENCE 0.95 /* a2a tune's DEFAULT_CONFIDENCE */
#define MAX_NEAR 8            /* neighbouring cells: S and P one step away, diagonals included */
#define PAIR_SD 0.35          /* log-scale drift, from a cell to its neighbour, of how much
                               * faster one candidate is than another */
#define PAIR_MAX_WEIGHT 2.0   /* neighbours agree with each other more than independently */
#define MISS_Z 3.0            /* a prediction off by more of its sds than this is a miss */
#define MISS_SD 0.5           /* how far (log) a miss is, before one is seen... */
#define MISS_PRIOR 0.5        /* ...counted as this many misses among... */
#define MISS_PRIOR_WEIGHT 20.0 /* ...this many predictions, before any is checked */

/* The one list of the search's switchable rules (tuner.h, tuner_rule), in its order. */
static const char *const rule_names[TUNER_RULE_COUNT] = {
    [TUNER_RULE_DESIGN] = "design",
    [TUNER_RULE_NEIGHBOURS] = "neighbours",
    [TUNER_RULE_CELL_EFFECT] = "cell_effect",
    [TUNER_RULE_SCREEN] = "screen",
};

/* Guarantees: see tuner.h. */
const char *tuner_rule_name(int rule)
{
    return rule >= 0 && rule < TUNER_RULE_COUNT ? rule_names[rule] : NULL;
}

/* Guarantees: see tuner.h. */
int tuner_rule_by_name(const char *name)
{
    for (int r = 0; r < TUNER_RULE_COUNT; r++)
        if (strcmp(rule_names[r], name) == 0)
            return r;
    return -1;
}

typedef struct candidate {
    int config;          /* index into the configurations */
    int cell, group;     /* group: same context (cell without P and S), kernel and forced
                          * library algorithm */
    double log_s, log_p, log_r;
    double K, DS;        /* model features: rounds; bytes one process sends, D * S */
    int measured, ok;    /* measured: a result, or a screen that failed; ok: a result */
    int screened, seen;  /* screened: a screen recorded; seen: ok or an ok screen (an
                          * observation of y for the model) */
    double y;            /* log of the median (the result's once measured, else the screen's) */
    int screen_ok;       /* an ok screen was recorded: its log median in screen_y, kept once
                          * the candidate is measured (screen_sd compares the two) */
    double screen_y;
    double rel_iqr;      /* (q3 - q1) / median */
    double median_se;    /* standard error of the log of the median (not the contract's noise);
                          * a screen's at least MIN_MEDIAN_SE x sqrt(iterations / its calls) */
    double model, mu, var; /* model time; predicted log time and its variance */
    double prior;        /* > 0: the platform's predicted seconds (tuner_set_prior) */
    double residual;     /* ok: y - log(model) */
} candidate;

typedef struct cell {
    int *members, count; /* candidate indices, in configuration order */
    int context;
    double log_s, log_p;
    int s_rank, p_rank;  /* place of its S and of its P among the context's distinct values */
    int library_default; /* candidate index of the MPI library's own choice, -1: none */
    int near[MAX_NEAR], nnear; /* its neighbouring cells (neighbours()) */
    tuner_cell_state state;
} cell;

typedef struct group {
    const a2a_kernel *kernel;
    int context;
    int *members, count;
    double alpha, beta, rms, model_sd;
    int fitted_from;     /* ok measurements behind alpha and beta (0: the context's fit) */
    int priors;          /* members with a platform prior */
    double prior_weight; /* the prior's share of the model's log, against the K/D fit's */
    double prior_shift;  /* log of the factor the measurements put on the prior */
} group;

struct tuner {
    const config *configs;
    tuner_options opt;
    candidate *cand;
    int ncand;
    cell *cells;
    int ncells, ncontexts;
    group *groups;
    int ngroups;
    int *design, ndesign;
    int measured;
    double used;         /* the budget in configurations used: 1 a measurement, a screen its share */
    double spent;        /* seconds the recorded measurements cost (tuner_spend) */
    double typical_median_se; /* the median of the measured candidates' median_se */
    double screen_sd;    /* how far a screen's log median is from the measurement's (refresh) */
    double miss_p, miss_var; /* how often and how far the model misses (model_error) */
    int checked, missed;     /* observed candidates predicted without themselves, and missed */
    double *ctx_alpha, *ctx_beta, *ctx_sd; /* per context: pooled fit of every kernel */
    double *ctx_prior_shift; /* per context: log(measured / prior), shrunk (prior_shifts) */
    int *by_config;      /* configuration index -> candidate, -1 when it cannot run */
    int *match;          /* [k * MAX_NEAR + i]: the candidate of the i-th neighbouring cell of
                          * k's cell that is k's choice (same_choice), -1: none */
    int nconfigs;
};

/* Whether rule r is in force (not switched off by tuner_options.without). */
static int rule_on(const tuner *t, tuner_rule r)
{
    return !(t->opt.without >> r & 1u);
}

/* ---- grouping -------------------------------------------------------------------- */

/* The distribution's parameters as the sweep declared them, the same at every S: a normal
 * distribution's default mean and sd scale with S, and print as "nan" (the default), not
 * as one value per S. */
static void declared_dist_params(const config *c, char *text, size_t len)
{
    if (c->dist == WL_DIST_NORMAL)
        snprintf(text, len, "mean=%g,sd=%g", c->dist_params.mean, c->dist_params.sd);
    else
        config_dist_params(c, text, len);
}

/* The text that identifies what a configuration exchanges; with_size adds P and S.
 * Without the size, every S of one declared distribution is one context. */
static void shape_key(const config *c, int with_size, char *out, size_t len)
{
    char dist_params[300];
    if (with_size)
        config_dist_params(c, dist_params, sizeof dist_params);
    else
        declared_dist_params(c, dist_params, sizeof dist_params);
    int n = snprintf(out, len, "%s|%s(%s)|%s|%s|%d|%d|%llu|%s", a2a_family_name(c->kernel->family),
                     wl_dist_name(c->dist), dist_params, wl_payload_name(c->payload),
                     sweep_datatype_name(c->datatype), c->gap, c->alloc,
                     (unsigned long long)c->seed, c->pattern ? c->pattern : "");
    if (with_size && n > 0 && (size_t)n < len)
        snprintf(out + n, len - (size_t)n, "|P=%d|S=%lld", c->P, c->S);
}

typedef struct keyed {
    char key[420];
    int index;
} keyed;

static int compare_keyed(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* ids[i] = the number of the distinct key of item i, numbered in order of first appearance. */
static int number_keys(keyed *items, int n, int *ids)
{
    qsort(items, (size_t)n, sizeof *items, compare_keyed);
    int *first = malloc((size_t)(n ? n : 1) * sizeof *first), groups = 0;
    for (int i = 0; i < n; i++) { /* the smallest index of each key marks its group */
        if (i == 0 || strcmp(items[i].key, items[i - 1].key) != 0)
            first[groups++] = items[i].index;
        ids[items[i].index] = groups - 1;
    }
    /* renumber by first appearance so that ids follow the configuration order */
    int *order = malloc((size_t)(groups ? groups : 1) * sizeof *order);
    int *rank = malloc((size_t)(groups ? groups : 1) * sizeof *rank);
    for (int g = 0; g < groups; g++)
        order[g] = g;
    for (int a = 1; a < groups; a++) { /* insertion sort by first index: groups are few */
        int v = order[a], b = a;
        for (; b > 0 && first[order[b - 1]] > first[v]; b--)
            order[b] = order[b - 1];
        order[b] = v;
    }
    for (int g = 0; g < groups; g++)
        rank[order[g]] = g;
    for (int i = 0; i < n; i++)
        ids[i] = rank[ids[i]];
    free(first);
    free(order);
    free(rank);
    return groups;
}

/* Whether configuration c is the MPI library's own choice: the family's baseline kernel,
 * not forced to one of its algorithms (vendor_algorithm 0). */
static int is_library_default(const config *c)
{
    return c->kernel->is_baseline && (!a2a_kernel_takes(c->kernel, A2A_PARAM_VENDOR_ALGORITHM) ||
                                      c->params[A2A_PARAM_VENDOR_ALGORITHM] == 0);
}

/* The library algorithm configuration c forces (vendor_algorithm), 0 when it forces none.
 * Each forced algorithm is an implementation of its own, not a knob on a shared cost: it
 * is a group of its own (its own alpha and beta, its own design point). */
static long long forced_algorithm(const config *c)
{
    return a2a_kernel_takes(c->kernel, A2A_PARAM_VENDOR_ALGORITHM) ? c->params[A2A_PARAM_VENDOR_ALGORITHM] : 0;
}

/* Kernels that run Bruck's radix-2 schedule without taking a radix. */
static int is_radix2_schedule(const a2a_kernel *k)
{
    return strcmp(k->name, "bruck") == 0 || strcmp(k->name, "twophase_bruck") == 0;
}

/* K and D * S of the model for configuration c. */
static void model_features(const config *c, double *K, double *DS)
{
    long long P = c->P, r = P;
    if (a2a_kernel_takes(c->kernel, A2A_PARAM_RADIX))
        r = c->params[A2A_PARAM_RADIX];
    else if (is_radix2_schedule(c->kernel))
        r = 2;
    if (r < 2)
        r = 2;
    long long rounds = a2a_model_rounds(P, r), blocks = a2a_model_blocks(P, r);
    *K = rounds > 0 ? (double)rounds : 1.0;
    *DS = (blocks > 0 ? (double)blocks : 1.0) * (double)(c->S > 0 ? c->S : 1);
}

/* Parameters other than the radix in which two configurations differ (those a's kernel
 * takes). Called for every pair of a cell's neighbours: one pass over the kernel's
 * parameters, not one registry search per parameter. */
static int other_params_differ(const config *a, const config *b)
{
    int n = 0;
    for (int i = 0; i < a->kernel->nparams; i++) {
        a2a_param p = a->kernel->params[i].param;
        n += p != A2A_PARAM_RADIX && a->params[p] != b->params[p];
    }
    return n;
}

/* Adds `value` to the int list *list of *count items (grows by doubling). */
static void push(int **list, int *count, int value)
{
    if ((*count & (*count - 1)) == 0) /* 0, 1, 2, 4, ...: full */
        *list = realloc(*list, (size_t)(*count ? 2 * *count : 1) * sizeof **list);
    (*list)[(*count)++] = value;
}

static double model_time(double alpha, double beta, const candidate *c)
{
    double t = alpha * c->K + beta * c->DS;
    return t > 1e-12 ? t : 1e-12;
}

/* Picks the design points (tuner.h, step 1). For the j-th of the J kernels of a context,
 * with the context's sizes S_0 < ... < S_{n-1}: one point at S_{floor(j n / 2J)} (the lower
 * half: latency) with the most rounds, on the largest P, and one at S_{n-1-floor(j n / 2J)}
 * (the upper half: bandwidth) with the most bytes, on the smallest P. The kernels' points
 * fall into different cells, so they also start covering the sweep. First points of every
 * kernel, then second points, at most a fifth of the budget. A kernel with one
 * configuration per cell (no radix, no block count) gets only the second (many bytes, the
 * smallest P): its level, which the pooled fit of the other kernels gets wrong by 2-4x (a
 * direct exchange among radix kernels), without its extreme latency arm (a ring at 16 B on
 * the largest P), which is mostly a loser. At most a fifth of the budget, or every
 * kernel's first point where the budget still leaves one measurement a cell after them. */
static void choose_design(tuner *t)
{
    int cap = rule_on(t, TUNER_RULE_DESIGN) ? t->opt.budget / 5 : 0;
    int *first = malloc((size_t)t->ngroups * sizeof *first), *second = malloc((size_t)t->ngroups * sizeof *second);
    double *sizes = malloc((size_t)(t->ncand ? t->ncand : 1) * sizeof *sizes);
    for (int g = 0; g < t->ngroups; g++) {
        const group *gr = &t->groups[g];
        int j = 0, J = 0, n = 0;
        for (int h = 0; h < t->ngroups; h++)
            if (t->groups[h].context == gr->context) {
                j += h < g;
                J++;
            }
        double pmax = -1e300, pmin = 1e300;
        for (int k = 0; k < t->ncand; k++) { /* the context's distinct sizes, ascending */
            const candidate *c = &t->cand[k];
            if (t->cells[c->cell].context != gr->context)
                continue;
            int seen = 0;
            for (int i = 0; i < n && !seen; i++)
                seen = sizes[i] == c->log_s;
            if (!seen) {
                int i = n++;
                for (; i > 0 && sizes[i - 1] > c->log_s; i--)
                    sizes[i] = sizes[i - 1];
                sizes[i] = c->log_s;
            }
        }
        for (int m = 0; m < gr->count; m++) {
            pmax = fmax(pmax, t->cand[gr->members[m]].log_p);
            pmin = fmin(pmin, t->cand[gr->members[m]].log_p);
        }
        int at = (int)((long long)j * n / (2 * J));
        double s_low = sizes[at], s_high = sizes[n - 1 - at];
        int a = -1, b = -1;
        for (int m = 0; m < gr->count; m++) { /* nearest size to the target, then the extreme arm */
            int i = gr->members[m];
            const candidate *c = &t->cand[i];
            if (c->log_p == pmax && (a < 0 || fabs(c->log_s - s_low) < fabs(t->cand[a].log_s - s_low) ||
                                     (c->log_s == t->cand[a].log_s && c->K > t->cand[a].K)))
                a = i;
            if (c->log_p == pmin && (b < 0 || fabs(c->log_s - s_high) < fabs(t->cand[b].log_s - s_high) ||
                                     (c->log_s == t->cand[b].log_s && c->DS > t->cand[b].DS)))
                b = i;
        }
        /* a kernel with one configuration per cell (no radix) has no trade-off to find:
         * one point gives its level, the context's pooled fit its shape */
        int tunable = 0;
        for (int m = 0; m < gr->count && !tunable; m++)
            for (int o = m + 1; o < gr->count && !tunable; o++)
                tunable = t->cand[gr->members[m]].cell == t->cand[gr->members[o]].cell;
        first[g] = tunable ? a : b;
        second[g] = tunable && b != a ? b : -1;
    }
    free(sizes);
    int kernels = 0; /* every kernel its first point, if the cover still has one a cell */
    for (int g = 0; g < t->ngroups; g++)
        kernels += first[g] >= 0;
    int spare = t->opt.budget - t->ncells;
    if (cap > 0 && cap < kernels && cap < spare)
        cap = kernels < spare ? kernels : spare;
    t->design = malloc((size_t)(2 * t->ngroups + 1) * sizeof *t->design);
    for (int pass = 0; pass < 2; pass++)
        for (int g = 0; g < t->ngroups && t->ndesign < cap; g++) {
            int i = pass ? second[g] : first[g];
            if (i >= 0)
                t->design[t->ndesign++] = i;
        }
    free(first);
    free(second);
}

/* The radix of configuration c, 0 when its kernel takes none. */
static long long radix_of(const config *c)
{
    return a2a_kernel_takes(c->kernel, A2A_PARAM_RADIX) ? c->params[A2A_PARAM_RADIX] : 0;
}

/* Whether radix ra at P = pa is the same choice as radix rb at P = pb: both the nearest
 * square root of their P (two digits), both P itself (the direct exchange), or equal and
 * below P at both. */
static int same_radix(long long ra, long long pa, long long rb, long long pb)
{
    long long root_a = llround(sqrt((double)pa)), root_b = llround(sqrt((double)pb));
    if ((ra == root_a && rb == root_b) || (ra == pa && rb == pb))
        return 1;
    return ra == rb && ra != pa && rb != pb;
}

/* Whether configuration b, in a neighbouring cell, is the same choice as a: the same kernel
 * and parameters, the radix by same_radix. */
static int same_choice(const config *a, const config *b)
{
    if (a->kernel != b->kernel || other_params_differ(a, b))
        return 0;
    return same_radix(radix_of(a), a->P, radix_of(b), b->P);
}

/* Whether cells a and b are neighbours (tuner.h): in the same context, S and P each at most
 * one step of the sweep apart. */
static int neighbours(const cell *a, const cell *b)
{
    if (a == b)
        return 0;
    return a->context == b->context && abs(a->s_rank - b->s_rank) <= 1 &&
           abs(a->p_rank - b->p_rank) <= 1;
}

/* Fills every cell's neighbouring cells (near) and every candidate's matches in them
 * (t->match: the same choice there). After rank_cells. */
static void link_neighbours(tuner *t)
{
    t->match = malloc((size_t)(t->ncand ? t->ncand : 1) * MAX_NEAR * sizeof *t->match);
    for (int ci = 0; ci < t->ncells; ci++) {
        cell *ce = &t->cells[ci];
        ce->nnear = 0;
        for (int o = 0; o < t->ncells && ce->nnear < MAX_NEAR; o++)
            if (neighbours(ce, &t->cells[o]))
                ce->near[ce->nnear++] = o;
    }
    for (int k = 0; k < t->ncand; k++) {
        const cell *ce = &t->cells[t->cand[k].cell];
        const config *a = &t->configs[t->cand[k].config];
        for (int i = 0; i < MAX_NEAR; i++) {
            int found = -1;
            const cell *n = i < ce->nnear ? &t->cells[ce->near[i]] : NULL;
            for (int m = 0; n && m < n->count && found < 0; m++)
                if (same_choice(a, &t->configs[t->cand[n->members[m]].config]))
                    found = n->members[m];
            t->match[k * MAX_NEAR + i] = found;
        }
    }
}

/* Sets every cell's s_rank and p_rank: how many distinct sizes, and process counts, of its
 * context lie below its own. Two cells are neighbours when both ranks differ by at most
 * one (tuner_next), whatever the spacing of the sweep's values. */
static void rank_cells(tuner *t)
{
    /* first_s[b], first_p[b]: cell b is the first of its context with its S, its P */
    char *first_s = malloc((size_t)(t->ncells ? t->ncells : 1)), *first_p = malloc((size_t)(t->ncells ? t->ncells : 1));
    for (int b = 0; b < t->ncells; b++) {
        const cell *cb = &t->cells[b];
        first_s[b] = first_p[b] = 1;
        for (int e = 0; e < b; e++)
            if (t->cells[e].context == cb->context) {
                first_s[b] &= t->cells[e].log_s != cb->log_s;
                first_p[b] &= t->cells[e].log_p != cb->log_p;
            }
    }
    for (int a = 0; a < t->ncells; a++) {
        cell *ca = &t->cells[a];
        ca->s_rank = ca->p_rank = 0;
        for (int b = 0; b < t->ncells; b++)
            if (t->cells[b].context == ca->context) {
                ca->s_rank += first_s[b] && t->cells[b].log_s < ca->log_s;
                ca->p_rank += first_p[b] && t->cells[b].log_p < ca->log_p;
            }
    }
    free(first_s);
    free(first_p);
}

/* Guarantees: see tuner.h. */
tuner *tuner_create(const config *configs, int n, const tuner_options *opt)
{
    tuner *t = calloc(1, sizeof *t);
    t->configs = configs;
    t->miss_p = MISS_PRIOR / MISS_PRIOR_WEIGHT; /* until model_error */
    t->miss_var = MISS_SD * MISS_SD;
    t->opt = *opt;
    t->nconfigs = n;
    t->by_config = malloc((size_t)(n ? n : 1) * sizeof *t->by_config);
    for (int i = 0; i < n; i++)
        t->by_config[i] = configs[i].skip ? -1 : t->ncand++;
    t->cand = calloc((size_t)(t->ncand ? t->ncand : 1), sizeof *t->cand);
    keyed *cells = malloc((size_t)(t->ncand ? t->ncand : 1) * sizeof *cells);
    keyed *contexts = malloc((size_t)(t->ncand ? t->ncand : 1) * sizeof *contexts);
    keyed *groups = malloc((size_t)(t->ncand ? t->ncand : 1) * sizeof *groups);
    int *cell_id = malloc((size_t)(t->ncand ? t->ncand : 1) * sizeof *cell_id);
    int *context_id = malloc((size_t)(t->ncand ? t->ncand : 1) * sizeof *context_id);
    int *group_id = malloc((size_t)(t->ncand ? t->ncand : 1) * sizeof *group_id);
    for (int i = 0, k = 0; i < n; i++) {
        if (configs[i].skip)
            continue;
        const config *c = &configs[i];
        candidate *cd = &t->cand[k];
        cd->config = i;
        cd->log_s = log2((double)(c->S > 0 ? c->S : 1));
        cd->log_p = log2((double)c->P);
        cd->log_r = a2a_kernel_takes(c->kernel, A2A_PARAM_RADIX) && c->params[A2A_PARAM_RADIX] > 0
                        ? log2((double)c->params[A2A_PARAM_RADIX]) : 0;
        model_features(c, &cd->K, &cd->DS);
        shape_key(c, 1, cells[k].key, sizeof cells[k].key);
        shape_key(c, 0, contexts[k].key, sizeof contexts[k].key);
        snprintf(groups[k].key, sizeof groups[k].key, "%s|%lld|%.*s", c->kernel->name,
                 forced_algorithm(c), (int)(sizeof groups[k].key - 80), contexts[k].key);
        cells[k].index = contexts[k].index = groups[k].index = k;
        k++;
    }
    t->ncells = number_keys(cells, t->ncand, cell_id);
    t->ncontexts = number_keys(contexts, t->ncand, context_id);
    t->ngroups = number_keys(groups, t->ncand, group_id);
    free(cells);
    free(contexts);
    free(groups);
    t->cells = calloc((size_t)(t->ncells ? t->ncells : 1), sizeof *t->cells);
    for (int c = 0; c < t->ncells; c++)
        t->cells[c].library_default = -1;
    t->groups = calloc((size_t)(t->ngroups ? t->ngroups : 1), sizeof *t->groups);
    for (int k = 0; k < t->ncand; k++) {
        candidate *cd = &t->cand[k];
        cd->cell = cell_id[k];
        cd->group = group_id[k];
        cell *ce = &t->cells[cd->cell];
        push(&ce->members, &ce->count, k);
        ce->context = context_id[k];
        ce->log_s = cd->log_s;
        ce->log_p = cd->log_p;
        if (is_library_default(&configs[cd->config]))
            ce->library_default = k;
        group *g = &t->groups[cd->group];
        push(&g->members, &g->count, k);
        g->kernel = configs[cd->config].kernel;
        g->context = context_id[k];
    }
    free(cell_id);
    free(context_id);
    free(group_id);
    t->ctx_alpha = calloc((size_t)t->ncontexts + 1, sizeof *t->ctx_alpha);
    t->ctx_beta = calloc((size_t)t->ncontexts + 1, sizeof *t->ctx_beta);
    t->ctx_sd = calloc((size_t)t->ncontexts + 1, sizeof *t->ctx_sd);
    t->ctx_prior_shift = calloc((size_t)t->ncontexts + 1, sizeof *t->ctx_prior_shift);
    rank_cells(t);
    link_neighbours(t);
    t->typical_median_se = 0.02;
    choose_design(t);
    return t;
}

/* Guarantees: frees everything tuner_create allocated; NULL is fine. */
void tuner_free(tuner *t)
{
    if (!t)
        return;
    for (int c = 0; c < t->ncells; c++)
        free(t->cells[c].members);
    for (int g = 0; g < t->ngroups; g++)
        free(t->groups[g].members);
    free(t->cells);
    free(t->groups);
    free(t->cand);
    free(t->design);
    free(t->by_config);
    free(t->match);
    free(t->ctx_alpha);
    free(t->ctx_beta);
    free(t->ctx_sd);
    free(t->ctx_prior_shift);
    free(t);
}

int tuner_candidates(const tuner *t) { return t->ncand; }
int tuner_cells(const tuner *t) { return t->ncells; }
int tuner_measured(const tuner *t) { return t->measured; }
double tuner_used(const tuner *t) { return t->used; }

int tuner_tunable_cells(const tuner *t)
{
    int n = 0;
    for (int c = 0; c < t->ncells; c++)
        n += t->cells[c].count >= 2;
    return n;
}

const config *tuner_cell_config(const tuner *t, int c)
{
    return &t->configs[t->cand[t->cells[c].members[0]].config];
}

/* Takes a median (and its quartiles, of n samples) as candidate c's observation: y, the
 * relative IQR, and the standard error of the log of the median, at least floor. */
static void observe(candidate *c, double median, double q1, double q3, int samples, double floor)
{
    c->seen = 1;
    c->y = log(median);
    c->rel_iqr = q3 > q1 ? (q3 - q1) / median : 0;
    /* standard error of a median: 1.2533 sigma / sqrt(n), sigma = IQR / 1.349 */
    double se = 0.93 * c->rel_iqr / sqrt(samples > 0 ? samples : 1);
    c->median_se = se > floor ? se : floor;
}

/* Guarantees: see tuner.h. */
int tuner_record(tuner *t, int index, int ok, double median, double q1, double q3, int samples)
{
    if (index < 0 || index >= t->nconfigs || t->by_config[index] < 0)
        return -1;
    candidate *c = &t->cand[t->by_config[index]];
    if (c->measured)
        return -1;
    c->measured = 1;
    t->measured++;
    t->used += 1;
    c->ok = ok && median > 0;
    c->seen = 0;
    if (c->ok)
        observe(c, median, q1, q3, samples, MIN_MEDIAN_SE);
    return 0;
}

/* Guarantees: see tuner.h. */
int tuner_screen_calls(const tuner *t, int index)
{
    if (index < 0 || index >= t->nconfigs || t->by_config[index] < 0 || !rule_on(t, TUNER_RULE_SCREEN))
        return 0;
    int iterations = t->configs[index].iterations;
    if (iterations < TUNER_SCREEN_SHARE * TUNER_SCREEN_MIN_CALLS) /* auto is negative */
        return 0;
    return (iterations + TUNER_SCREEN_SHARE - 1) / TUNER_SCREEN_SHARE;
}

/* A screen's share of its configuration (what it costs of a budget in configurations). */
static double screen_share(const tuner *t, int index)
{
    return (double)tuner_screen_calls(t, index) / t->configs[index].iterations;
}

/* Guarantees: see tuner.h. */
int tuner_record_screen(tuner *t, int index, int ok, double median, double q1, double q3,
                        int samples)
{
    if (!tuner_screen_calls(t, index))
        return -1;
    candidate *c = &t->cand[t->by_config[index]];
    if (c->measured || c->screened)
        return -1;
    c->screened = 1;
    t->used += screen_share(t, index);
    if (!(ok && median > 0)) {
        c->measured = 1; /* a screen that failed: never chosen, never measured again */
        return 0;
    }
    observe(c, median, q1, q3, samples, MIN_MEDIAN_SE / sqrt(screen_share(t, index)));
    c->screen_ok = 1;
    c->screen_y = c->y;
    return 0;
}

/* Guarantees: see tuner.h. */
int tuner_set_prior(tuner *t, int index, double seconds)
{
    if (index < 0 || index >= t->nconfigs || t->by_config[index] < 0 || !(seconds > 0) ||
        !isfinite(seconds))
        return -1;
    candidate *c = &t->cand[t->by_config[index]];
    if (!(c->prior > 0))
        t->groups[c->group].priors++;
    c->prior = seconds;
    return 0;
}

/* Guarantees: see tuner.h. */
void tuner_spend(tuner *t, double seconds)
{
    if (seconds > 0)
        t->spent += seconds;
}

double tuner_spent(const tuner *t) { return t->spent; }

/* Guarantees: see tuner.h. */
int tuner_budget_spent(const tuner *t)
{
    return t->used + 1 > t->opt.budget + 1e-9 ||
           (t->opt.budget_seconds > 0 && t->spent >= t->opt.budget_seconds);
}

/* ---- the model ------------------------------------------------------------------- */

/* Least squares of alpha K + beta DS = T on the relative error over the observed members
 * listed but candidate `without` (-1: none); non-negative coefficients. Returns the number
 * of points used, 0 when the points do not determine both coefficients (alpha, beta
 * untouched then). */
static int fit(const tuner *t, const int *members, int count, int without, double *alpha,
               double *beta)
{
    double saa = 0, sab = 0, sbb = 0, sa = 0, sb = 0;
    int n = 0;
    for (int m = 0; m < count; m++) {
        const candidate *c = &t->cand[members[m]];
        if (!c->seen || members[m] == without)
            continue;
        double T = exp(c->y), a = c->K / T, b = c->DS / T;
        saa += a * a;
        sab += a * b;
        sbb += b * b;
        sa += a;
        sb += b;
        n++;
    }
    if (n < 2)
        return 0;
    double det = saa * sbb - sab * sab;
    if (det <= 1e-9 * saa * sbb)
        return 0;
    double al = (sa * sbb - sb * sab) / det, be = (saa * sb - sab * sa) / det;
    if (al < 0) {
        al = 0;
        be = sb / sbb;
    } else if (be < 0) {
        be = 0;
        al = sa / saa;
    }
    *alpha = al;
    *beta = be;
    return n;
}

/* Mean squared log residual of the ok members under (alpha, beta); *n gets their number. */
static double residual_ms(const tuner *t, const int *members, int count, double alpha,
                          double beta, int *n)
{
    double s = 0;
    *n = 0;
    for (int m = 0; m < count; m++) {
        const candidate *c = &t->cand[members[m]];
        if (c->seen) {
            double e = c->y - log(model_time(alpha, beta, c));
            s += e * e;
            (*n)++;
        }
    }
    return *n ? s / *n : 0;
}

/* The K/D fit of group gr over its observed members but `without` (-1: none), in *alpha and
 * *beta (the context's pooled fit must be done). Returns the number of points behind it; 0:
 * too few to fit, the context's shape scaled to the group's points (unscaled without any). */
static int fit_group(const tuner *t, const group *gr, int without, double *alpha, double *beta)
{
    *alpha = t->ctx_alpha[gr->context];
    *beta = t->ctx_beta[gr->context];
    int fitted = fit(t, gr->members, gr->count, without, alpha, beta);
    if (!fitted) {
        double s = 0;
        int n = 0;
        for (int m = 0; m < gr->count; m++) {
            const candidate *c = &t->cand[gr->members[m]];
            if (c->seen && gr->members[m] != without) {
                s += c->y - log(model_time(*alpha, *beta, c));
                n++;
            }
        }
        if (n) {
            *alpha *= exp(s / n);
            *beta *= exp(s / n);
        }
    }
    return fitted;
}

/* Corrects the prediction of unmeasured candidate k by what its neighbouring cells measured
 * of it against the candidates measured in its own cell: for each neighbouring cell where
 * k's choice and the choice of a candidate j measured here were both measured, k is
 * expected as much faster or slower than j here as it was there (log time j here + k there
 * - j there), averaged over the j, then over the neighbouring cells (a diagonal one weighs
 * half), with a drift of PAIR_SD from a cell to the next and the estimates' spread; this
 * estimate and the model's are combined by their precisions. */
static void add_neighbours_evidence(const tuner *t, int k, double *mu, double *var)
{
    const candidate *c = &t->cand[k];
    const cell *ce = &t->cells[c->cell];
    double sw = 0, swe = 0, swe2 = 0;
    for (int i = 0; i < ce->nnear; i++) {
        int kn = t->match[k * MAX_NEAR + i];
        if (kn < 0 || !t->cand[kn].seen)
            continue;
        double se = 0;
        int n = 0;
        for (int m = 0; m < ce->count; m++) {
            int j = ce->members[m], jn = t->match[j * MAX_NEAR + i];
            if (j == k || !t->cand[j].seen || jn < 0 || !t->cand[jn].seen)
                continue;
            se += t->cand[j].y + t->cand[kn].y - t->cand[jn].y;
            n++;
        }
        if (!n)
            continue;
        const cell *other = &t->cells[ce->near[i]];
        double w = other->s_rank != ce->s_rank && other->p_rank != ce->p_rank ? 0.5 : 1.0;
        double e = se / n;
        sw += w;
        swe += w * e;
        swe2 += w * e * e;
    }
    if (sw <= 0)
        return;
    double mean = swe / sw, spread = fmax(swe2 / sw - mean * mean, 0);
    double pair_var = PAIR_SD * PAIR_SD / fmin(sw, PAIR_MAX_WEIGHT) + spread;
    *mu = (*mu / *var + mean / pair_var) / (1 / *var + 1 / pair_var);
    *var = 1 / (1 / *var + 1 / pair_var);
}

/* The candidate of cell ci that is configuration a's kernel with the same parameters (the
 * same radix, not same_radix), measured ok; -1: none. */
static int measured_same_params(const tuner *t, int ci, const config *a)
{
    const cell *ce = &t->cells[ci];
    for (int m = 0; m < ce->count; m++) {
        const candidate *c = &t->cand[ce->members[m]];
        const config *b = &t->configs[c->config];
        if (c->ok && b->kernel == a->kernel && !other_params_differ(a, b) && radix_of(a) == radix_of(b))
            return ce->members[m];
    }
    return -1;
}

/* What a2a tune's settle_defaults (tune.py) concludes for cell ci, whose library default is
 * not measured, about its winner w (a candidate): P(w is faster than the default) from the
 * cells next to it (S one step away at its P, P one step away at its S) where w's kernel and
 * parameters and the default were both measured: normal in log(default / w), their mean,
 * DEFAULT_DRIFT and their spread as its variance; 0 without such a cell. */
static double default_confidence(const tuner *t, int ci, int w)
{
    const cell *ce = &t->cells[ci];
    const config *a = &t->configs[t->cand[w].config];
    double sum = 0, sum2 = 0;
    int n = 0;
    for (int o = 0; o < t->ncells; o++) {
        const cell *other = &t->cells[o];
        int ds = abs(other->s_rank - ce->s_rank), dp = abs(other->p_rank - ce->p_rank);
        if (other->context != ce->context || ds + dp != 1 || other->library_default < 0)
            continue;
        const candidate *d = &t->cand[other->library_default];
        int mine = measured_same_params(t, o, a);
        if (!d->ok || mine < 0)
            continue;
        double r = d->y - t->cand[mine].y;
        sum += r;
        sum2 += r * r;
        n++;
    }
    if (!n)
        return 0;
    double mean = sum / n, spread = fmax(sum2 / n - mean * mean, 0);
    return 0.5 * erfc(-mean / sqrt(2 * (DEFAULT_DRIFT * DEFAULT_DRIFT + spread)));
}

/* The factor the measurements put on the platform's prior (tuner.h, tuner_set_prior), in
 * logs: per context, the mean of log(measured / prior) over its ok candidates with a prior,
 * shrunk towards 0 (PRIOR_WEIGHT points of "the platform is right"); per group (a kernel),
 * its own such mean shrunk towards its context's. Each candidate with a prior then has
 * model time prior x exp(its group's shift), in place of alpha K + beta D S. */
static void prior_shifts(tuner *t)
{
    for (int x = 0; x < t->ncontexts; x++) {
        double s = 0;
        int n = 0;
        for (int k = 0; k < t->ncand; k++) {
            const candidate *c = &t->cand[k];
            if (c->seen && c->prior > 0 && t->cells[c->cell].context == x) {
                s += c->y - log(c->prior);
                n++;
            }
        }
        t->ctx_prior_shift[x] = s / (n + PRIOR_WEIGHT);
    }
    for (int g = 0; g < t->ngroups; g++) {
        group *gr = &t->groups[g];
        double s = PRIOR_WEIGHT * t->ctx_prior_shift[gr->context];
        int n = 0;
        for (int m = 0; m < gr->count; m++) {
            const candidate *c = &t->cand[gr->members[m]];
            if (c->seen && c->prior > 0) {
                s += c->y - log(c->prior);
                n++;
            }
        }
        gr->prior_shift = s / (n + PRIOR_WEIGHT);
    }
}

/* The spread (log) of a group's model about what its ok members measured, where the model
 * stands on the platform's prior (every member's c->model set): the RMS of the residuals
 * with one degree of freedom taken by the shift, DEFAULT_MODEL_SD below three points (how
 * far a description of a cluster may be off before anything is measured). */
static double prior_model_sd(const tuner *t, const group *gr)
{
    double s = 0;
    int n = 0;
    for (int m = 0; m < gr->count; m++) {
        const candidate *c = &t->cand[gr->members[m]];
        if (c->seen) {
            double e = c->y - log(c->model);
            s += e * e;
            n++;
        }
    }
    return n >= 3 ? fmax(sqrt(s / (n - 1)), MIN_MODEL_SD) : DEFAULT_MODEL_SD;
}

/* The model time of every member of group gr (a kernel with a platform prior; alpha, beta,
 * fitted_from and model_sd of its K/D fit set, prior_shifts done): for a member with a
 * prior, the prior times exp(prior_shift), its log weighed against the K/D fit's by their
 * precisions (one over the variance of their residuals on the group's measurements; the
 * prior alone while the K/D fit stands on fewer than three of its own points); for the
 * others, the K/D fit. gr->model_sd becomes the spread about this model. */
static void model_with_prior(tuner *t, group *gr)
{
    for (int m = 0; m < gr->count; m++) {
        candidate *c = &t->cand[gr->members[m]];
        c->model = c->prior > 0 ? c->prior * exp(gr->prior_shift) : model_time(gr->alpha, gr->beta, c);
    }
    double sd = prior_model_sd(t, gr);
    double wp = 1 / (sd * sd), wk = gr->fitted_from >= 3 ? 1 / (gr->model_sd * gr->model_sd) : 0;
    gr->prior_weight = wp / (wp + wk);
    for (int m = 0; m < gr->count; m++) {
        candidate *c = &t->cand[gr->members[m]];
        if (c->prior > 0)
            c->model = exp(gr->prior_weight * log(c->model) +
                           (1 - gr->prior_weight) * log(model_time(gr->alpha, gr->beta, c)));
    }
    gr->model_sd = prior_model_sd(t, gr);
}

/* The model's prediction of candidate k (its log time *mu and variance *var): its kernel's
 * model, plus the cell effect (cell_effect, of weight cell_weight), plus the candidate effect
 * (its kernel's residuals nearby, less their cells' effects), with the neighbours' evidence
 * where that rule is on. leave_out (k observed): as if k had not been, its kernel's model
 * fitted without it (a platform's prior kept), its residual out of both effects and of the
 * neighbours' evidence; the other cells' effects keep it (a slightly optimistic
 * leave-one-out). */
static void predict(const tuner *t, int k, const double *cell_effect, const double *cell_weight,
                    int leave_out, double *mu, double *var)
{
    const candidate *c = &t->cand[k];
    const group *gr = &t->groups[c->group];
    const config *ck = &t->configs[c->config];
    double effect = cell_effect[c->cell], weight = cell_weight[c->cell];
    int refit = leave_out && !gr->priors; /* a platform's prior is not fitted to k */
    double alpha = gr->alpha, beta = gr->beta;
    if (refit)
        fit_group(t, gr, k, &alpha, &beta);
    if (leave_out && weight > 0) { /* k weighs exp(0) = 1 in its own cell's effect */
        double sum = effect * (PRIOR_WEIGHT + weight) - c->residual;
        weight = fmax(weight - 1, 0);
        effect = sum / (PRIOR_WEIGHT + weight);
    }
    double sw = 0, swe = 0;
    for (int m = 0; m < gr->count; m++) {
        const candidate *o = &t->cand[gr->members[m]];
        if (!o->seen || (leave_out && gr->members[m] == k))
            continue;
        double ds = (c->log_s - o->log_s) / SCALE_S, dp = (c->log_p - o->log_p) / SCALE_P;
        double dr = (c->log_r - o->log_r) / SCALE_R;
        double d2 = ds * ds + dp * dp + dr * dr +
                    OTHER_PARAM_PENALTY * other_params_differ(ck, &t->configs[o->config]);
        double w = exp(-d2);
        double residual = refit ? o->y - log(model_time(alpha, beta, o)) : o->residual;
        sw += w;
        swe += w * (residual - cell_effect[o->cell]);
    }
    *mu = log(refit ? model_time(alpha, beta, c) : c->model) + effect + swe / (PRIOR_WEIGHT + sw);
    double half = 0.5 * gr->model_sd * gr->model_sd;
    *var = t->typical_median_se * t->typical_median_se + half * PRIOR_WEIGHT / (PRIOR_WEIGHT + weight) +
           half * PRIOR_WEIGHT / (PRIOR_WEIGHT + sw);
    if (rule_on(t, TUNER_RULE_NEIGHBOURS))
        add_neighbours_evidence(t, k, mu, var);
}

/* How often and how far the model misses: every observed candidate predicted without
 * itself (predict, leave_out) is a miss when it is off by more than MISS_Z of its predicted
 * sds (its observation's standard error added). t->miss_p: the share of misses (MISS_PRIOR
 * of them among MISS_PRIOR_WEIGHT predictions before any is checked); t->miss_var: their
 * mean squared log error (MISS_SD counted MISS_PRIOR times). A protocol switch or a regime
 * only one kernel has is such a miss: no nearby measurement foretells it, and the model's
 * own spread says nothing of it. An unmeasured candidate's prediction is a mixture: as the
 * model says with probability 1 - miss_p, that plus miss_var with probability miss_p
 * (probability_below, mixed_criterion). */
static void model_error(tuner *t, const double *cell_effect, const double *cell_weight)
{
    double misses = MISS_PRIOR, squares = MISS_PRIOR * MISS_SD * MISS_SD;
    t->checked = t->missed = 0;
    for (int k = 0; k < t->ncand; k++) {
        const candidate *c = &t->cand[k];
        if (!c->seen)
            continue;
        double mu, var;
        predict(t, k, cell_effect, cell_weight, 1, &mu, &var);
        double e = c->y - mu;
        t->checked++;
        if (fabs(e) > MISS_Z * sqrt(var + c->median_se * c->median_se)) {
            t->missed++;
            misses += 1;
            squares += e * e;
        }
    }
    t->miss_p = misses / (t->checked + MISS_PRIOR_WEIGHT);
    t->miss_var = squares / misses;
}

/* The probability that unmeasured candidate c's log time is below threshold: under the
 * mixture of model_error where the model predicts it, under its screen where screened. */
static double probability_below(const tuner *t, const candidate *c, double threshold)
{
    double z = (threshold - c->mu) / sqrt(c->var), p = 0.5 * erfc(-z / sqrt(2.0));
    if (c->seen)
        return p;
    double z_miss = (threshold - c->mu) / sqrt(c->var + t->miss_var);
    return (1 - t->miss_p) * p + t->miss_p * 0.5 * erfc(-z_miss / sqrt(2.0));
}

/* tuner_criterion of (mu, var) against threshold, under the mixture of model_error where
 * the model predicts candidate c or the default d it is compared with (NULL: none). */
static double mixed_criterion(const tuner *t, const candidate *c, const candidate *d, double mu,
                              double var, double threshold, double cost, double *probability)
{
    double p, p_miss;
    double value = tuner_criterion(mu, var, threshold, cost, &p);
    if (c->seen && (!d || d->seen)) {
        *probability = p;
        return value;
    }
    double miss = tuner_criterion(mu, var + t->miss_var, threshold, cost, &p_miss);
    *probability = (1 - t->miss_p) * p + t->miss_p * p_miss;
    return (1 - t->miss_p) * value + t->miss_p * miss;
}

/* Fits every context and group, then predicts every unmeasured candidate. */
static void refresh(tuner *t)
{
    /* typical_median_se: the median over the ok measurements */
    double *ses = malloc((size_t)(t->ncand ? t->ncand : 1) * sizeof *ses);
    int nn = 0;
    for (int k = 0; k < t->ncand; k++)
        if (t->cand[k].ok)
            ses[nn++] = t->cand[k].median_se;
    if (nn) {
        for (int a = 1; a < nn; a++) { /* insertion sort: few hundred values */
            double v = ses[a];
            int b = a;
            for (; b > 0 && ses[b - 1] > v; b--)
                ses[b] = ses[b - 1];
            ses[b] = v;
        }
        t->typical_median_se = ses[nn / 2];
    }
    free(ses);

    /* screen_sd: the RMS of log(screen / measurement) over the candidates that have both,
     * SCREEN_SD_WEIGHT of them taken at SCREEN_SD */
    double d2 = SCREEN_SD_WEIGHT * SCREEN_SD * SCREEN_SD, pairs = SCREEN_SD_WEIGHT;
    for (int k = 0; k < t->ncand; k++)
        if (t->cand[k].screen_ok && t->cand[k].ok) {
            double d = t->cand[k].screen_y - t->cand[k].y;
            d2 += d * d;
            pairs += 1;
        }
    t->screen_sd = sqrt(d2 / pairs);

    /* per context: every kernel pooled (the fallback of kernels measured too little) */
    int *members = malloc((size_t)(t->ncand ? t->ncand : 1) * sizeof *members);
    for (int x = 0; x < t->ncontexts; x++) {
        int count = 0, seen = 0;
        for (int k = 0; k < t->ncand; k++)
            if (t->cells[t->cand[k].cell].context == x) {
                members[count++] = k;
                seen += t->cand[k].seen;
            }
        double alpha = 1e-6, beta = 1e-9; /* 1 us per round, 1 ns per byte: the shape before any data */
        if (!fit(t, members, count, -1, &alpha, &beta) && seen == 1) {
            for (int m = 0; m < count; m++) /* one point: half latency, half bandwidth */
                if (t->cand[members[m]].seen) {
                    const candidate *c = &t->cand[members[m]];
                    alpha = exp(c->y) / 2 / c->K;
                    beta = exp(c->y) / 2 / c->DS;
                }
        }
        int n;
        double ms = residual_ms(t, members, count, alpha, beta, &n);
        t->ctx_alpha[x] = alpha;
        t->ctx_beta[x] = beta;
        t->ctx_sd[x] = n >= 3 ? fmax(sqrt(ms * n / (n - 2)), MIN_MODEL_SD) : DEFAULT_MODEL_SD;
    }
    free(members);

    for (int g = 0; g < t->ngroups; g++) {
        group *gr = &t->groups[g];
        double alpha, beta;
        gr->fitted_from = fit_group(t, gr, -1, &alpha, &beta);
        gr->alpha = alpha;
        gr->beta = beta;
        int n;
        double ms = residual_ms(t, gr->members, gr->count, alpha, beta, &n);
        gr->rms = sqrt(ms);
        gr->model_sd = n >= 3 ? fmax(sqrt(ms * n / (n - 2)), MIN_MODEL_SD) : t->ctx_sd[gr->context];
    }

    /* predictions: log time = log model + what the model misses at this (P, S) in every
     * kernel (the cell effect) + how this candidate deviates from that nearby (the
     * candidate effect); both are kernel-weighted averages of the measured residuals */
    int *ok_list = malloc((size_t)(t->ncand ? t->ncand : 1) * sizeof *ok_list), nok = 0;
    prior_shifts(t);
    for (int g = 0; g < t->ngroups; g++)
        if (t->groups[g].priors)
            model_with_prior(t, &t->groups[g]);
    for (int k = 0; k < t->ncand; k++) {
        candidate *c = &t->cand[k];
        const group *gr = &t->groups[c->group];
        if (!(c->prior > 0))
            c->model = model_time(gr->alpha, gr->beta, c);
        if (c->seen) {
            c->residual = c->y - log(c->model);
            ok_list[nok++] = k;
        }
    }
    double *cell_effect = malloc((size_t)(t->ncells ? t->ncells : 1) * sizeof *cell_effect);
    double *cell_weight = malloc((size_t)(t->ncells ? t->ncells : 1) * sizeof *cell_weight);
    for (int ci = 0; ci < t->ncells; ci++) {
        const cell *ce = &t->cells[ci];
        double sw = 0, swe = 0;
        for (int o_index = 0; o_index < nok; o_index++) {
            const candidate *o = &t->cand[ok_list[o_index]];
            if (t->cells[o->cell].context != ce->context)
                continue;
            double ds = (ce->log_s - o->log_s) / CELL_SCALE_S, dp = (ce->log_p - o->log_p) / SCALE_P;
            double w = exp(-(ds * ds + dp * dp));
            sw += w;
            swe += w * o->residual;
        }
        int on = rule_on(t, TUNER_RULE_CELL_EFFECT);
        cell_effect[ci] = on ? swe / (PRIOR_WEIGHT + sw) : 0;
        cell_weight[ci] = on ? sw : 0;
    }
    model_error(t, cell_effect, cell_weight);
    for (int k = 0; k < t->ncand; k++) {
        candidate *c = &t->cand[k];
        if (c->measured)
            continue;
        if (c->seen) { /* screened: its own observation, not the model's */
            c->mu = c->y;
            c->var = fmax(c->median_se * c->median_se, t->screen_sd * t->screen_sd);
        } else {
            predict(t, k, cell_effect, cell_weight, 0, &c->mu, &c->var);
        }
    }
    free(cell_effect);
    free(cell_weight);
    free(ok_list);

    /* cells: winner, runner-up, confidence */
    double margin = log(1 + t->opt.margin);
    for (int ci = 0; ci < t->ncells; ci++) {
        cell *ce = &t->cells[ci];
        tuner_cell_state *s = &ce->state;
        memset(s, 0, sizeof *s);
        s->winner = s->runner_up = -1;
        s->candidates = ce->count;
        int w = -1, r = -1;
        for (int m = 0; m < ce->count; m++) {
            const candidate *c = &t->cand[ce->members[m]];
            s->measured += c->measured;
            if (!c->ok)
                continue;
            if (w < 0 || c->y < t->cand[w].y) {
                r = w;
                w = ce->members[m];
            } else if (r < 0 || c->y < t->cand[r].y) {
                r = ce->members[m];
            }
        }
        double confidence = 1;
        for (int m = 0; m < ce->count; m++) {
            const candidate *c = &t->cand[ce->members[m]];
            if (c->measured)
                continue;
            if (w < 0) {
                confidence = 0;
                break;
            }
            /* P(this candidate is not faster than the winner by more than the margin) */
            confidence *= 1 - probability_below(t, c, t->cand[w].y - margin);
        }
        s->confidence = confidence;
        if (w >= 0) {
            s->winner = t->cand[w].config;
            s->winner_s = exp(t->cand[w].y);
            s->noise = t->cand[w].rel_iqr;
        }
        if (r >= 0) { /* the contract's noise: the smaller IQR of the two, over the winner */
            s->runner_up = t->cand[r].config;
            s->runner_up_s = exp(t->cand[r].y);
            s->noise = fmin(s->noise, t->cand[r].rel_iqr * s->runner_up_s / s->winner_s);
        }
        const candidate *d = ce->library_default >= 0 ? &t->cand[ce->library_default] : NULL;
        s->library_default = d ? d->config : -1;
        s->library_default_s = d && d->ok ? exp(d->y) : 0;
        s->default_confidence = d && !d->measured && w >= 0 ? default_confidence(t, ci, w) : -1;
        /* a rule replaces the library's default only where the default was measured: a
         * cell is not decided before */
        s->final = s->measured == s->candidates ||
                   (w >= 0 && confidence >= t->opt.confidence && (!d || d->measured));
    }
}

/* Guarantees: see tuner.h. */
double tuner_criterion(double mu, double var, double threshold, double cost, double *probability)
{
    double sd = sqrt(var > 1e-12 ? var : 1e-12), z = (threshold - mu) / sd;
    double cdf = 0.5 * erfc(-z / sqrt(2.0)), pdf = exp(-0.5 * z * z) / sqrt(2 * M_PI);
    if (probability)
        *probability = cdf;
    return sd * (z * cdf + pdf) / (cost > 0 ? cost : 1);
}

/* The predicted cost of measuring candidate c (screen: of screening it): 1 (a screen its
 * share) under a budget in configurations, its predicted timed and warm-up calls in seconds
 * under a budget in time. */
static double predicted_cost(const tuner *t, const candidate *c, int screen)
{
    if (t->opt.budget_seconds <= 0)
        return screen ? screen_share(t, c->config) : 1;
    const config *k = &t->configs[c->config];
    int timed = screen ? tuner_screen_calls(t, c->config) : k->iterations > 0 ? k->iterations : 1;
    return exp(c->mu) * (timed + (k->warmup > 0 ? k->warmup : 0));
}

/* The criterion's value (tuner_criterion) of measuring unmeasured candidate k of cell ce,
 * and in *probability the probability that it changes what the tuning file says there. What
 * the file says: the library's default in a cell where it is the winner; the winner where
 * the default was measured (and lost) or where the neighbours make the winner faster than
 * it with DEFAULT_CONFIDENCE (a2a tune's settle_defaults); the default, not measured,
 * elsewhere. A candidate changes it by beating that choice by more than `margin` (an
 * unmeasured default with its prediction and variance); the default, where the file says
 * the winner, by not being beaten by the margin, and where it says the default, by being
 * beaten (its measurement lets the winner's rule be written). 0 for the default of a cell
 * with nothing measured (nothing to confirm yet); 1 for any candidate of a cell with
 * nothing measured and no default. */
static double change_value(const tuner *t, const cell *ce, int k, double margin, double cost,
                           double *probability)
{
    const candidate *c = &t->cand[k];
    const candidate *d = ce->library_default >= 0 ? &t->cand[ce->library_default] : NULL;
    const tuner_cell_state *s = &ce->state;
    double winner_y = s->winner >= 0 ? log(s->winner_s) : 0;
    int says_default = d && (!d->measured ? s->winner < 0 || s->default_confidence < DEFAULT_CONFIDENCE
                                          : s->winner == d->config);
    *probability = 0;
    if (d && k == ce->library_default) {
        if (s->winner < 0)
            return 0;
        if (says_default) /* beaten: -y_d below -(y_w + margin) */
            return mixed_criterion(t, c, NULL, -c->mu, c->var, -(winner_y + margin), cost, probability);
        return mixed_criterion(t, c, NULL, c->mu, c->var, winner_y + margin, cost, probability);
    }
    if (says_default && !d->measured)
        return mixed_criterion(t, c, d, c->mu, c->var + d->var, d->mu - margin, cost, probability);
    if (s->winner >= 0)
        return mixed_criterion(t, c, NULL, c->mu, c->var, winner_y - margin, cost, probability);
    *probability = 1;
    return 1 / cost;
}

/* The criterion's value of the better way to take unmeasured candidate k of cell ce
 * further: measuring it, or (*screen = 1) screening it first, when it can be and has not
 * been: the gain expected (change_value at cost 1) over the cost expected, the screen's
 * plus the measurement's times the probability that it then changes the cell's decision
 * (the measurement that follows a screen is worth taking about that often); screening is
 * the better way when that expected cost is below the measurement's. Where the library's
 * default is not measured and the neighbours do not settle it, a rule needs it measured
 * too: its predicted cost is added (a cell's first measurement and its default come as a
 * pair, in the cells where the pair is worth most). */
static double action_value(const tuner *t, const cell *ce, int k, double margin, int *screen,
                           double *probability)
{
    const candidate *c = &t->cand[k];
    const candidate *d = ce->library_default >= 0 ? &t->cand[ce->library_default] : NULL;
    double gain = change_value(t, ce, k, margin, 1, probability);
    double screen_cost = !c->screened && tuner_screen_calls(t, c->config) ? predicted_cost(t, c, 1) : 0;
    double with_default = d && d != c && !d->measured && ce->state.default_confidence < DEFAULT_CONFIDENCE
                              ? predicted_cost(t, d, 0) : 0;
    return gain / (tuner_expected_cost(*probability, screen_cost, predicted_cost(t, c, 0), screen) +
                   with_default);
}

/* Guarantees: see tuner.h. */
double tuner_expected_cost(double probability, double screen_cost, double full_cost, int *screen)
{
    double first = screen_cost + probability * full_cost;
    int by_screen = screen_cost > 0 && first < full_cost;
    if (screen)
        *screen = by_screen;
    return by_screen ? first : full_cost;
}

/* Guarantees: see tuner.h. */
double tuner_value(const tuner *t, int index, double *probability)
{
    double p = 0, value = -1;
    int k = index >= 0 && index < t->nconfigs ? t->by_config[index] : -1, screen;
    if (k >= 0 && !t->cand[k].measured && !t->cells[t->cand[k].cell].state.final)
        value = action_value(t, &t->cells[t->cand[k].cell], k, log(1 + t->opt.margin), &screen, &p);
    if (probability)
        *probability = p;
    return value;
}

/* The criterion of step 4 (tuner.h): over the unmeasured candidates of the cells not
 * final, the largest change_value; the predicted fastest among equals. -1 when every cell
 * is final or nothing is left. *step: "default" (the library's own choice), "cover" (a cell
 * with nothing measured), "improve". */
static int next_measurement(const tuner *t, double margin, const char **step, int *screen)
{
    int best = -1, best_screen = 0;
    double best_value = -1;
    for (int ci = 0; ci < t->ncells; ci++) {
        const cell *ce = &t->cells[ci];
        if (ce->state.final)
            continue;
        for (int m = 0; m < ce->count; m++) {
            int k = ce->members[m];
            const candidate *c = &t->cand[k];
            if (c->measured)
                continue;
            int by_screen;
            double p, value = action_value(t, ce, k, margin, &by_screen, &p);
            if (value > best_value || (value == best_value && c->mu < t->cand[best].mu)) {
                best_value = value;
                best = k;
                best_screen = by_screen;
            }
        }
    }
    if (best >= 0) {
        const cell *ce = &t->cells[t->cand[best].cell];
        *step = best == ce->library_default ? "default" : ce->state.winner < 0 ? "cover" : "improve";
        *screen = best_screen;
    }
    return best;
}

/* The cover step: in the unmeasured cell farthest from every measured cell of its context,
 * its predicted fastest candidate; -1 when every cell has a result. */
static int next_cover(const tuner *t)
{
    int pick_cell = -1;
    double pick_distance = -1;
    for (int ci = 0; ci < t->ncells; ci++) {
        const cell *ce = &t->cells[ci];
        if (ce->state.winner >= 0 || ce->state.measured == ce->count)
            continue;
        double nearest = 1e300;
        for (int o = 0; o < t->ncells; o++) {
            const cell *other = &t->cells[o];
            if (other->context != ce->context || other->state.winner < 0)
                continue;
            double ds = ce->log_s - other->log_s, dp = ce->log_p - other->log_p;
            nearest = fmin(nearest, ds * ds + dp * dp);
        }
        if (nearest > pick_distance) {
            pick_distance = nearest;
            pick_cell = ci;
        }
    }
    if (pick_cell < 0)
        return -1;
    const cell *ce = &t->cells[pick_cell];
    int best = -1;
    for (int m = 0; m < ce->count; m++) {
        const candidate *c = &t->cand[ce->members[m]];
        if (!c->measured && (best < 0 || c->mu < t->cand[best].mu))
            best = ce->members[m];
    }
    return best;
}

/* The default step (tuner.h, step 3): the MPI library's own choice, unmeasured, in a cell
 * whose winner is another candidate and whose neighbours do not make the winner faster
 * than it with DEFAULT_CONFIDENCE (default_confidence): of those cells, the one where the
 * winner most probably beats the default by more than `margin`; -1 when there is none. */
static int next_default(const tuner *t, double margin)
{
    int best = -1;
    double best_p = -1;
    for (int ci = 0; ci < t->ncells; ci++) {
        const cell *ce = &t->cells[ci];
        if (ce->state.winner < 0 || ce->library_default < 0)
            continue;
        const candidate *d = &t->cand[ce->library_default];
        if (d->measured || ce->state.winner == d->config ||
            ce->state.default_confidence >= DEFAULT_CONFIDENCE)
            continue;
        double p = 1 - probability_below(t, d, log(ce->state.winner_s) + margin);
        if (p > best_p) {
            best_p = p;
            best = ce->library_default;
        }
    }
    return best;
}

/* Guarantees: see tuner.h. */
int tuner_next(tuner *t, const char **phase, int *screen)
{
    refresh(t);
    if (tuner_budget_spent(t))
        return -1;
    double margin = log(1 + t->opt.margin);
    const char *step = "design";
    int k = -1, by_screen = 0;
    int design_open = t->opt.budget_seconds <= 0 || t->spent < t->opt.budget_seconds / 5;
    for (int d = 0; d < t->ndesign && k < 0 && design_open; d++)
        if (!t->cand[t->design[d]].measured && !t->cand[t->design[d]].screened) {
            k = t->design[d]; /* a design point fits the model: a screen is enough */
            by_screen = tuner_screen_calls(t, t->cand[k].config) > 0;
        }
    if (k < 0 && (k = next_default(t, margin)) >= 0)
        step = "default";
    if (k < 0 && (k = next_cover(t)) >= 0)
        step = "cover";
    if (k < 0)
        k = next_measurement(t, margin, &step, &by_screen);
    if (k < 0)
        return -1;
    if (phase)
        *phase = step;
    if (screen)
        *screen = by_screen;
    return t->cand[k].config;
}

/* Guarantees: see tuner.h (the state as of the last tuner_next). */
void tuner_cell(const tuner *t, int c, tuner_cell_state *out)
{
    *out = t->cells[c].state;
}

/* Guarantees: see tuner.h. */
void tuner_print_model(const tuner *t, FILE *out)
{
    for (int g = 0; g < t->ngroups; g++) {
        const group *gr = &t->groups[g];
        const config *c = &t->configs[t->cand[gr->members[0]].config];
        char dist_params[300];
        declared_dist_params(c, dist_params, sizeof dist_params);
        char name[64];
        if (forced_algorithm(c))
            snprintf(name, sizeof name, "%s/%lld", gr->kernel->name, forced_algorithm(c));
        else
            snprintf(name, sizeof name, "%s", gr->kernel->name);
        fprintf(out, "  model %-10s %-14s %s%s%s%s: alpha = %9.3f us per round, beta = %8.4f ns "
                "per byte", a2a_family_name(c->kernel->family), name,
                wl_dist_name(c->dist), dist_params[0] ? "(" : "", dist_params,
                dist_params[0] ? ")" : "", gr->alpha * 1e6, gr->beta * 1e9);
        if (gr->priors)
            fprintf(out, "  (%d of %d from the platform's prior, times %.3g from the "
                    "measurements, weighing %.0f%% against the fit)\n", gr->priors, gr->count,
                    exp(gr->prior_shift), 100 * gr->prior_weight);
        else if (gr->fitted_from)
            fprintf(out, "  (least squares over %d measurements, rms error %.0f%%)\n",
                    gr->fitted_from, 100 * (exp(gr->rms) - 1));
        else
            fprintf(out, "  (too few measurements: the shape of all kernels, scaled)\n");
    }
    if (t->checked)
        fprintf(out, "  misses: %d of %d observed candidates, each predicted without itself, off "
                "by more than %.0f sd (RMS factor %.2f); an unmeasured one is taken to be such a "
                "miss with probability %.3f\n", t->missed, t->checked, MISS_Z, exp(sqrt(t->miss_var)),
                t->miss_p);
}

/* Guarantees: see tuner.h. */
void tuner_model_error(const tuner *t, int *checked, int *missed, double *miss_p, double *miss_sd)
{
    *checked = t->checked;
    *missed = t->missed;
    *miss_p = t->miss_p;
    *miss_sd = sqrt(t->miss_var);
}
