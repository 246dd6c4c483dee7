/*
 * online_state.c — the online tuner's state (A2A_TUNING=online; online.c describes the
 * tuner): per communicator and rank, the shapes of its calls, each made at its first call
 * with its candidates, the agreement on the memory of both, their release with the
 * communicator, and the summary of what ran each shape (A2A_Tuning_summary).
 *
 * Candidates (candidate_list): the MPI library's own algorithm, first; the direct
 * exchanges and Bruck; the tunable-radix kernel (tra / tuna) at the radices the K/D model
 * of the TRA paper (kernels/common/radix_model.h) makes cheapest for a latency/bandwidth
 * ratio between 512 B and 8 KiB: a handful, each valid for the call as the file path
 * checks it (a2a_params_valid; kernels needing node groups or shared buffers are left out).
 *
 * Storage: a list of communicator states keyed by (communicator, rank in MPI_COMM_WORLD:
 * SimGrid runs every rank in one process) with a slot per shape; a shape's memory is
 * allocated at its first call, nothing after. Every choice must stay alike on every rank,
 * so each allocation is agreed on (one MPI_Allreduce when a communicator's or a shape's
 * state is made): a shape some rank could not make runs the MPI library on every rank for
 * good (a2a_online_no_memory); a communicator's, on every rank until every rank has one
 * (a2a_online_state_of).
 * A freed communicator's decisions are kept for the file (attribute delete callback;
 * online_file.c writes them).
 */

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "online_internal.h"

#define MIN_BLOCK 3           /* calls per candidate: a warm-up and at least 2 samples */
#define NOMEM_STATE_FAILS 2   /* A2A_TUNING_TEST_NOMEM=state: the failures of a process */

typedef struct retired {
    int world_rank;
    learned what;
    struct retired *next;
} retired;

static comm_state *states;      /* the lists: changed only under `lists` (a program may call */
static retired *retired_list;   /* collectives on different communicators from two threads) */
static pthread_mutex_t lists = PTHREAD_MUTEX_INITIALIZER;
static int state_keyval = MPI_KEYVAL_INVALID;

/* The shape of the slots some rank could not make (online_internal.h). Never written. */
shape a2a_online_no_memory;

/* ---- candidates ---------------------------------------------------------------------- */

/* Guarantees: sh->cand holds the shape's candidates (a2a_online_candidates: the MPI
 * library's own algorithm first, each valid at P, at most MAX_CANDIDATES); S is the lower
 * end of the shape's bucket. */
static void candidate_list(shape *sh, long long S)
{
    a2a_online_candidate list[MAX_CANDIDATES];
    sh->ncand = a2a_online_candidates(sh->coll == A2A_COLL_ALLTOALLV, sh->P, S, list, MAX_CANDIDATES);
    for (int i = 0; i < sh->ncand; i++) {
        memset(&sh->cand[i], 0, sizeof sh->cand[i]);
        sh->cand[i].kernel = list[i].kernel;
        memcpy(sh->cand[i].params, list[i].params, sizeof list[i].params);
    }
}

/* ---- states -------------------------------------------------------------------------- */

/* Guarantees: when comm is freed, the state of it is released and its decisions are kept
 * for the file (MPI attribute delete callback; always MPI_SUCCESS). Makes no MPI call
 * (SimGrid runs it inside MPI_Finalize too); the handle alone names the state: the
 * attribute is never set on MPI_COMM_WORLD or MPI_COMM_SELF, the only handles SimGrid's
 * ranks share. */
static int forget_comm(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)keyval, (void)value, (void)extra;
    pthread_mutex_lock(&lists);
    for (comm_state **p = &states; *p; p = &(*p)->next) {
        comm_state *cs = *p;
        if (cs->comm != comm)
            continue;
        *p = cs->next;
        for (int c = 0; c < 2; c++)
            for (int b = 0; b < BUCKETS; b++) {
                shape *sh = cs->shapes[c][b];
                retired *r = NULL;
                if (!has_state(sh))
                    continue;
                if (cs->rank == 0 && (r = malloc(sizeof *r)) &&
                    a2a_online_learned_of(sh, &r->what)) {
                    r->world_rank = cs->world_rank;
                    r->next = retired_list;
                    retired_list = r;
                } else {
                    free(r);
                }
                free(sh->samples);
                free(sh->entries);
                free(sh);
            }
        for (int c = 0; c < 2; c++)
            for (int b = 0; b < BUCKETS; b++)
                free(cs->ruled[c][b]);
        a2a_speculation_free(cs->speculation);
        free(cs);
        break;
    }
    pthread_mutex_unlock(&lists);
    return MPI_SUCCESS;
}

/* Guarantees: this rank's state of comm (agreed on or not), or NULL when it has none.
 * Local. */
static comm_state *find_state(MPI_Comm comm)
{
    int world_rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    pthread_mutex_lock(&lists);
    comm_state *cs = states;
    while (cs && !(cs->comm == comm && cs->world_rank == world_rank))
        cs = cs->next;
    pthread_mutex_unlock(&lists);
    return cs;
}

/* Guarantees: 1 when the test hook A2A_TUNING_TEST_NOMEM=`what` makes this allocation
 * (or, "attr", this MPI_Comm_set_attr) fail: on the last rank of comm only; for "state"
 * the first NOMEM_STATE_FAILS of this process (a counter of the process: for the tests
 * under Open MPI and MPICH). */
int a2a_online_fail_for_test(MPI_Comm comm, int what)
{
    static int state_fails;
    int rank, size;
    if (a2a_online_settings.no_memory != what)
        return 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (rank != size - 1)
        return 0;
    return what != NOMEM_STATE || state_fails++ < NOMEM_STATE_FAILS;
}

/* Guarantees: 1 when the state of comm will be released when comm is freed: comm is
 * MPI_COMM_WORLD or MPI_COMM_SELF (freed by MPI_Finalize only; their handles are the only
 * ones SimGrid's ranks share), or it carries the attribute whose delete callback is
 * forget_comm. 0 when the keyval or the attribute could not be made: a state kept then
 * would outlive comm, and a later communicator given the same handle would find it. */
static int released_with(MPI_Comm comm)
{
    if (comm == MPI_COMM_WORLD || comm == MPI_COMM_SELF)
        return 1;
    pthread_mutex_lock(&lists); /* the keyval is made once per process */
    if (state_keyval == MPI_KEYVAL_INVALID &&
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, forget_comm, &state_keyval, NULL) !=
        MPI_SUCCESS)
        state_keyval = MPI_KEYVAL_INVALID;
    int keyval = state_keyval;
    pthread_mutex_unlock(&lists);
    return keyval != MPI_KEYVAL_INVALID && !a2a_online_fail_for_test(comm, NOMEM_ATTR) &&
           MPI_Comm_set_attr(comm, keyval, NULL) == MPI_SUCCESS;
}

/* Guarantees: a new state of comm for this rank (its deferred-agreement state too), in
 * the list and released when comm is freed (attribute), not agreed on yet; NULL when out
 * of memory or when it could not be tied to comm's release (released_with). Local. */
static comm_state *new_state(MPI_Comm comm)
{
    comm_state *cs = a2a_online_fail_for_test(comm, NOMEM_STATE) ? NULL : calloc(1, sizeof *cs);
    if (cs && !(cs->speculation = a2a_speculation_new())) {
        free(cs);
        cs = NULL;
    }
    if (cs && !released_with(comm)) {
        a2a_speculation_free(cs->speculation);
        free(cs);
        cs = NULL;
    }
    if (!cs)
        return NULL;
    cs->comm = comm;
    MPI_Comm_rank(MPI_COMM_WORLD, &cs->world_rank);
    MPI_Comm_rank(comm, &cs->rank);
    pthread_mutex_lock(&lists);
    cs->next = states;
    states = cs;
    pthread_mutex_unlock(&lists);
    return cs;
}

/* Guarantees: cs is first in the list. */
static void move_to_front(comm_state *cs)
{
    pthread_mutex_lock(&lists);
    comm_state **p = &states;
    while (*p && *p != cs)
        p = &(*p)->next;
    if (*p) {
        *p = cs->next;
        cs->next = states;
        states = cs;
    }
    pthread_mutex_unlock(&lists);
}

/* Guarantees: this rank's state of comm once every rank of comm has one; NULL (the caller
 * runs the MPI library) while some rank could not allocate its own. Until then every
 * rank makes the same MPI_Allreduce at the same call (a rank without a state tries
 * again, then all agree on whether each has one); once agreed, nothing is sent. So every
 * rank of comm returns a state, or NULL, at the same call: their choices stay alike. The
 * agreed state goes first in the list: the list's order is the order of those calls
 * (close_windows relies on it), alike on every rank whenever its state was made. */
comm_state *a2a_online_state_of(MPI_Comm comm)
{
    comm_state *cs = find_state(comm);
    if (cs && cs->agreed)
        return cs;
    if (!cs)
        cs = new_state(comm);
    int all = cs != NULL;
    int rc = MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, comm);
    if (rc != MPI_SUCCESS || !all)
        return NULL;
    cs->agreed = 1;
    move_to_front(cs);
    return cs;
}

/* Guarantees: this rank's state of comm when every rank has one (a2a_online_state_of
 * agreed on it), else NULL. Local: for the calls that only read or count. */
comm_state *a2a_online_agreed_state(MPI_Comm comm)
{
    comm_state *cs = find_state(comm);
    return cs && cs->agreed ? cs : NULL;
}

/* Guarantees: the live communicator state of world_rank after `after` in the list (from
 * the first when after is NULL), or NULL. Meanwhile (SimGrid) only other ranks' states
 * join, move to the head or leave, so the walk of one rank goes on from its own state. */
comm_state *a2a_online_next_state(const comm_state *after, int world_rank)
{
    pthread_mutex_lock(&lists);
    comm_state *cs = after ? after->next : states;
    while (cs && cs->world_rank != world_rank)
        cs = cs->next;
    pthread_mutex_unlock(&lists);
    return cs;
}

/* Guarantees: the shapes of the communicators (live and freed) of which this rank is rank
 * 0, as records for the file (a2a_online_learned_of), in a malloc'ed array, *n of them;
 * NULL with *n = 0 when there are none or no memory. */
learned *a2a_online_decisions(int world_rank, int *n)
{
    int count = 0;
    pthread_mutex_lock(&lists);
    for (comm_state *cs = states; cs; cs = cs->next)
        for (int c = 0; c < 2 && cs->world_rank == world_rank && cs->rank == 0; c++)
            for (int b = 0; b < BUCKETS; b++)
                count += has_state(cs->shapes[c][b]);
    for (retired *r = retired_list; r; r = r->next)
        count += r->world_rank == world_rank;
    learned *out = count ? malloc((size_t)count * sizeof *out) : NULL;
    *n = 0;
    if (!out) {
        pthread_mutex_unlock(&lists);
        return NULL;
    }
    for (comm_state *cs = states; cs; cs = cs->next)
        for (int c = 0; c < 2 && cs->world_rank == world_rank && cs->rank == 0; c++)
            for (int b = 0; b < BUCKETS; b++)
                if (has_state(cs->shapes[c][b]) &&
                    a2a_online_learned_of(cs->shapes[c][b], &out[*n]))
                    (*n)++;
    for (retired *r = retired_list; r; r = r->next)
        if (r->world_rank == world_rank)
            out[(*n)++] = r->what;
    pthread_mutex_unlock(&lists);
    return out;
}

/* Guarantees: the shape's first calls that run the MPI library untimed before exploring:
 * with the MPI library's round 0 after them (its first call dropped, a warm-up too), the
 * shape's first max(m - 2, 2) calls run the MPI library, m the probe; 0 when m <= 4. */
static int warmup_calls(const shape *sh)
{
    return sh->probe > 2 * CUT_CALLS ? sh->probe - 2 * CUT_CALLS : 0;
}

/* Guarantees: a new shape of the call (candidates, block, buffers), exploring or resumed
 * from the tuning file; NULL when out of memory. Local. */
static shape *new_shape(const comm_state *cs, const a2a_call *call, int b)
{
    shape *sh = a2a_online_fail_for_test(cs->comm, NOMEM_SHAPE) ? NULL : calloc(1, sizeof *sh);
    if (!sh)
        return NULL;
    sh->coll = call->coll;
    sh->P = call->P;
    sh->bucket = b;
    long long lo, hi;
    bucket_range(b, &lo, &hi);
    candidate_list(sh, lo);
    int room = a2a_online_settings.explore / MIN_BLOCK; /* keep the first candidates that fit */
    if (sh->ncand > room)
        sh->ncand = room;
    sh->block = a2a_online_settings.explore / sh->ncand;
    sh->block = sh->block < MIN_BLOCK ? MIN_BLOCK : sh->block > MAX_BLOCK ? MAX_BLOCK : sh->block;
    sh->probe = sh->block / 3 > 2 ? sh->block / 3 : 2;
    size_t calls = (size_t)sh->ncand * (size_t)sh->block; /* of a round, at most */
    sh->samples = malloc((4 * calls + 2 * (size_t)sh->block) * sizeof *sh->samples);
    sh->entries = malloc(calls * sizeof *sh->entries);
    if (!sh->samples || !sh->entries) {
        free(sh->samples);
        free(sh->entries);
        free(sh);
        return NULL;
    }
    sh->keys = sh->samples + calls;
    sh->scratch = sh->keys + calls; /* 2 calls: the times, then the S */
    sh->times = sh->scratch + 2 * calls;
    sh->sorted = sh->times + sh->block;
    sh->winner = sh->ncand == 1 ? 0 : -1; /* only the MPI library: nothing to explore */
    sh->drift_winner = -1;
    sh->warmup_left = warmup_calls(sh);
    if (sh->winner < 0)
        a2a_online_resume(cs, sh);
    return sh;
}

/* Guarantees: under A2A_VERBOSE, rank 0 of the communicator (every rank at 2) says that
 * the shape of the call runs the MPI library because some rank had no memory for it. */
static void tell_no_memory(const comm_state *cs, const a2a_call *call)
{
    int verbose = a2a_online_settings.verbose, len = 0;
    char comm_name[MPI_MAX_OBJECT_NAME] = "";
    long long lo, hi;
    if (!verbose || (cs->rank != 0 && verbose < 2))
        return;
    bucket_range(a2a_bucket_of(call->S), &lo, &hi);
    MPI_Comm_get_name(cs->comm, comm_name, &len);
    fprintf(stderr, "a2a: online %s P=%d S=%lld..%lld -> MPI library from call 1 (a rank "
            "had no memory for the shape's state) [comm %s, world rank %d]\n",
            call_names[call->coll], call->P, lo, hi, len > 0 ? comm_name : "unnamed",
            cs->world_rank);
}

/* Guarantees: the call's shape on cs, made at its first call (new_shape) when every rank
 * of the communicator could make it (one MPI_Allreduce, at that call only); else, on
 * every rank alike, &a2a_online_no_memory: the shape's calls run the MPI library from then
 * on. The same on every rank: P, the bucket and the candidates depend only on values
 * agreed on. */
shape *a2a_online_shape_of(comm_state *cs, const a2a_call *call)
{
    int b = a2a_bucket_of(call->S);
    shape **slot = &cs->shapes[call->coll][b];
    if (*slot)
        return *slot;
    shape *sh = new_shape(cs, call, b);
    int all = sh != NULL;
    if (MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, cs->comm) != MPI_SUCCESS)
        all = 0;
    if (!all) {
        if (sh) {
            free(sh->samples);
            free(sh->entries);
        }
        free(sh);
        sh = &a2a_online_no_memory;
        tell_no_memory(cs, call);
    } else {
        sh->reductions = 1;
    }
    *slot = sh;
    return sh;
}

/* ---- the summary --------------------------------------------------------------------- */

/* Guarantees: appends to text[*used..len) the entry of one shape of the summary (see
 * a2a_tuned.h): what ran its calls so far. */
static void summarize_shape(const shape *sh, char *text, size_t len, size_t *used)
{
    char name[128], what[320];
    long long lo, hi;
    bucket_range(sh->bucket, &lo, &hi);
    if (sh->winner >= 0 && sh->ncand == 1)
        snprintf(what, sizeof what, "MPI library, %lld calls (no other candidate)", sh->calls);
    else if (sh->winner >= 0) {
        a2a_online_describe(&sh->cand[sh->winner], name, sizeof name);
        snprintf(what, sizeof what, "%s from call %lld of %lld (%d candidates, %lld calls "
                 "exploring)", name, sh->decided_at, sh->calls, sh->ncand, sh->explore_calls);
    } else if (sh->warmup_left > 0)
        snprintf(what, sizeof what, "MPI library, %lld calls (the shape's warm-up: exploring "
                 "begins after %d)", sh->calls, warmup_calls(sh));
    else
        snprintf(what, sizeof what, "still exploring after %lld calls (%lld calls exploring; "
                 "an exploration gives each of %d candidates at most %d calls): the MPI library "
                 "and the candidates in turn", sh->calls, sh->explore_calls, sh->ncand, sh->block);
    if (*used < len)
        *used += (size_t)snprintf(text + *used, len - *used, "%s%s P=%d S=%lld..%lld: %s",
                                  *used ? "; " : "", coll_names[sh->coll], sh->P, lo, hi, what);
}

/* Guarantees: see online.h (A2A_Tuning_summary, a2a_tuned.h). */
int a2a_online_summary(MPI_Comm comm, char *text, size_t len)
{
    int shapes = 0, world_rank, P = 0;
    size_t used = 0;
    if (len)
        text[0] = '\0';
    if (!a2a_online_settings.online || comm == MPI_COMM_NULL)
        return 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(comm, &P);
    pthread_mutex_lock(&lists);
    const comm_state *cs = states;
    while (cs && !(cs->comm == comm && cs->world_rank == world_rank))
        cs = cs->next;
    for (int c = 0; cs && c < 2; c++)
        for (int b = 0; b < BUCKETS; b++) {
            const ruled *r = cs->ruled[c][b];
            if (cs->shapes[c][b] == &a2a_online_no_memory && used < len) {
                long long lo, hi;
                bucket_range(b, &lo, &hi);
                used += (size_t)snprintf(text + used, len - used,
                                         "%s%s P=%d S=%lld..%lld: MPI library (a rank "
                                         "had no memory for the shape's state)",
                                         used ? "; " : "", coll_names[c], P, lo, hi);
                shapes++;
            } else if (cs->shapes[c][b]) {
                summarize_shape(cs->shapes[c][b], text, len, &used);
                shapes++;
            }
            if (r) {
                char name[128];
                long long lo, hi;
                candidate rc = { .kernel = r->kernel };
                memcpy(rc.params, r->params, sizeof rc.params);
                a2a_online_describe(&rc, name, sizeof name);
                bucket_range(b, &lo, &hi);
                if (used < len)
                    used += (size_t)snprintf(text + used, len - used, "%s%s P=%d S=%lld..%lld: "
                                             "%s by the tuning file's rule, %lld calls",
                                             used ? "; " : "", coll_names[c], r->P, lo, hi, name,
                                             r->calls);
                shapes++;
            }
        }
    int unchecked = cs ? a2a_speculation_unchecked(cs->speculation) : 0;
    if (unchecked && used < len) /* the deferred agreement's last window (speculate.c) */
        used += (size_t)snprintf(text + used, len - used, "%salltoallv P=%d: %d calls on a "
                                 "prediction, not checked yet", used ? "; " : "", P, unchecked);
    long long v_calls, per_call = a2a_speculation_per_call(cs ? cs->speculation : NULL, &v_calls);
    if (v_calls && used < len) /* the agreements on S that no prediction spared */
        used += (size_t)snprintf(text + used, len - used, "%sS of alltoallv agreed per call in "
                                 "%lld of %lld calls", used ? "; " : "", per_call, v_calls);
    pthread_mutex_unlock(&lists);
    return shapes;
}
