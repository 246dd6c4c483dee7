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
static int emit_params(expansion *ex, config *c, int p)
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

static int expand_section(expansion *ex, int section_index)
{
    const sweep_section *sec = ex->sec;
    const launch_info *launch = ex->launch;
    vlist_env env = { .P = 0, .Q = 0, .N = 0, .world = launch->world };
    long long *Ps = NULL;
    int nP = 0, rc = -1;
    if (eval_list(ex, sec->P, KEY_P, &env, &Ps, &nP))
        return -1;
    if (nP == 0) {
        snprintf(ex->err, ex->errlen, "%s:%d: P = %s gives no process count", ex->sw->path,
                 sec->setting[KEY_P].line, vlist_text(sec->P));
        return -1;
    }
    for (int ip = 0; ip < nP; ip++) {
        if (Ps[ip] < 1) {
            snprintf(ex->err, ex->errlen, "%s:%d: P = %lld: process counts start at 1",
                     ex->sw->path, sec->setting[KEY_P].line, Ps[ip]);
            goto done;
        }
        int P = Ps[ip] > INT_MAX ? INT_MAX : (int)Ps[ip];
        int Q = P < launch->node_ranks ? P : launch->node_ranks;
        env.P = P;
        env.Q = Q;
        env.N = (P + Q - 1) / Q;
        long long *Ss = NULL, *gaps = NULL;
        int nS = 0, ngaps = 0;
        if (eval_list(ex, sec->S, KEY_S, &env, &Ss, &nS) ||
            eval_list(ex, sec->gap, KEY_GAP, &env, &gaps, &ngaps))
            goto loop_fail;
        if (nS == 0) {
            snprintf(ex->err, ex->errlen, "%s:%d: S = %s gives no size at P = %d (a range "
                     "lo..hi needs lo <= hi)", ex->sw->path, sec->setting[KEY_S].line,
                     vlist_text(sec->S), P);
            goto loop_fail;
        }
        if (ngaps == 0) {
            snprintf(ex->err, ex->errlen, "%s:%d: gap = %s gives no value at P = %d (a range "
                     "lo..hi needs lo <= hi)", ex->sw->path, sec->setting[KEY_GAP].line,
                     vlist_text(sec->gap), P);
            goto loop_fail;
        }
        for (int i = 0; i < nS; i++)
            if (Ss[i] < 0 || Ss[i] > (1LL << 40)) {
                snprintf(ex->err, ex->errlen, "%s:%d: S = %lld is outside 0..1TiB", ex->sw->path,
                         sec->setting[KEY_S].line, Ss[i]);
                goto loop_fail;
            }
        for (int i = 0; i < ngaps; i++)
            if (gaps[i] < 0 || gaps[i] > 1024) {
                snprintf(ex->err, ex->errlen, "%s:%d: gap = %lld is outside 0..1024", ex->sw->path,
                         sec->setting[KEY_GAP].line, gaps[i]);
                goto loop_fail;
            }
        long long *ppns = NULL, zero = 0;
        int nppns = 1;
        if (sec->param[A2A_PARAM_PPN]) {
            if (eval_list(ex, sec->param[A2A_PARAM_PPN], SWEEP_PARAM_KEY(A2A_PARAM_PPN), &env,
                          &ppns, &nppns))
                goto loop_fail;
            ex->evaluated[A2A_PARAM_PPN] = 1;
        }
        for (int ik = 0; ik < sec->nkernels; ik++) {
            const a2a_kernel *kernel = sec->kernels[ik];
            int takes_ppn = a2a_kernel_takes(kernel, A2A_PARAM_PPN);
            for (int iq = 0; iq < (takes_ppn ? nppns : 1); iq++) {
                long long ppn = takes_ppn && ppns ? ppns[iq] : zero;
                /* a virtual ppn fixes Q (and N) for the other parameters' lists */
                int q = ppn > 0 ? (int)(ppn < P ? ppn : P) : Q;
                vlist_env at = { .P = P, .Q = q, .N = (P + q - 1) / q, .world = launch->world };
                int params_fixed[A2A_PARAM_COUNT] = { 0 };
                params_fixed[A2A_PARAM_PPN] = takes_ppn ? (int)(ppn > INT_MAX ? INT_MAX : ppn < INT_MIN ? INT_MIN : ppn) : 0;
                if (takes_ppn && a2a_param_in_range(kernel, A2A_PARAM_PPN, P, q, params_fixed))
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
                            free(ppns);
                            goto loop_fail;
                        }
                        ex->after_radix[p] = 1; /* evaluated per radix in emit_params */
                        ex->evaluated[p] = 1;
                        continue;
                    }
                    if (eval_list(ex, sec->param[p], SWEEP_PARAM_KEY(p), &at,
                                  &ex->values[p], &ex->nvalues[p])) {
                        free(ppns);
                        goto loop_fail;
                    }
                    ex->evaluated[p] = 1;
                }
                int sparse = kernel->family == A2A_FAMILY_SDDE || kernel->family == A2A_FAMILY_SDDEV;
                for (int ipat = 0; ipat < (sparse ? sec->npatterns : 1); ipat++)
                for (int is = 0; is < nS; is++)
                    for (int id = 0; id < sec->ndists; id++) {
                        /* graph, fft: one instance per graph iteration / FFT size, sized by
                         * the application (only the first S expands) */
                        wl_instance *inst = NULL;
                        const wl_provider *provider = wl_provider_of((wl_dist)sec->dists[id]);
                        int app = provider != NULL, ninst = 1;
                        if (app && is > 0)
                            continue;
                        if (app && provider->instances(ex->sw->path, sec->provided, (wl_dist)sec->dists[id],
                                                      kernel->family, P, &inst, &ninst, ex->err,
                                                      ex->errlen)) {
                            free(ppns);
                            goto loop_fail;
                        }
                        for (int ii = 0; ii < ninst; ii++)
                        for (int iy = 0; iy < sec->npayloads; iy++)
                            for (int it = 0; it < sec->ndatatypes; it++)
                                for (int ig = 0; ig < ngaps; ig++) {
                                    if (kernel->family == A2A_FAMILY_UNIFORM && gaps[ig] != 0)
                                        continue; /* gap only shapes non-uniform layouts */
                                    config c = { 0 };
                                    c.section = section_index;
                                    c.kernel = kernel;
                                    c.P = P;
                                    c.Q = q;
                                    memcpy(c.params, params_fixed, sizeof c.params);
                                    c.S = Ss[is];
                                    c.dist = (wl_dist)sec->dists[id];
                                    c.dist_params = sec->dist_params;
                                    if (app) {
                                        c.dist_params.matrix = inst[ii].matrix;
                                        c.S = inst[ii].S;
                                        c.dist_instance = inst[ii].text;
                                        c.graph_iteration = inst[ii].iteration;
                                        c.graph_iterations = inst[ii].iterations;
                                    }
                                    c.matrix_path = sec->matrix_path;
                                    c.pattern = sparse ? sec->patterns[ipat] : NULL;
                                    c.payload = (wl_payload)sec->payloads[iy];
                                    c.datatype = sec->datatypes[it];
                                    c.gap = (int)gaps[ig];
                                    c.iterations = sec->iterations;
                                    c.time_budget = sec->time_budget;
                                    c.warmup = sec->warmup;
                                    c.seed = sec->seed;
                                    c.timeout = sec->timeout;
                                    c.counters = sec->counters;
                                    if (!app && !whole_elements(ex, &c)) {
                                        free(inst);
                                        free(ppns);
                                        goto loop_fail;
                                    }
                                    double need = config_memory_estimate(&c, launch->node_ranks);
                                    char why[300];
                                    int matrix_rc = 0;
                                    if (c.dist == WL_DIST_MATRIX) {
                                        long long *m = NULL;
                                        matrix_rc = wl_load_matrix(c.matrix_path, P, &m, why, sizeof why);
                                        free(m);
                                        if (matrix_rc == -1) {
                                            snprintf(ex->err, ex->errlen, "%s:%d: matrix: %s",
                                                     ex->sw->path, sec->setting[KEY_MATRIX].line,
                                                     why);
                                            free(ppns);
                                            goto loop_fail;
                                        }
                                    }
                                    if (matrix_rc == -2) {
                                        c.skip = 1;
                                        snprintf(c.reason, sizeof c.reason, "%.190s", why);
                                    } else if (app && inst[ii].skip) {
                                        c.skip = 1;
                                        snprintf(c.reason, sizeof c.reason, "%s", inst[ii].reason);
                                    } else if (P > launch->world) {
                                        c.skip = 1;
                                        snprintf(c.reason, sizeof c.reason,
                                                 "P = %d exceeds the launch size %d", P,
                                                 launch->world);
                                    } else if (launch->mem_available > 0 &&
                                               need > launch->mem_available) {
                                        c.skip = 1;
                                        snprintf(c.reason, sizeof c.reason,
                                                 "needs about %.1f GiB on a node, %.1f GiB "
                                                 "available", need / (1 << 30),
                                                 launch->mem_available / (1 << 30));
                                    }
                                    for (int ia = 0; ia < sec->nallocs; ia++) {
                                        config ca = c; /* one configuration per alloc value */
                                        ca.alloc = sec->allocs[ia];
                                        if (!ca.skip && ca.alloc != SWEEP_ALLOC_SHARED &&
                                            a2a_kernel_needs_shared(kernel)) {
                                            ca.skip = 1;
                                            snprintf(ca.reason, sizeof ca.reason, "%s needs "
                                                     "alloc = shared", kernel->name);
                                        }
                                        if (emit_params(ex, &ca, 0)) {
                                            free(inst);
                                            free(ppns);
                                            goto loop_fail;
                                        }
                                    }
                                }
                        free(inst);
                    }
            }
        }
        free(ppns);
        free(Ss);
        free(gaps);
        continue;
    loop_fail:
        free(Ss);
        free(gaps);
        goto done;
    }
    for (int p = 0; p < A2A_PARAM_COUNT; p++) {
        int taken = 0;
        for (int ik = 0; ik < sec->nkernels; ik++)
            taken |= a2a_kernel_takes(sec->kernels[ik], (a2a_param)p);
        if (taken && ex->evaluated[p] && ex->reached[p] && !ex->in_range_seen[p]) {
            snprintf(ex->err, ex->errlen,
                     "%s:%d: %s = %s is out of range for every P of section [%s]", ex->sw->path,
                     sec->setting[SWEEP_PARAM_KEY(p)].line, a2a_param_name((a2a_param)p),
                     vlist_text(sec->param[p]), sec->name);
            goto done;
        }
    }
    rc = 0;
done:
    free(Ps);
    return rc;
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
