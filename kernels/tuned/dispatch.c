/*
 * dispatch.c — the tuned dispatcher: A2A_Alltoall / A2A_Alltoallv pick the kernel and its
 * parameters per call from the tuning file named by A2A_TUNING_FILE (see a2a_tuned.h).
 *
 * The file (written by `a2a tune`) is JSON:
 *   { "format": "a2a-tuning", "version": 1, "mpi_library": "Open MPI", ...,
 *     "alltoall":  [ { "P": [4, 7], "S": [0, 255], "kernel": "tra", "params": {"radix": 2} },
 *                    ... ],
 *     "alltoallv": [ ... ] }
 * P is the communicator size, S the bytes of one block (alltoall) or of the largest block
 * any rank sends (alltoallv); a bound of null is open. The first rule containing (P, S)
 * is taken. Kernels and parameters are looked up in the registry, so the file can name
 * any kernel of the uniform (alltoall) or non-uniform (alltoallv) family.
 *
 * Every rank makes the same choice: it depends only on values MPI requires to be the same
 * on all ranks (intercommunicator or not, MPI_IN_PLACE or not, P, and S of alltoall: the
 * bytes of one block, equal on all ranks whatever types each uses) and on S of alltoallv,
 * agreed on with one MPI_Allreduce when the rules for this P depend on it (under online
 * tuning, deferred while the choices repeat: speculate.c). Datatypes are
 * handled per rank by staging (a2a_stage), never by a different route. A kernel's
 * MPI_ERR_COUNT (refused alike, before any data moved) sends the call to the MPI library.
 *
 * Every entry point of a2a_tuned.h is here. Under A2A_TUNING=online the calls without a
 * rule go to the online tuner (online.h, online*.c), to which this file hands, once, what
 * the tuner runs calls and reads the tuning file through (a2a_online_ops): calls run one
 * way, from this file to the tuner, and both use speculate.c, which uses neither.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "a2a_registry.h"
#include "kernel_util.h"
#include "online.h"

enum { COLL_ALLTOALL = A2A_COLL_ALLTOALL, COLL_ALLTOALLV = A2A_COLL_ALLTOALLV };
static const char *const coll_names[2] = { "alltoall", "alltoallv" };
static const char *const call_names[2] = { "MPI_Alltoall", "MPI_Alltoallv" };

typedef struct rule {
    int P_lo, P_hi;            /* P_hi < 0: no upper bound */
    long long S_lo, S_hi;      /* S_hi < 0: no upper bound */
    const a2a_kernel *kernel;
    int params[A2A_PARAM_COUNT];
    char note[96];             /* why a parameter of the file was not used, or "" */
} rule;

static struct {
    pthread_once_t once;
    const char *path;          /* A2A_TUNING_FILE, or NULL */
    int verbose;               /* A2A_VERBOSE: 0, 1, or 2 (every rank logs online decisions) */
    int online;                /* A2A_TUNING=online: calls without a rule go to online*.c */
    rule *rules[2];
    int nrules[2];
    json_t *file_rules[2];     /* the file's rule lists as written (online: re-written) */
    json_t *file_partial;      /* its "online_partial" list (online: resumed, re-written) */
    char error[512];           /* why the file (or the environment) is not used, or "" */
    int error_told;
} tuning = { PTHREAD_ONCE_INIT, NULL, 0, 0, { NULL, NULL }, { 0, 0 }, { NULL, NULL }, NULL, "", 0 };

/* Formats the reason the file cannot be used into tuning.error. */
static void file_error(const char *fmt, ...)
{
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(tuning.error, sizeof tuning.error, "A2A_TUNING_FILE=%s: %s", tuning.path, what);
}

/* Reads a [lo, hi] pair of integers (hi may be null: open); 0 on success. */
static int read_range(json_t *pair, long long *lo, long long *hi)
{
    if (!json_is_array(pair) || json_array_size(pair) != 2 ||
        !json_is_integer(json_array_get(pair, 0)))
        return -1;
    *lo = json_integer_value(json_array_get(pair, 0));
    json_t *h = json_array_get(pair, 1);
    if (json_is_null(h))
        *hi = -1;
    else if (json_is_integer(h) && json_integer_value(h) >= *lo)
        *hi = json_integer_value(h);
    else
        return -1;
    return *lo >= 0 ? 0 : -1;
}

/* Parses the value of parameter p ("radix": 4, "order": "row"); 0 on success. */
static int read_param(a2a_param p, json_t *value, int *out)
{
    if (json_is_integer(value)) {
        *out = (int)json_integer_value(value);
        return 0;
    }
    int n;
    const char *const *names = a2a_param_value_names(p, &n);
    if (json_is_string(value) && names)
        for (int v = 0; v < n; v++)
            if (strcmp(names[v], json_string_value(value)) == 0) {
                *out = v + 1;
                return 0;
            }
    return -1;
}

/* Parses rule i of collective coll; 0 on success, else tuning.error says why. */
static int read_rule(json_t *obj, int coll, int i, const char *library, rule *r)
{
    a2a_family family = coll == COLL_ALLTOALL ? A2A_FAMILY_UNIFORM : A2A_FAMILY_NONUNIFORM;
    long long P_lo, P_hi;
    memset(r, 0, sizeof *r);
    if (!json_is_object(obj) || read_range(json_object_get(obj, "P"), &P_lo, &P_hi) ||
        read_range(json_object_get(obj, "S"), &r->S_lo, &r->S_hi) ||
        !json_is_string(json_object_get(obj, "kernel"))) {
        file_error("%s[%d]: a rule needs \"P\": [lo, hi], \"S\": [lo, hi] and \"kernel\"",
                   coll_names[coll], i);
        return -1;
    }
    r->P_lo = (int)P_lo;
    r->P_hi = (int)P_hi;
    const char *name = json_string_value(json_object_get(obj, "kernel"));
    if (!(r->kernel = a2a_find_kernel(family, name))) {
        file_error("%s[%d]: unknown %s kernel '%s' (see a2atune list)", coll_names[coll], i,
                   a2a_family_name(family), name);
        return -1;
    }
    json_t *params = json_object_get(obj, "params");
    if (params && !json_is_object(params)) {
        file_error("%s[%d]: \"params\" must be an object", coll_names[coll], i);
        return -1;
    }
    const char *key;
    json_t *value;
    json_object_foreach(params, key, value) {
        int p = 0;
        while (p < A2A_PARAM_COUNT && strcmp(a2a_param_name((a2a_param)p), key) != 0)
            p++;
        if (p == A2A_PARAM_COUNT || !a2a_kernel_takes(r->kernel, (a2a_param)p)) {
            file_error("%s[%d]: kernel %s takes no parameter '%s'", coll_names[coll], i, name, key);
            return -1;
        }
        if (read_param((a2a_param)p, value, &r->params[p])) {
            file_error("%s[%d]: bad value of %s", coll_names[coll], i, key);
            return -1;
        }
    }
    /* an algorithm number means something only in the library that measured it */
    int *va = &r->params[A2A_PARAM_VENDOR_ALGORITHM];
    if (*va && strcmp(library, A2A_VENDOR_LIBRARY) != 0) {
        snprintf(r->note, sizeof r->note, "vendor_algorithm %d of %s not used under %s", *va,
                 library, A2A_VENDOR_LIBRARY);
        *va = 0;
    }
    return 0;
}

/* What the online tuner calls through (a2a_online_ops), defined below. */
static int call_library(const a2a_call *call, void *rbuf);
static int call_kernel(const a2a_call *call, const a2a_kernel *kernel, const int *params,
                       int *refused);
static int close_window(MPI_Comm comm, a2a_speculation *sp, const char *when);
static json_t *file_rules(int coll);
static json_t *file_partial(void);

/* Reads the environment and A2A_TUNING_FILE once (pthread_once): rules, or an error and
 * no rules (a bad A2A_TUNING* value is such an error: every call goes to the MPI library).
 * The online tuner gets A2A_VERBOSE and what it calls through (a2a_online_configure). */
static void load_tuning(void)
{
    static const a2a_online_ops online_ops = {
        .call_library = call_library, .call_kernel = call_kernel, .close_window = close_window,
        .file_rules = file_rules, .file_partial = file_partial,
    };
    const char *v = getenv("A2A_VERBOSE");
    tuning.verbose = v && *v && strcmp(v, "0") != 0 ? (strcmp(v, "2") == 0 ? 2 : 1) : 0;
    tuning.online = a2a_online_configure(&online_ops, tuning.verbose, tuning.error,
                                         sizeof tuning.error);
    if (tuning.online < 0)
        return;
    tuning.path = getenv("A2A_TUNING_FILE");
    if (!tuning.path || !*tuning.path) {
        tuning.path = NULL;
        return;
    }
    json_error_t jerr;
    json_t *root = json_load_file(tuning.path, 0, &jerr);
    if (!root) {
        file_error("%s (line %d)", jerr.text, jerr.line);
        return;
    }
    json_t *format = json_object_get(root, "format");
    json_t *lib = json_object_get(root, "mpi_library");
    if (!json_is_string(format) || strcmp(json_string_value(format), "a2a-tuning") != 0 ||
        !json_is_integer(json_object_get(root, "version")) ||
        json_integer_value(json_object_get(root, "version")) != 1) {
        file_error("not an a2a tuning file (\"format\": \"a2a-tuning\", \"version\": 1)");
        json_decref(root);
        return;
    }
    const char *library = json_is_string(lib) ? json_string_value(lib) : "";
    for (int c = 0; c < 2; c++) {
        json_t *list = json_object_get(root, coll_names[c]);
        if (!list)
            continue;
        size_t n = json_array_size(list);
        if (!json_is_array(list) || !(tuning.rules[c] = calloc(n + 1, sizeof(rule)))) {
            file_error("\"%s\" must be a list of rules", coll_names[c]);
            break;
        }
        for (size_t i = 0; i < n && !tuning.error[0]; i++)
            read_rule(json_array_get(list, i), c, (int)i, library, &tuning.rules[c][i]);
        tuning.nrules[c] = (int)n;
        tuning.file_rules[c] = json_incref(list);
    }
    json_t *partial = json_object_get(root, "online_partial");
    if (tuning.online > 0 && json_is_array(partial)) /* not rules: file mode ignores it */
        tuning.file_partial = json_incref(partial);
    if (tuning.error[0])
        for (int c = 0; c < 2; c++) {
            free(tuning.rules[c]);
            tuning.rules[c] = NULL;
            tuning.nrules[c] = 0;
            json_decref(tuning.file_rules[c]);
            tuning.file_rules[c] = NULL;
        }
    json_decref(root);
}

/* Guarantees: the rule list of the tuning file for coll, borrowed, or NULL (no file, no
 * such list, or a file that is not used). The online tuner's file_rules (a2a_online_ops). */
static json_t *file_rules(int coll)
{
    pthread_once(&tuning.once, load_tuning);
    return coll == COLL_ALLTOALL || coll == COLL_ALLTOALLV ? tuning.file_rules[coll] : NULL;
}

/* Guarantees: the file's "online_partial" list, borrowed; NULL when the file is not used
 * or not under online tuning. The online tuner's file_partial (a2a_online_ops). */
static json_t *file_partial(void)
{
    pthread_once(&tuning.once, load_tuning);
    return tuning.error[0] ? NULL : tuning.file_partial;
}

/* Processes per node of comm (the real node), computed once per communicator and kept
 * as an attribute; 0 if the ranks are not laid out node by node. Collective. */
static int real_node_size(MPI_Comm comm)
{
    static int keyval = MPI_KEYVAL_INVALID;
    if (keyval == MPI_KEYVAL_INVALID &&
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &keyval, NULL) !=
            MPI_SUCCESS)
        return 0;
    void *value;
    int found, q;
    MPI_Comm_get_attr(comm, keyval, &value, &found);
    if (found)
        return (int)(MPI_Aint)value;
    if (A2A_Node_layout(comm, 0, &q, NULL, NULL) != MPI_SUCCESS)
        q = 0;
    MPI_Comm_set_attr(comm, keyval, (void *)(MPI_Aint)q);
    return q;
}

/* "tra radix=2 block_count=1": the kernel and the parameters it takes. */
static void describe(const a2a_kernel *k, const int *params, char *text, size_t len)
{
    size_t used = (size_t)snprintf(text, len, "%s", k->name);
    for (int i = 0; i < k->nparams && used < len; i++) {
        char value[32];
        a2a_param_value_text(k->params[i].param, params[k->params[i].param], value, sizeof value);
        used += (size_t)snprintf(text + used, len - used, " %s=%s",
                                 a2a_param_name(k->params[i].param), value);
    }
}

/* The choice for one call: a kernel and its parameters, and what the log says. */
typedef struct choice {
    const a2a_kernel *kernel; /* NULL: the MPI library */
    const int *params;
    int online;               /* 1: the file has no rule and the online tuner takes the call */
    char why[512];
} choice;

/* Index of the first rule of coll containing (P, S), or -1. */
static int find_rule(int coll, int P, long long S)
{
    for (int i = 0; i < tuning.nrules[coll]; i++) {
        const rule *r = &tuning.rules[coll][i];
        if (P >= r->P_lo && (r->P_hi < 0 || P <= r->P_hi) && S >= r->S_lo &&
            (r->S_hi < 0 || S <= r->S_hi))
            return i;
    }
    return -1;
}

/* 1 if the choice for P does not depend on S: no rule for P at all, or exactly one rule,
 * covering every S. */
static int choice_ignores_S(int coll, int P)
{
    int n = 0, open = 0;
    for (int i = 0; i < tuning.nrules[coll]; i++) {
        const rule *r = &tuning.rules[coll][i];
        if (P >= r->P_lo && (r->P_hi < 0 || P <= r->P_hi)) {
            if (n++ == 0)
                open = r->S_lo == 0 && r->S_hi < 0;
        }
    }
    return n == 0 || (n == 1 && open);
}

/* Guarantees: ch->why holds the text formatted under A2A_VERBOSE (what tell prints), else
 * "". A quiet run never formats it: per call, that formatting cost more than the MPI
 * library's own small call (perf, P = 2, alltoall of 16 B under a one-rule file: printf's
 * internals ~27 % of the samples; 0.72 us a call against 0.22 us without the file). */
static void set_why(choice *ch, const char *fmt, ...)
{
    ch->why[0] = '\0';
    if (!tuning.verbose)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ch->why, sizeof ch->why, fmt, ap);
    va_end(ap);
}

/* Decides the call on every rank alike: the rule for (P, S) if its kernel can run this
 * call, else the MPI library; `why` says which and why (under A2A_VERBOSE, set_why).
 * Collective only for rules of kernels that need the real node size. */
static void decide(int coll, MPI_Comm comm, int P, long long S, int usable, const char *unusable,
                   choice *ch)
{
    static const int library_params[A2A_PARAM_COUNT];
    ch->kernel = NULL;
    ch->params = library_params;
    ch->online = 0;
    if (!usable) {
        set_why(ch, "MPI library (%s)", unusable);
        return;
    }
    if (tuning.error[0]) {
        set_why(ch, "MPI library (%s not used)", tuning.path ? "tuning file" : "A2A_TUNING settings");
        return;
    }
    int i = tuning.path ? find_rule(coll, P, S) : -1;
    if (i < 0) {
        ch->online = tuning.online > 0 && P > 1;
        set_why(ch, "%s", ch->online ? "online tuning"
                : tuning.path ? "MPI library (no rule)" : "MPI library (A2A_TUNING_FILE not set)");
        return;
    }
    const rule *r = &tuning.rules[coll][i];
    char kernel[128] = "", where[96] = "", bad[128] = "";
    if (tuning.verbose) { /* the words of why (set_why) */
        describe(r->kernel, r->params, kernel, sizeof kernel);
        char P_hi[24] = "", S_hi[24] = "";
        if (r->P_hi >= 0)
            snprintf(P_hi, sizeof P_hi, "%d", r->P_hi);
        if (r->S_hi >= 0)
            snprintf(S_hi, sizeof S_hi, "%lld", r->S_hi);
        snprintf(where, sizeof where, "rule %s[%d]: P %d..%s, S %lld..%s", coll_names[coll], i,
                 r->P_lo, P_hi, r->S_lo, S_hi);
    }
    int Q = P;
    if (a2a_kernel_needs_shared(r->kernel))
        snprintf(bad, sizeof bad, "its buffers must come from A2A_Hint_alloc");
    else if ((r->kernel->needs & A2A_NEEDS_GROUPS) || a2a_kernel_takes(r->kernel, A2A_PARAM_PPN))
        Q = r->params[A2A_PARAM_PPN] > 0 ? r->params[A2A_PARAM_PPN] : real_node_size(comm);
    if (!bad[0] && Q < 1)
        snprintf(bad, sizeof bad, "the ranks are not laid out node by node");
    if (!bad[0]) /* writes the reason only when the parameters are not valid */
        a2a_params_valid(r->kernel, P, Q, r->params, bad, sizeof bad);
    if (!bad[0] && r->params[A2A_PARAM_VENDOR_ALGORITHM] &&
        !A2A_Vendor_algorithm_valid(coll, r->params[A2A_PARAM_VENDOR_ALGORITHM], P))
        snprintf(bad, sizeof bad, "vendor_algorithm %d cannot run at P = %d",
                 r->params[A2A_PARAM_VENDOR_ALGORITHM], P);
    if (bad[0]) {
        set_why(ch, "MPI library [%s names %s, not valid here: %s]", where, kernel, bad);
        return;
    }
    ch->kernel = r->kernel;
    ch->params = r->params;
    set_why(ch, "%s [%s%s%s]", kernel, where, r->note[0] ? "; " : "", r->note);
}

/* Rank 0 of comm logs the choice (A2A_VERBOSE); rank 0 of MPI_COMM_WORLD says once why
 * the file is not used (only its rank is asked: nothing is sent on MPI_COMM_WORLD). */
static void tell(int coll, MPI_Comm comm, int P, long long S, const choice *ch)
{
    int rank, world_rank;
    if (tuning.error[0] && !tuning.error_told) {
        tuning.error_told = 1;
        MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
        if (world_rank == 0)
            fprintf(stderr, "a2a: %s; using the MPI library's collectives\n", tuning.error);
    }
    if (ch->online || !tuning.verbose) /* the tuner logs its decisions, not every call */
        return;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0)
        fprintf(stderr, "a2a: %s P=%d S=%lld -> %s\n", call_names[coll], P, S, ch->why);
}

/* Guarantees: the kernel's call on sides staged where a type is not one ascending run
 * (a2a_stage; each rank decides alone, MPI only requires matching type signatures). */
static int run_kernel(int coll, const a2a_kernel *kernel, const int *params, int P,
                      a2a_side *send, a2a_side *recv, MPI_Comm comm)
{
    a2a_staging staging;
    int err = a2a_stage(&staging, P, send, recv, comm, NULL);
    if (err != MPI_SUCCESS)
        return err;
    if (coll == COLL_ALLTOALL)
        err = kernel->call.uniform(send->buf, send->count, send->type, recv->buf, recv->count,
                                   recv->type, comm, params, NULL);
    else
        err = kernel->call.nonuniform(send->buf, send->counts, send->displs, send->type,
                                      recv->buf, recv->counts, recv->displs, recv->type, comm,
                                      params, NULL);
    return a2a_unstage(&staging, err);
}

/* Guarantees: what a kernel's return means for the call. MPI_SUCCESS stands. A kernel
 * refuses a message too large for it (MPI_ERR_COUNT) on every rank alike and before any
 * data moved (the contract of include/a2a.h): then 1 is returned and the caller runs the
 * MPI library instead (rank 0 says why under A2A_VERBOSE). Any other error goes through
 * comm's error handler, as the MPI library's own would, and is returned. */
static int kernel_outcome(int coll, MPI_Comm comm, int P, long long S, const a2a_kernel *kernel,
                          int *err)
{
    if (*err == MPI_SUCCESS)
        return 0;
    if (*err == MPI_ERR_COUNT) {
        int rank;
        MPI_Comm_rank(comm, &rank);
        if (rank == 0 && tuning.verbose)
            fprintf(stderr, "a2a: %s P=%d S=%lld -> MPI library (%s refused: a message over "
                    "%lld bytes)\n", call_names[coll], P, S, kernel->name,
                    a2a_max_message_bytes());
        return 1;
    }
    MPI_Comm_call_errhandler(comm, *err);
    return 0;
}

/* Guarantees: the MPI library's own collective for `call`, received into rbuf (the call's
 * receive buffer, or a copy of it laid out alike). */
static int call_library(const a2a_call *call, void *rbuf)
{
    if (call->coll == COLL_ALLTOALL)
        return MPI_Alltoall(call->send.buf, call->send.count, call->send.type, rbuf,
                            call->recv.count, call->recv.type, call->comm);
    return MPI_Alltoallv(call->send.buf, call->send.counts, call->send.displs, call->send.type,
                         rbuf, call->recv.counts, call->recv.displs, call->recv.type, call->comm);
}

/* Guarantees: the kernel's result for `call` (staged where a type is not one ascending
 * run). A kernel that refuses the call (MPI_ERR_COUNT: alike on every rank, before any
 * data moved) sets *refused and the MPI library computes the call instead; any other error
 * went through the communicator's error handler and is returned. The MPI library's own
 * choice (the baseline kernel with vendor_algorithm 0) is the MPI library's call itself,
 * unstaged (as fast as without a tuning file). */
static int call_kernel(const a2a_call *call, const a2a_kernel *kernel, const int *params,
                    int *refused)
{
    *refused = 0;
    if (kernel->is_baseline && !params[A2A_PARAM_VENDOR_ALGORITHM])
        return call_library(call, call->recv.buf);
    a2a_side send = call->send, recv = call->recv;
    int err = run_kernel(call->coll, kernel, params, call->P, &send, &recv, call->comm);
    *refused = kernel_outcome(call->coll, call->comm, call->P, call->S, kernel, &err);
    return *refused ? call_library(call, call->recv.buf) : err;
}

/* Guarantees: the reason a call goes to the MPI library whatever the file says, or NULL.
 * Each reason is the same on every rank: an intercommunicator is one on all its ranks,
 * and MPI requires MPI_IN_PLACE on all ranks or none. */
static const char *library_only(const void *sbuf, MPI_Comm comm)
{
    int inter = 0;
    if (comm == MPI_COMM_NULL || MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
        return "not a valid communicator";
    if (inter)
        return "intercommunicator";
    if (sbuf == MPI_IN_PLACE)
        return "MPI_IN_PLACE";
    return NULL;
}

/* Guarantees: the result of MPI_Alltoall, computed by the kernel the tuning file names
 * for (P, scount * size(stype)), or by the MPI library (see a2a_tuned.h). The decision
 * uses only what MPI requires to be the same on every rank: the communicator, whether
 * the call is in place, P and the bytes of one block (equal on all ranks of a correct
 * program, whatever types each rank uses). */
int A2A_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                 MPI_Datatype rtype, MPI_Comm comm)
{
    pthread_once(&tuning.once, load_tuning);
    const char *only = library_only(sbuf, comm);
    if (only && !tuning.verbose)
        return MPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    int P = 0, tsize = 0;
    if (comm != MPI_COMM_NULL)
        MPI_Comm_size(comm, &P);
    if (sbuf == MPI_IN_PLACE ? MPI_Type_size(rtype, &tsize) : MPI_Type_size(stype, &tsize))
        only = only ? only : "not a valid datatype";
    long long S = (long long)(sbuf == MPI_IN_PLACE ? rcount : scount) * tsize;
    choice ch;
    decide(COLL_ALLTOALL, comm, P, S, only == NULL, only, &ch);
    if (comm != MPI_COMM_NULL)
        tell(COLL_ALLTOALL, comm, P, S, &ch);
    a2a_call call = { COLL_ALLTOALL, comm, P, S, { (void *)sbuf, stype, NULL, NULL, scount },
                      { rbuf, rtype, NULL, NULL, rcount } };
    if (ch.online)
        return a2a_online_call(&call);
    if (!ch.kernel)
        return MPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    if (tuning.online > 0)
        a2a_online_note_rule(&call, ch.kernel, ch.params);
    int refused;
    return call_kernel(&call, ch.kernel, ch.params, &refused);
}

/* Guarantees: *out is the dispatcher's choice for an alltoallv call whose S is agreed on
 * (call->S): a tuning file's rule (or the MPI library where the rule cannot run), or the
 * winner of its online shape; *ch is the decision it came from (ch->online: the online
 * shape's); returns 1 when that choice is settled, 0 when the call would explore (its
 * online shape undecided or new). The same on every rank. */
static int settled_choice(const a2a_call *call, a2a_choice *out, choice *ch)
{
    decide(COLL_ALLTOALLV, call->comm, call->P, call->S, 1, NULL, ch);
    memset(out, 0, sizeof *out);
    if (!ch->online) {
        a2a_choice_set(out, ch->kernel, ch->params);
        return 1;
    }
    return a2a_online_winner(call, out);
}

/* What a window's judge needs: the call (its S replaced per judged call), and the first
 * error of the accounting. */
typedef struct judging {
    a2a_call call;
    int rc;
} judging;

/* Guarantees: the a2a_speculation_judge of the dispatcher: the settled choice for the
 * agreed S; the call accounted for a rule's counts (when it ran the rule's kernel) or
 * for its online shape (its time fed to the winner's monitoring when it ran the winner). */
static int judge_call(long long S, double seconds, const a2a_choice *predicted,
                      a2a_choice *truth, int *settled, void *arg)
{
    judging *j = arg;
    j->call.S = S;
    choice ch;
    *settled = settled_choice(&j->call, truth, &ch);
    int hit = *settled && a2a_choice_equal(truth, predicted);
    if (!ch.online) {
        if (hit && ch.kernel)
            a2a_online_note_rule(&j->call, ch.kernel, ch.params);
        return hit;
    }
    int rc = a2a_online_replay(&j->call, seconds, hit);
    j->rc = j->rc != MPI_SUCCESS ? j->rc : rc;
    return hit;
}

/* Guarantees: the calls of sp's window so far (the same on every rank of call->comm) are
 * checked (one MPI_Allreduce) and accounted to their shapes with the dispatcher's judge;
 * *broke is the call that broke the prediction, or 0. Returns the first MPI error of the
 * check and the accounting, or MPI_SUCCESS. */
static int check_window(a2a_speculation *sp, const a2a_call *call, long long *broke)
{
    judging j = { *call, MPI_SUCCESS };
    int rc = a2a_speculation_check(sp, call->comm, judge_call, &j, broke);
    return rc != MPI_SUCCESS ? rc : j.rc;
}

/* Guarantees: under A2A_VERBOSE, rank 0 of the communicator (every rank at 2) says from
 * which alltoallv call on the communicator the agreement on S is deferred (period > 0:
 * `what`, the choices or the S buckets, repeat with it) or made per call again. */
static void tell_agreement(const a2a_call *call, long long from, int period, const char *what,
                           long long broke)
{
    int rank, world_rank, len = 0;
    char comm_name[MPI_MAX_OBJECT_NAME] = "";
    MPI_Comm_rank(call->comm, &rank);
    if (!tuning.verbose || (rank != 0 && tuning.verbose < 2))
        return;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_get_name(call->comm, comm_name, &len);
    if (period)
        fprintf(stderr, "a2a: online MPI_Alltoallv P=%d: agreement on S deferred from call %lld "
                "(the %s repeat every %d calls) [comm %s, world rank %d]\n", call->P, from,
                what, period, len > 0 ? comm_name : "unnamed", world_rank);
    else
        fprintf(stderr, "a2a: online MPI_Alltoallv P=%d: agreement on S per call again from call "
                "%lld (call %lld was not as predicted) [comm %s, world rank %d]\n", call->P, from,
                broke, len > 0 ? comm_name : "unnamed", world_rank);
}

/* Guarantees: (an alltoallv call whose S was agreed on, already made) its settled choice
 * joins the history; when the history now repeats, the next call is speculated (said
 * under A2A_VERBOSE). */
static void after_agreed_call(a2a_speculation *sp, const a2a_call *call, long long callno)
{
    a2a_choice c;
    choice ch;
    int settled = settled_choice(call, &c, &ch);
    int period = a2a_speculation_agreed(sp, &c, settled, a2a_bucket_of(call->S));
    if (period) {
        a2a_speculation_deferral_begins(sp);
        tell_agreement(call, callno + 1, period, "choices", 0);
    }
}

/* Guarantees: the result of the alltoallv call (its S this rank's own) computed by the
 * predicted choice, which every rank predicted alike; at a window's end the predictions
 * are checked (one MPI_Allreduce) and the calls accounted; a wrong one makes the next call
 * agree on S again. */
static int speculated_call(a2a_speculation *sp, const a2a_call *call, const a2a_choice *predicted,
                           long long callno)
{
    int refused, rc;
    double t0 = MPI_Wtime();
    if (predicted->kernel)
        rc = call_kernel(call, predicted->kernel, predicted->params, &refused);
    else
        rc = call_library(call, call->recv.buf);
    double t = MPI_Wtime() - t0;
    if (!a2a_speculation_record(sp, call->S, t))
        return rc;
    long long broke;
    int crc = check_window(sp, call, &broke);
    if (broke || crc != MPI_SUCCESS)
        tell_agreement(call, callno + 1, 0, NULL, broke ? broke : callno);
    return rc != MPI_SUCCESS ? rc : crc;
}

/* Guarantees: (collective over comm, at the end of the run or before comm is freed) the
 * alltoallv calls of sp's window not checked yet are checked now and accounted to their
 * shapes, as at the window's end (check_window); nothing when there are none (alike on
 * every rank). Under A2A_VERBOSE rank 0 of comm says how many calls it checked, `when`.
 * The online tuner's close_window (a2a_online_ops). */
static int close_window(MPI_Comm comm, a2a_speculation *sp, const char *when)
{
    int pending = a2a_speculation_unchecked(sp), rank, world_rank, len = 0;
    if (!pending)
        return MPI_SUCCESS;
    a2a_call call = { COLL_ALLTOALLV, comm, 0, 0, { NULL, MPI_BYTE, NULL, NULL, 0 },
                      { NULL, MPI_BYTE, NULL, NULL, 0 } };
    char comm_name[MPI_MAX_OBJECT_NAME] = "";
    MPI_Comm_size(comm, &call.P);
    MPI_Comm_rank(comm, &rank);
    if (rank == 0 && tuning.verbose) {
        MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
        MPI_Comm_get_name(comm, comm_name, &len);
        fprintf(stderr, "a2a: online MPI_Alltoallv P=%d: the last window's %d calls "
                "checked %s [comm %s, world rank %d]\n", call.P, pending, when,
                len > 0 ? comm_name : "unnamed", world_rank);
    }
    long long broke;
    return check_window(sp, &call, &broke);
}

/* Guarantees: the result of MPI_Alltoallv, computed by the kernel the tuning file names
 * for (P, largest block), or by the MPI library (see a2a_tuned.h). The largest block is
 * agreed on with one MPI_Allreduce, only when the file's choice at this P depends on it;
 * everything else the decision uses is the same on every rank (see A2A_Alltoall). */
int A2A_Alltoallv(const void *sbuf, const int *scounts, const int *sdispls, MPI_Datatype stype,
                  void *rbuf, const int *rcounts, const int *rdispls, MPI_Datatype rtype,
                  MPI_Comm comm)
{
    pthread_once(&tuning.once, load_tuning);
    const char *only = library_only(sbuf, comm);
    if (only && !tuning.verbose)
        return MPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm);
    int P = 0, tsize = 0;
    if (comm != MPI_COMM_NULL)
        MPI_Comm_size(comm, &P);
    if (!only && MPI_Type_size(stype, &tsize) != MPI_SUCCESS)
        only = "not a valid datatype";
    long long S = 0;
    for (int i = 0; i < P && !only; i++)
        if ((long long)scounts[i] * tsize > S)
            S = (long long)scounts[i] * tsize;
    /* online tuning keys its shapes by S: then every call agrees on it, at once or, while
     * the choices repeat, a window of calls later (speculate.c), or, while the shape
     * predicted from the period of the calls' buckets explores, by the reduction that
     * gathers its time (online.c, online_rounds.c) */
    a2a_speculation *sp = NULL;
    long long callno = 0;
    if (!only && !tuning.error[0] && P > 1 && tuning.online > 0 &&
        (sp = a2a_online_speculation(comm))) {
        a2a_choice predicted;
        a2a_call call = { COLL_ALLTOALLV, comm, P, S, { (void *)sbuf, stype, scounts, sdispls, 0 },
                          { rbuf, rtype, rcounts, rdispls, 0 } };
        if (a2a_speculation_predict(sp, &predicted, &callno))
            return speculated_call(sp, &call, &predicted, callno);
        int rc, ran = 0;
        a2a_prediction pred;
        if (tuning.nrules[COLL_ALLTOALLV] == 0) /* no rule to take a call: online alone */
            ran = a2a_online_predicted_call(&call, &rc, &pred);
        if (ran == 3) { /* a decided shape predicted: its winner, checked in a window */
            a2a_speculation_append(sp, &pred.winner, pred.bucket);
            if (a2a_speculation_deferral_begins(sp))
                tell_agreement(&call, callno, pred.period, "S buckets", 0);
            return speculated_call(sp, &call, &pred.winner, callno);
        }
        if (ran) { /* exploring (in the history, unsettled); decided right: the winner next */
            if (ran == 2) {
                a2a_speculation_enter(sp, &pred.winner);
                tell_agreement(&call, callno + 1, 1, "choices", 0);
            }
            return rc;
        }
    }
    if (!only && !tuning.error[0] && P > 1 &&
        (tuning.online > 0 ||
         (tuning.path && tuning.nrules[COLL_ALLTOALLV] > 0 && !choice_ignores_S(COLL_ALLTOALLV, P)))) {
        int rc = MPI_Allreduce(MPI_IN_PLACE, &S, 1, MPI_LONG_LONG, MPI_MAX, comm);
        if (rc != MPI_SUCCESS)
            return rc;
        if (sp)
            a2a_speculation_count_per_call(sp);
    }
    choice ch;
    decide(COLL_ALLTOALLV, comm, P, S, only == NULL, only, &ch);
    if (comm != MPI_COMM_NULL)
        tell(COLL_ALLTOALLV, comm, P, S, &ch);
    a2a_call call = { COLL_ALLTOALLV, comm, P, S, { (void *)sbuf, stype, scounts, sdispls, 0 },
                      { rbuf, rtype, rcounts, rdispls, 0 } };
    int rc, refused;
    if (ch.online)
        rc = a2a_online_call(&call);
    else if (!ch.kernel)
        rc = MPI_Alltoallv(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm);
    else {
        if (tuning.online > 0)
            a2a_online_note_rule(&call, ch.kernel, ch.params);
        rc = call_kernel(&call, ch.kernel, ch.params, &refused);
    }
    if (sp)
        after_agreed_call(sp, &call, callno);
    return rc;
}

/* Guarantees: see a2a_tuned.h (the online tuner's summary: a2a_online_summary). */
int A2A_Tuning_summary(MPI_Comm comm, char *text, size_t len)
{
    return a2a_online_summary(comm, text, len);
}

/* Guarantees: see a2a_tuned.h. Under online tuning the communicator is closed first
 * (a2a_online_before_comm_free), then freed. */
int A2A_Comm_free(MPI_Comm *comm)
{
    pthread_once(&tuning.once, load_tuning); /* reads the settings if no call did */
    int rc = a2a_online_before_comm_free(comm);
    int frc = MPI_Comm_free(comm);
    return rc != MPI_SUCCESS ? rc : frc;
}

/* Guarantees: see a2a_tuned.h (a2a_online_finalize). */
int A2A_Tuning_finalize(void)
{
    pthread_once(&tuning.once, load_tuning); /* reads the settings if no call did */
    return a2a_online_finalize();
}
