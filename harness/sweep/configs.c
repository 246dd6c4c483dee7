/* configs.c — expanding a sweep into configurations (see configs.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dist_provider.h"
#include "configs.h"

typedef struct config_list {
    config *items;
    int count, capacity;
} config_list;

static config *append(config_list *list, const config *c)
{
    if (list->count == list->capacity) {
        list->capacity = list->capacity ? 2 * list->capacity : 256;
        list->items = realloc(list->items, (size_t)list->capacity * sizeof *list->items);
        if (!list->items)
            abort();
    }
    list->items[list->count] = *c;
    return &list->items[list->count++];
}

/* Guarantees: human-readable size with a binary suffix when it is exact. */
void format_bytes(long long bytes, char *text, size_t len)
{
    static const char *const units[] = { "KiB", "MiB", "GiB" };
    if (bytes >= 1024 && bytes % 1024 == 0) {
        int u = 0;
        long long v = bytes / 1024;
        while (u < 2 && v >= 1024 && v % 1024 == 0) {
            v /= 1024;
            u++;
        }
        snprintf(text, len, "%lld%s", v, units[u]);
    } else {
        snprintf(text, len, "%lld", bytes);
    }
}

/* Guarantees: the parameters that shape c's block sizes, as text; "" when none. */
void config_dist_params(const config *c, char *text, size_t len)
{
    const wl_params p = wl_params_effective(c->S, c->dist_params);
    text[0] = '\0';
    if (c->dist == WL_DIST_NORMAL)
        snprintf(text, len, "mean=%g,sd=%g", p.mean, p.sd);
    else if (c->dist == WL_DIST_POWERLAW)
        snprintf(text, len, "exponent=%g", p.exponent);
    else if (c->dist == WL_DIST_MATRIX)
        snprintf(text, len, "file=%.250s", c->matrix_path ? c->matrix_path : "");
    else if (c->dist == WL_DIST_GRAPH)
        snprintf(text, len, "graph=%.250s,iteration=%d", c->dist_instance ? c->dist_instance : "",
                 c->graph_iteration);
    else if (c->dist == WL_DIST_FFT)
        snprintf(text, len, "fft=%.250s", c->dist_instance ? c->dist_instance : "");
}

/* Guarantees: a single line naming everything that distinguishes c in a sweep. */
void config_describe(const config *c, char *text, size_t len)
{
    char s[32];
    format_bytes(c->S, s, sizeof s);
    char dist_params[300];
    config_dist_params(c, dist_params, sizeof dist_params);
    int n = snprintf(text, len, "%s/%s P=%d S=%s %s%s%s%s", a2a_family_name(c->kernel->family),
                     c->kernel->name, c->P, s, wl_dist_name(c->dist), dist_params[0] ? "(" : "",
                     dist_params, dist_params[0] ? ")" : "");
    if (c->pattern && n > 0 && (size_t)n < len)
        n += snprintf(text + n, len - (size_t)n, " pattern=%.120s", c->pattern);
    for (int p = 0; p < A2A_PARAM_COUNT && n > 0 && (size_t)n < len; p++)
        if (a2a_kernel_takes(c->kernel, (a2a_param)p))
            n += snprintf(text + n, len - (size_t)n, " %s=%d", a2a_param_name((a2a_param)p),
                          c->params[p]);
    if (n > 0 && (size_t)n < len && c->payload != WL_PAYLOAD_PATTERN)
        n += snprintf(text + n, len - (size_t)n, " payload=%s", wl_payload_name(c->payload));
    if (n > 0 && (size_t)n < len && c->datatype != 0)
        n += snprintf(text + n, len - (size_t)n, " datatype=%s", sweep_datatype_name(c->datatype));
    if (n > 0 && (size_t)n < len && c->gap != 0)
        n += snprintf(text + n, len - (size_t)n, " gap=%d", c->gap);
    if (n > 0 && (size_t)n < len && c->alloc != SWEEP_ALLOC_PRIVATE)
        snprintf(text + n, len - (size_t)n, " alloc=%s", sweep_alloc_name(c->alloc));
}

/* Guarantees: an upper estimate of the buffers the runner and the kernel hold. Per
 * rank: send buffer, its pristine copy, the kernel's receive buffer, the vendor's, the
 * expected one, and as much again for kernel temporaries. */
double config_memory_estimate(const config *c, int node_ranks)
{
    int on_node = c->P < node_ranks ? c->P : node_ranks;
    double per_rank = 6.0 * (double)c->P * (double)(c->S + 64);
    return per_rank * on_node;
}

static void make_key(config *c, const sweep_section *sec)
{
    char dist_params[120];
    config_dist_params(c, dist_params, sizeof dist_params);
    int n = snprintf(c->key, sizeof c->key,
                     "%s|%s|%s|P=%d|Q=%d|S=%lld|dist=%s(%s)|payload=%s|type=%s|gap=%d|it=%d|wu=%d|seed=%llu",
                     sec->name, a2a_family_name(c->kernel->family), c->kernel->name, c->P, c->Q,
                     c->S, wl_dist_name(c->dist), dist_params, wl_payload_name(c->payload),
                     sweep_datatype_name(c->datatype), c->gap, c->iterations, c->warmup,
                     (unsigned long long)c->seed);
    if (c->pattern && n > 0 && (size_t)n < sizeof c->key)
        n += snprintf(c->key + n, sizeof c->key - (size_t)n, "|pattern=%.200s", c->pattern);
    if (c->iterations == SWEEP_ITERATIONS_AUTO && n > 0 && (size_t)n < sizeof c->key)
        n += snprintf(c->key + n, sizeof c->key - (size_t)n, "|budget=%g", c->time_budget);
    for (int p = 0; p < A2A_PARAM_COUNT; p++)
        if (a2a_kernel_takes(c->kernel, (a2a_param)p) && n > 0 && (size_t)n < sizeof c->key)
            n += snprintf(c->key + n, sizeof c->key - (size_t)n, "|%s=%d",
                          a2a_param_name((a2a_param)p), c->params[p]);
    if (c->alloc != SWEEP_ALLOC_PRIVATE && n > 0 && (size_t)n < sizeof c->key)
        snprintf(c->key + n, sizeof c->key - (size_t)n, "|alloc=%s", sweep_alloc_name(c->alloc));
}

/* Guarantees: see configs.h. */
void config_with_iterations(const config *c, int iterations, config *out)
{
    *out = *c;
    out->iterations = iterations;
    char old[32];
    snprintf(old, sizeof old, "|it=%d|", c->iterations);
    const char *at = strstr(c->key, old);
    if (!at)
        return;
    size_t head = (size_t)(at - c->key);
    snprintf(out->key + head, sizeof out->key - head, "|it=%d|%s", iterations, at + strlen(old));
}

typedef struct expansion {
    const sweep *sw;
    const sweep_section *sec;
    const launch_info *launch;
    config_list *list;
    long long *values[A2A_PARAM_COUNT];
    int nvalues[A2A_PARAM_COUNT];
    int in_range_seen[A2A_PARAM_COUNT]; /* some value was in range somewhere */
    int evaluated[A2A_PARAM_COUNT];     /* the list was evaluated at least once */
    int reached[A2A_PARAM_COUNT];       /* some configuration got as far as choosing it */
    int after_radix[A2A_PARAM_COUNT];   /* the list names `radix`: evaluated per radix */
    vlist_env env;                      /* P, Q, N, world of the kernel being expanded */
    char *err;
    size_t errlen;
} expansion;

static int eval_list(expansion *ex, const vlist *list, sweep_key key, const vlist_env *env,
                     long long **values, int *n)
{
    char msg[256];
    if (vlist_eval(list, env, values, n, msg, sizeof msg) != 0) {
        snprintf(ex->err, ex->errlen, "%s:%d: %s = %s at P = %lld: %s", ex->sw->path,
                 ex->sec->setting[key].line, sweep_key_name(key), vlist_text(list), env->P, msg);
        return -1;
    }
    return 0;
}

/* 1 when c's blocks are whole elements of its datatype; else 0 with "file:line: ..." in
 * ex->err. Distributions that give every block S bytes (constant, fft_n1, fft_n2) need S
 * to be a multiple of the type size; the random ones round each block down. */
static int whole_elements(expansion *ex, const config *c)
{
    int size = sweep_datatype_size(c->datatype);
    int fixed = c->dist == WL_DIST_CONSTANT || c->dist == WL_DIST_FFT_N1 || c->dist == WL_DIST_FFT_N2;
    if (!fixed || size <= 1 || c->S % size == 0)
        return 1;
    snprintf(ex->err, ex->errlen, "%s:%d: S = %lld is not a multiple of %d bytes, the size of "
             "datatype %s (line %d): blocks hold whole elements", ex->sw->path,
             ex->sec->setting[KEY_S].line, c->S, size, sweep_datatype_name(c->datatype),
             ex->sec->setting[KEY_DATATYPE].line);
    return 0;
}

/* Emits every combination of the kernel's parameters from parameter `p` on (ppn is
 * fixed by the caller, as it decides Q). Ranges of later parameters may depend on
 * earlier ones (block_count = 1..radix-1 is checked by the registry), and a list that
 * names `radix` is evaluated at the radix already chosen. Returns 0, or -1 with the
 * message in ex->err. */
static int emit_params(expansion *ex, const config *c, int p)
{
    while (p < A2A_PARAM_COUNT &&
           (p == A2A_PARAM_PPN || !a2a_kernel_takes(c->kernel, (a2a_param)p)))
        p++;
    if (p < A2A_PARAM_COUNT) {
        ex->reached[p] = 1;
        if (ex->after_radix[p]) {
            vlist_env at = ex->env;
            at.radix = c->params[A2A_PARAM_RADIX];
            free(ex->values[p]);
            ex->values[p] = NULL;
            if (eval_list(ex, ex->sec->param[p], SWEEP_PARAM_KEY(p), &at, &ex->values[p],
                          &ex->nvalues[p]))
                return -1;
        }
    }
    if (p == A2A_PARAM_COUNT) {
        config out = *c;
        if (!out.skip) {
            char why[200];
            if (!a2a_params_valid(out.kernel, out.P, out.Q, out.params, why, sizeof why)) {
                out.skip = 1;
                snprintf(out.reason, sizeof out.reason, "%s", why);
            }
        }
        make_key(&out, ex->sec);
        append(ex->list, &out);
        return 0;
    }
    /* a copy: a later list naming radix is re-evaluated while this one is walked */
    int nvalues = ex->nvalues[p];
    long long *values = malloc((size_t)(nvalues ? nvalues : 1) * sizeof *values);
    if (nvalues)
        memcpy(values, ex->values[p], (size_t)nvalues * sizeof *values);
    int rc = 0;
    for (int i = 0; i < nvalues && rc == 0; i++) {
        long long v = values[i];
        config next = *c;
        next.params[p] = v > INT_MAX ? INT_MAX : v < INT_MIN ? INT_MIN : (int)v;
        if (a2a_param_in_range(next.kernel, (a2a_param)p, next.P, next.Q, next.params))
            ex->in_range_seen[p] = 1;
        rc = emit_params(ex, &next, p + 1);
    }
    free(values);
    return rc;
}

/* One point of the expansion: the configuration built so far and the values the axes
 * still to be walked choose from. Each axis fills its own fields; a point is copied per
 * value, so a value never leaks into its siblings. */
typedef struct point {
    config c;                        /* the fields chosen so far; the others still 0 */
    long long *Ps;                   /* axis P: the process counts of the section */
    int nP;
    long long *Ss, *gaps, *ppns;     /* the lists at the chosen P (ppns NULL: not given) */
    int nS, ngaps, nppns;
    int is;                          /* index of the chosen S (see apply_dist) */
    int sparse;                      /* the kernel is of an sdde family: patterns apply */
    const wl_provider *provider;     /* the chosen distribution's provider, NULL: none */
    wl_instance *inst;               /* its instances at P (provider != NULL) */
    int ninst, ii;                   /* ii: the chosen instance */
} point;

/* An axis of the expansion. count: how many values it has at `pt` (it may store them in
 * pt), or -1 with the message in ex->err. apply: chooses value i in `pt` (a copy of the
 * counted point): 0 to walk on, 1 when this value yields no configuration, -1 with the
 * message in ex->err. release_value frees what apply stored, release frees what count
 * stored; either may be NULL. */
typedef struct axis {
    int (*count)(expansion *ex, point *pt);
    int (*apply)(expansion *ex, point *pt, int i);
    void (*release_value)(point *pt);
    void (*release)(point *pt);
} axis;

/* The process counts of the section (at least one), or -1 when the list cannot be
 * evaluated or gives none. */
static int count_P(expansion *ex, point *pt)
{
    vlist_env env = { .P = 0, .Q = 0, .N = 0, .world = ex->launch->world };
    if (eval_list(ex, ex->sec->P, KEY_P, &env, &pt->Ps, &pt->nP))
        return -1;
    if (pt->nP == 0) {
        snprintf(ex->err, ex->errlen, "%s:%d: P = %s gives no process count", ex->sw->path,
                 ex->sec->setting[KEY_P].line, vlist_text(ex->sec->P));
        return -1;
    }
    return pt->nP;
}

/* Chooses P and Q (the ranks of the first node), then evaluates and checks the lists
 * that depend on them: S (0..1TiB, not empty), gap (0..1024, not empty) and ppn. */
static int apply_P(expansion *ex, point *pt, int i)
{
    const sweep_section *sec = ex->sec;
    pt->Ss = pt->gaps = pt->ppns = NULL;
    pt->nS = pt->ngaps = 0;
    pt->nppns = 1;
    if (pt->Ps[i] < 1) {
        snprintf(ex->err, ex->errlen, "%s:%d: P = %lld: process counts start at 1",
                 ex->sw->path, sec->setting[KEY_P].line, pt->Ps[i]);
        return -1;
    }
    int P = pt->Ps[i] > INT_MAX ? INT_MAX : (int)pt->Ps[i];
    int Q = P < ex->launch->node_ranks ? P : ex->launch->node_ranks;
    vlist_env env = { .P = P, .Q = Q, .N = (P + Q - 1) / Q, .world = ex->launch->world };
    pt->c.P = P;
    pt->c.Q = Q;
    if (eval_list(ex, sec->S, KEY_S, &env, &pt->Ss, &pt->nS) ||
        eval_list(ex, sec->gap, KEY_GAP, &env, &pt->gaps, &pt->ngaps))
        return -1;
    if (pt->nS == 0) {
        snprintf(ex->err, ex->errlen, "%s:%d: S = %s gives no size at P = %d (a range "
                 "lo..hi needs lo <= hi)", ex->sw->path, sec->setting[KEY_S].line,
                 vlist_text(sec->S), P);
        return -1;
    }
    if (pt->ngaps == 0) {
        snprintf(ex->err, ex->errlen, "%s:%d: gap = %s gives no value at P = %d (a range "
                 "lo..hi needs lo <= hi)", ex->sw->path, sec->setting[KEY_GAP].line,
                 vlist_text(sec->gap), P);
        return -1;
    }
    for (int k = 0; k < pt->nS; k++)
        if (pt->Ss[k] < 0 || pt->Ss[k] > (1LL << 40)) {
            snprintf(ex->err, ex->errlen, "%s:%d: S = %lld is outside 0..1TiB", ex->sw->path,
                     sec->setting[KEY_S].line, pt->Ss[k]);
            return -1;
        }
    for (int k = 0; k < pt->ngaps; k++)
        if (pt->gaps[k] < 0 || pt->gaps[k] > 1024) {
            snprintf(ex->err, ex->errlen, "%s:%d: gap = %lld is outside 0..1024", ex->sw->path,
                     sec->setting[KEY_GAP].line, pt->gaps[k]);
            return -1;
        }
    if (sec->param[A2A_PARAM_PPN]) {
        if (eval_list(ex, sec->param[A2A_PARAM_PPN], SWEEP_PARAM_KEY(A2A_PARAM_PPN), &env,
                      &pt->ppns, &pt->nppns))
            return -1;
        ex->evaluated[A2A_PARAM_PPN] = 1;
    }
    return 0;
}

/* Frees the lists apply_P evaluated at one P. */
static void release_P_value(point *pt)
{
    free(pt->Ss);
    free(pt->gaps);
    free(pt->ppns);
}

/* Frees the process counts. */
static void release_P(point *pt)
{
    free(pt->Ps);
}

/* The section's kernels. */
static int count_kernel(expansion *ex, point *pt)
{
    (void)pt;
    return ex->sec->nkernels;
}

/* Chooses kernel i. */
static int apply_kernel(expansion *ex, point *pt, int i)
{
    const a2a_kernel *kernel = ex->sec->kernels[i];
    pt->c.kernel = kernel;
    pt->sparse = kernel->family == A2A_FAMILY_SDDE || kernel->family == A2A_FAMILY_SDDEV;
    return 0;
}

/* The ppn values for a kernel that takes ppn; one (none) for the others. */
static int count_ppn(expansion *ex, point *pt)
{
    (void)ex;
    return a2a_kernel_takes(pt->c.kernel, A2A_PARAM_PPN) ? pt->nppns : 1;
}

/* Chooses ppn i, which fixes Q (and N) for the other parameters' lists, then evaluates
 * those lists into ex->values (a list naming radix is marked for evaluation per radix in
 * emit_params; naming it where the kernel takes no radix, or in the radix list itself or
 * in a list before it, is an error). */
static int apply_ppn(expansion *ex, point *pt, int i)
{
    const sweep_section *sec = ex->sec;
    const a2a_kernel *kernel = pt->c.kernel;
    int P = pt->c.P;
    int takes_ppn = a2a_kernel_takes(kernel, A2A_PARAM_PPN);
    long long ppn = takes_ppn && pt->ppns ? pt->ppns[i] : 0;
    int q = ppn > 0 ? (int)(ppn < P ? ppn : P) : pt->c.Q;
    vlist_env at = { .P = P, .Q = q, .N = (P + q - 1) / q, .world = ex->launch->world };
    memset(pt->c.params, 0, sizeof pt->c.params);
    pt->c.params[A2A_PARAM_PPN] =
        takes_ppn ? (int)(ppn > INT_MAX ? INT_MAX : ppn < INT_MIN ? INT_MIN : ppn) : 0;
    pt->c.Q = q;
    if (takes_ppn && a2a_param_in_range(kernel, A2A_PARAM_PPN, P, q, pt->c.params))
        ex->in_range_seen[A2A_PARAM_PPN] = 1;
    ex->env = at;
    for (int p = 0; p < A2A_PARAM_COUNT; p++) {
        free(ex->values[p]);
        ex->values[p] = NULL;
        ex->nvalues[p] = 0;
        ex->after_radix[p] = 0;
        if (p == A2A_PARAM_PPN || !sec->param[p] || !a2a_kernel_takes(kernel, (a2a_param)p))
            continue;
        if (vlist_uses(sec->param[p], "radix")) {
            sweep_key key = SWEEP_PARAM_KEY(p);
            if (p == A2A_PARAM_RADIX || !a2a_kernel_takes(kernel, A2A_PARAM_RADIX) ||
                p < A2A_PARAM_RADIX) {
                snprintf(ex->err, ex->errlen, "%s:%d: %s = %s names radix, but kernel "
                         "%s %s", ex->sw->path, sec->setting[key].line,
                         sweep_key_name(key), vlist_text(sec->param[p]), kernel->name,
                         p == A2A_PARAM_RADIX ? "chooses the radix from this very list"
                                              : "takes no radix");
                return -1;
            }
            ex->after_radix[p] = 1; /* evaluated per radix in emit_params */
            ex->evaluated[p] = 1;
            continue;
        }
        if (eval_list(ex, sec->param[p], SWEEP_PARAM_KEY(p), &at, &ex->values[p],
                      &ex->nvalues[p]))
            return -1;
        ex->evaluated[p] = 1;
    }
    return 0;
}

/* The sparse patterns for an sdde kernel; one (none) for the others. */
static int count_pattern(expansion *ex, point *pt)
{
    return pt->sparse ? ex->sec->npatterns : 1;
}

/* Chooses pattern i (NULL for dense kernels). */
static int apply_pattern(expansion *ex, point *pt, int i)
{
    pt->c.pattern = pt->sparse ? ex->sec->patterns[i] : NULL;
    return 0;
}

/* The block sizes at the chosen P. */
static int count_S(expansion *ex, point *pt)
{
    (void)ex;
    return pt->nS;
}

/* Chooses S i. */
static int apply_S(expansion *ex, point *pt, int i)
{
    (void)ex;
    pt->c.S = pt->Ss[i];
    pt->is = i;
    return 0;
}

/* The section's distributions. */
static int count_dist(expansion *ex, point *pt)
{
    (void)pt;
    return ex->sec->ndists;
}

/* Chooses distribution i; an application distribution (graph, fft) is sized by the
 * application, so it expands with the first S only. */
static int apply_dist(expansion *ex, point *pt, int i)
{
    wl_dist dist = (wl_dist)ex->sec->dists[i];
    pt->provider = wl_provider_of(dist);
    if (pt->provider && pt->is > 0)
        return 1;
    pt->c.dist = dist;
    pt->c.dist_params = ex->sec->dist_params;
    return 0;
}

/* An application distribution's instances at P (one per graph iteration / FFT size);
 * one (the distribution itself) for the others. */
static int count_instance(expansion *ex, point *pt)
{
    pt->inst = NULL;
    pt->ninst = 1;
    if (pt->provider &&
        pt->provider->instances(ex->sw->path, ex->sec->provided, pt->c.dist,
                                pt->c.kernel->family, pt->c.P, &pt->inst, &pt->ninst, ex->err,
                                ex->errlen))
        return -1;
    return pt->ninst;
}

/* Chooses instance i: its matrix, S and description replace the section's. */
static int apply_instance(expansion *ex, point *pt, int i)
{
    (void)ex;
    if (pt->provider) {
        pt->c.dist_params.matrix = pt->inst[i].matrix;
        pt->c.S = pt->inst[i].S;
        pt->c.dist_instance = pt->inst[i].text;
        pt->c.graph_iteration = pt->inst[i].iteration;
        pt->c.graph_iterations = pt->inst[i].iterations;
        pt->ii = i;
    }
    return 0;
}

/* Frees the instances. */
static void release_instance(point *pt)
{
    free(pt->inst);
}

/* The section's payloads. */
static int count_payload(expansion *ex, point *pt)
{
    (void)pt;
    return ex->sec->npayloads;
}

/* Chooses payload i. */
static int apply_payload(expansion *ex, point *pt, int i)
{
    pt->c.payload = (wl_payload)ex->sec->payloads[i];
    return 0;
}

/* The section's datatypes. */
static int count_datatype(expansion *ex, point *pt)
{
    (void)pt;
    return ex->sec->ndatatypes;
}

/* Chooses datatype i. */
static int apply_datatype(expansion *ex, point *pt, int i)
{
    pt->c.datatype = ex->sec->datatypes[i];
    return 0;
}

/* The gaps at the chosen P. */
static int count_gap(expansion *ex, point *pt)
{
    (void)ex;
    return pt->ngaps;
}

/* Chooses gap i; a uniform kernel takes gap 0 only (gap shapes non-uniform layouts). */
static int apply_gap(expansion *ex, point *pt, int i)
{
    (void)ex;
    if (pt->c.kernel->family == A2A_FAMILY_UNIFORM && pt->gaps[i] != 0)
        return 1;
    pt->c.gap = (int)pt->gaps[i];
    return 0;
}

/* One value: the judgement of the point built so far. */
static int count_one(expansion *ex, point *pt)
{
    (void)ex;
    (void)pt;
    return 1;
}

/* Judges the point once all but its alloc and parameters are chosen: blocks must hold
 * whole elements and a matrix file must load (else -1); it is skipped, with the first
 * reason that applies, when the matrix does not fit P, the application instance is
 * skipped, P exceeds the launch or the buffers exceed a node's memory. */
static int apply_judge(expansion *ex, point *pt, int i)
{
    (void)i;
    config *c = &pt->c;
    const launch_info *launch = ex->launch;
    if (!pt->provider && !whole_elements(ex, c))
        return -1;
    double need = config_memory_estimate(c, launch->node_ranks);
    char why[300];
    int matrix_rc = 0;
    if (c->dist == WL_DIST_MATRIX) {
        long long *m = NULL;
        matrix_rc = wl_load_matrix(c->matrix_path, c->P, &m, why, sizeof why);
        free(m);
        if (matrix_rc == -1) {
            snprintf(ex->err, ex->errlen, "%s:%d: matrix: %s", ex->sw->path,
                     ex->sec->setting[KEY_MATRIX].line, why);
            return -1;
        }
    }
    if (matrix_rc == -2) {
        c->skip = 1;
        snprintf(c->reason, sizeof c->reason, "%.190s", why);
    } else if (pt->provider && pt->inst[pt->ii].skip) {
        c->skip = 1;
        snprintf(c->reason, sizeof c->reason, "%s", pt->inst[pt->ii].reason);
    } else if (c->P > launch->world) {
        c->skip = 1;
        snprintf(c->reason, sizeof c->reason, "P = %d exceeds the launch size %d", c->P,
                 launch->world);
    } else if (launch->mem_available > 0 && need > launch->mem_available) {
        c->skip = 1;
        snprintf(c->reason, sizeof c->reason, "needs about %.1f GiB on a node, %.1f GiB "
                 "available", need / (1 << 30), launch->mem_available / (1 << 30));
    }
    return 0;
}

/* The section's allocs. */
static int count_alloc(expansion *ex, point *pt)
{
    (void)pt;
    return ex->sec->nallocs;
}

/* Chooses alloc i; a kernel that needs shared buffers is skipped with private ones. */
static int apply_alloc(expansion *ex, point *pt, int i)
{
    pt->c.alloc = ex->sec->allocs[i];
    if (!pt->c.skip && pt->c.alloc != SWEEP_ALLOC_SHARED &&
        a2a_kernel_needs_shared(pt->c.kernel)) {
        pt->c.skip = 1;
        snprintf(pt->c.reason, sizeof pt->c.reason, "%s needs alloc = shared",
                 pt->c.kernel->name);
    }
    return 0;
}

/* The axes, outermost first: their order is the order of the configurations (see
 * configs.h). The kernel's parameters follow them, in emit_params. */
static const axis axes[] = {
    { count_P, apply_P, release_P_value, release_P },
    { count_kernel, apply_kernel, NULL, NULL },
    { count_ppn, apply_ppn, NULL, NULL },
    { count_pattern, apply_pattern, NULL, NULL },
    { count_S, apply_S, NULL, NULL },
    { count_dist, apply_dist, NULL, NULL },
    { count_instance, apply_instance, NULL, release_instance },
    { count_payload, apply_payload, NULL, NULL },
    { count_datatype, apply_datatype, NULL, NULL },
    { count_gap, apply_gap, NULL, NULL },
    { count_one, apply_judge, NULL, NULL },
    { count_alloc, apply_alloc, NULL, NULL },
};

/* Walks the axes from `level` on, odometer order (the last axis turns fastest), from
 * point `at`, and emits each complete point through emit_params. Frees everything the
 * axes stored, also on failure. Returns 0, or -1 with the message in ex->err (the walk
 * stops at the first). */
static int walk_axes(expansion *ex, const point *at, int level)
{
    if (level == (int)(sizeof axes / sizeof axes[0]))
        return emit_params(ex, &at->c, 0);
    const axis *a = &axes[level];
    point here = *at;
    int n = a->count(ex, &here), rc = n < 0 ? -1 : 0;
    for (int i = 0; i < n && rc == 0; i++) {
        point next = here;
        int applied = a->apply(ex, &next, i);
        if (applied < 0)
            rc = -1;
        else if (applied == 0)
            rc = walk_axes(ex, &next, level + 1);
        if (a->release_value)
            a->release_value(&next);
    }
    if (a->release)
        a->release(&here);
    return rc;
}

/* Expands section `section_index` into ex->list: every point of the axes, then every
 * value of the kernel's parameters. Returns 0, or -1 with "file:line: message" in
 * ex->err for a list that cannot be evaluated or a parameter out of range for every P. */
static int expand_section(expansion *ex, int section_index)
{
    const sweep_section *sec = ex->sec;
    point start = { .c = { .section = section_index, .matrix_path = sec->matrix_path,
                           .iterations = sec->iterations, .time_budget = sec->time_budget,
                           .warmup = sec->warmup, .seed = sec->seed, .timeout = sec->timeout,
                           .counters = sec->counters } };
    if (walk_axes(ex, &start, 0))
        return -1;
    for (int p = 0; p < A2A_PARAM_COUNT; p++) {
        int taken = 0;
        for (int ik = 0; ik < sec->nkernels; ik++)
            taken |= a2a_kernel_takes(sec->kernels[ik], (a2a_param)p);
        if (taken && ex->evaluated[p] && ex->reached[p] && !ex->in_range_seen[p]) {
            snprintf(ex->err, ex->errlen,
                     "%s:%d: %s = %s is out of range for every P of section [%s]", ex->sw->path,
                     sec->setting[SWEEP_PARAM_KEY(p)].line, a2a_param_name((a2a_param)p),
                     vlist_text(sec->param[p]), sec->name);
            return -1;
        }
    }
    return 0;
}

/* 1 if `name` is one of the comma-separated names in `list`. */
static int in_name_list(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        if (len == n && strncmp(p, name, n) == 0)
            return 1;
        p += len + (p[len] == ',');
    }
    return 0;
}

/* Guarantees: see configs.h. */
int expand_sweep(const sweep *sw, const launch_info *launch, const char *only_section,
                 config **out, int *count, char *err, size_t errlen)
{
    config_list list = { 0 };
    if (only_section)
        for (const char *p = only_section; *p;) {
            size_t len = strcspn(p, ",");
            int known = 0;
            for (int s = 0; s < sw->nsections; s++)
                known |= strlen(sw->sections[s].name) == len &&
                         strncmp(sw->sections[s].name, p, len) == 0;
            if (!known) {
                snprintf(err, errlen, "%s: no section [%.*s]", sw->path, (int)len, p);
                return -1;
            }
            p += len + (p[len] == ',');
        }
    for (int s = 0; s < sw->nsections; s++) {
        if (only_section && !in_name_list(only_section, sw->sections[s].name))
            continue;
        expansion ex = { .sw = sw, .sec = &sw->sections[s], .launch = launch, .list = &list,
                         .err = err, .errlen = errlen };
        int rc = expand_section(&ex, s);
        for (int p = 0; p < A2A_PARAM_COUNT; p++)
            free(ex.values[p]);
        if (rc != 0) {
            free(list.items);
            return -1;
        }
    }
    *out = list.items;
    *count = list.count;
    return 0;
}
