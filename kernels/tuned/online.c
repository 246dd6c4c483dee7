/*
 * online.c — online tuning (A2A_TUNING=online): the dispatcher learns, during the
 * application's own calls, the fastest kernel for each call shape, and writes what it
 * learned as a tuning file at the end (A2A_Tuning_finalize; see a2a_tuned.h).
 *
 * Shape: per communicator, alltoall or alltoallv, and the bucket of S by powers of two
 * (S = 0; 1; 2..3; 4..7; ...), S being the bytes of one block (alltoall) or the largest
 * block of any rank (alltoallv: the summary of the counts that the dispatcher agrees on,
 * with one MPI_Allreduce per call or, while its choices repeat, a window of calls later:
 * speculate.c; such calls reach this file after the window, a2a_online_replay; or, while
 * the shape predicted from the period of the calls' buckets, or else the last agreed one,
 * explores, by the reduction that gathers the call's time (round 0's, or its candidate's
 * in rounds 1 and 2): a2a_online_predicted_call, reduce_round). P is the communicator's. In-place calls
 * never reach this file (the MPI library runs them, as in file mode).
 *
 * Candidates (candidate_list): the MPI library's own algorithm, first; the direct
 * exchanges and Bruck; the tunable-radix kernel (tra / tuna) at the radices the K/D model
 * of the TRA paper (kernels/common/radix_model.h) makes cheapest for a latency/bandwidth
 * ratio between 512 B and 8 KiB: a handful, each valid for the call as the file path
 * checks it (a2a_params_valid; kernels needing node groups or shared buffers are left out).
 *
 * Exploration: each candidate has n calls (n = A2A_TUNING_EXPLORE / candidates, 3..64)
 * in three rounds, a race, the MPI library first in each: round 0 gives every candidate
 * two calls (the first a warm-up of the kernel and dropped, the second its first sample);
 * round 1 the rest of a probe of m = max(2, n / 3) calls; round 2 the other n - m calls.
 * After round 0 and round 1 a candidate whose median so far is beyond RACE_FACTOR times
 * the best one's (and beyond the noise of the two) is out: clearly slow candidates, the
 * MPI library among them, cost two calls, not m or n (under SimGrid at P = 256,
 * alltoallv, 16 B the MPI library is 6x tuna's time and its probe alone was 5.4 % of a
 * 1,000-call run).
 * The shape's warm-up is the MPI library's: its first max(m - 2, 2) calls run the MPI
 * library (the first calls of a run pay for connections and first touches), the last two
 * of them timed as the library's round 0 (the first of the two dropped, as every
 * candidate's first call is), so a shape seen fewer than max(m - 2, 2) + 1 times never
 * leaves the MPI library and the library's first sample costs no call of its own (under
 * SimGrid at P = 256, alltoallv, 16 B two calls of ~200 us, 1.3 % of a 1,000-call run). Every rank times its
 * own call (MPI_Wtime). A round runs every candidate in the race for its calls of the
 * round in candidate order, and one MPI_Allreduce(MAX) over the calls' times (alltoallv:
 * and S) gives the samples, each the max over ranks of one call. Round 0 (every
 * candidate, each a warm-up call then one sample) runs back to back with one reduction at
 * its end, not one a candidate (under SimGrid at P = 64 one costs ~9 us, where the
 * transitive closure's calls take 2-23 us); in rounds 1 and 2, which have no warm-up call,
 * each candidate's calls end with their reduction, so that the next candidate's first
 * sample starts with the ranks in step, as the MPI library's does after the round before
 * (back to back, a kernel's first call inherits the skew the one before left, and under
 * SimGrid at P = 64 on torus_tofud.xml the choice of 16 B and 1 KiB then fell on kernels
 * 1.05-1.3x slower exploited). Calls found of another S bucket leave the round, and the
 * candidates left short make them up in a further pass, with one more reduction
 * (end_pass). After the last round the winner is decided with the rule of `a2a tune`
 * (scripts/a2a_tools/tune.py, decide; the noise test is analysis.within_noise): the
 * fastest median wins if it beats every other candidate by more than the smaller
 * interquartile range of the two; otherwise the simplest candidate within that band (the
 * MPI library first, then fewer parameters). Every rank computes the same decision from
 * the same reduced samples at the same call.
 * Exploitation: the winner, untimed, except a window of n timed calls every 16 n calls
 * (one MPI_Allreduce per window): when two windows in a row are slower than the winner's
 * reference (its median, or its time exploited: finish_exploring) beyond the noise (same
 * rule) and by more than DRIFT_FLOOR, it has drifted (at most 3 times a shape): the
 * candidate of the lowest median it is so slower than runs on trial in its place, its
 * first window deciding (end_window; at the end of the run, close_trials); with none the
 * shape is explored again.
 *
 * Storage: a list of communicator states keyed by (communicator, rank in MPI_COMM_WORLD:
 * SimGrid runs every rank in one process) with a slot per shape; a shape's memory is
 * allocated at its first call, nothing after. Every choice must stay alike on every rank,
 * so each allocation is agreed on (one MPI_Allreduce when a communicator's or a shape's
 * state is made): a shape some rank could not make runs the MPI library on every rank for
 * good (no_memory); a communicator's, on every rank until every rank has one (state_of).
 * A freed communicator's decisions are kept for the file (attribute delete callback).
 * The file: a decided shape is a rule; a shape still exploring (past its warm-up) is a
 * record of the "online_partial" list: each candidate's state, median, noise and the
 * samples of the rounds it ended, the round under way and its first candidate in the
 * race. A run reading the file resumes such a shape where it stopped, after its warm-up,
 * when its candidates, calls per candidate and probe are the ones this run makes (the same
 * A2A_TUNING_EXPLORE and registry): the round under way starts again, its calls at the end
 * lost (round 0's times were not reduced yet; in rounds 1 and 2 the candidates reduced so
 * far run again too, the file keeping only whole rounds).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "a2a_registry.h"
#include "online.h"
#include "online_candidates.h"
#include "quantile.h"

#define DEFAULT_EXPLORE 120   /* calls a shape explores (A2A_TUNING_EXPLORE; see a2a_tuned.h) */
#define MIN_EXPLORE 6
#define MAX_EXPLORE 1000000
#define MIN_BLOCK 3           /* calls per candidate: a warm-up and at least 2 samples */
#define MAX_BLOCK 64
#define MAX_CANDIDATES A2A_ONLINE_MAX_CANDIDATES
#define RACE_FACTOR 1.5       /* a median this many times the best (round 0, 1): out */
#define CUT_CALLS 2           /* round 0's calls per candidate: a warm-up, a sample */
#define ROUNDS 3              /* first samples, rest of the probes, rest of the blocks */
#define MONITOR_GAP 16        /* exploitation: a timed window of n calls every 16 n calls */
#define DRIFT_WINDOWS 2       /* windows in a row beyond the noise before exploring again */
/* A window is slower only by more than this fraction of the winner's median, whatever the
 * noise: it is the tolerance of "the same choice" (issue 36: within 5 % of the best), so
 * exploring again cannot find a kernel better by less; with ~0 noise (SimGrid, a quiet
 * machine) the small systematic gap between exploring and exploiting calls stays below it. */
#define DRIFT_FLOOR 0.05
#define MAX_RESTARTS 3
#define BUCKETS 64            /* S = 0, then [2^(b-1), 2^b - 1] for b = 1..63 */

static const char *const call_names[2] = { "MPI_Alltoall", "MPI_Alltoallv" };
static const char *const coll_names[2] = { "alltoall", "alltoallv" };

static struct {
    int online;
    int explore;          /* A2A_TUNING_EXPLORE */
    int check;            /* A2A_TUNING_CHECK */
    const char *out;      /* A2A_TUNING_OUT, or NULL */
    const char *corrupt;  /* A2A_TUNING_TEST_CORRUPT: a kernel name, or NULL */
    int no_memory;        /* A2A_TUNING_TEST_NOMEM: 0 or one of the NOMEM_ values */
    double window_scale;  /* A2A_TUNING_TEST_WINDOW_SCALE: 0, or a factor (test_time) */
    double window_scale_other; /* its second factor: other candidates' windows */
} settings = { 0, DEFAULT_EXPLORE, 0, NULL, NULL, 0, 0, 0 };

enum { NOMEM_STATE = 1, NOMEM_SHAPE, NOMEM_ATTR, NOMEM_GATHER };
static const char *const nomem_names[] = { "", "state", "shape", "attr", "gather" };
#define NOMEM_STATE_FAILS 2 /* A2A_TUNING_TEST_NOMEM=state: the failures of a process */

typedef struct candidate {
    const a2a_kernel *kernel;
    int params[A2A_PARAM_COUNT];
    int dropped;        /* refused the call, or gave other bytes than the MPI library */
    int eliminated;     /* out after round 0 or 1 (end_round): not in the later rounds */
    int cut;            /* out after round 0, on its first sample (eliminated too) */
    int checked;        /* A2A_TUNING_CHECK compared its first result */
    int measured;
    double median, noise; /* of its samples: median and interquartile range */
} candidate;

typedef struct shape {
    int coll, P, bucket;
    candidate cand[MAX_CANDIDATES];
    int ncand;
    int block;             /* calls per candidate (exploration) and per window (exploitation) */
    int probe;             /* calls per candidate of rounds 0 and 1 together (a probe) */
    int round;             /* exploring: 0 (first samples), 1 (the rest of the probes),
                            * 2 (the rest of the blocks), each for the candidates in */
    double *samples;       /* per candidate, its block calls: this rank's times, then the
                            * max over ranks (the first, a warm-up, is not used) */
    double *times;         /* a window's calls, likewise */
    double *sorted;        /* scratch of the statistics */
    double *keys;          /* alltoallv: per candidate (rows like samples'), the S of each
                            * of its calls of the round, this rank's where the call ran on a
                            * predicted S (a2a_online_predicted_call) */
    double *scratch;       /* the round's reduction: the times, then the S, of its calls */
    long long *entries;    /* and, per candidate likewise, the index of each in the
                            * communicator's history of calls (speculate.c), -1 for an
                            * agreed one: a wrong prediction's entry takes its true bucket */
    long long predicted;   /* exploring calls that ran on a predicted S, checked right */
    int pending_predicted; /* calls of the round not reduced yet that ran on a predicted S */
    int made[MAX_CANDIDATES];    /* exploring: each candidate's calls of the round so far */
    int reduced[MAX_CANDIDATES]; /* of them, the first ones reduced over the ranks */
    long long reductions;  /* MPI_Allreduce calls of its explorations and its first call */
    int current;           /* candidate whose calls are under way (exploring) */
    int pos;               /* calls made in the current window */
    int winner;            /* -1 while exploring */
    long long calls;       /* calls of this shape on the communicator */
    int warmup_left;       /* first calls still to run on the MPI library, untimed */
    long long decided_at;  /* the call from which the winner runs */
    long long explore_calls;
    double explore_seconds; /* sum of the max-over-ranks times of the exploring calls */
    long long since_window;
    int drifted, restarts;
    double ref_median, ref_noise; /* what the winner's monitoring windows are judged against */
    int drift_winner;             /* the winner that last drifted (-1: none), and the */
    double drift_median, drift_noise; /* median and noise of its last window then */
    long long drift_decided_at;   /* and the call it had run from */
    int trial;                    /* the winner runs in place of drift_winner on trial: */
                                  /* its first window decides (end_window) */
} shape;

/* A shape whose state some rank of the communicator could not allocate (shape_of): every
 * rank's slot of it points here and its calls run the MPI library. Never written. */
static shape no_memory;

/* Guarantees: 1 when sh is a shape this process holds a state of (made, not &no_memory). */
static int has_state(const shape *sh)
{
    return sh && sh != &no_memory;
}

/* Calls of one shape that a tuning file's rule took (online mode; A2A_Tuning_summary). */
typedef struct ruled {
    const a2a_kernel *kernel;
    int params[A2A_PARAM_COUNT];
    int P;
    long long calls;
} ruled;

typedef struct comm_state {
    MPI_Comm comm;
    int world_rank, rank;
    shape *shapes[2][BUCKETS];
    shape *last_v;                /* the alltoallv shape of the last call whose S was agreed */
    int v_mispredicted;           /* a predicted S was wrong once: alltoallv predicts only */
                                  /* from a period of the buckets, no longer from last_v */
    ruled *ruled[2][BUCKETS];
    a2a_speculation *speculation; /* deferred alltoallv agreement (speculate.c) */
    int agreed;                   /* every rank of comm has its state (see state_of) */
    struct comm_state *next;
} comm_state;

/* One candidate of a shape still exploring, as the file keeps it (online_partial). */
typedef struct kept_candidate {
    char name[128];        /* describe(): the kernel and its parameters */
    int dropped, eliminated, cut, measured;
    int nsamples;          /* samples reduced over the ranks so far (see reduced_samples) */
    double median, noise;
    double samples[MAX_BLOCK];
} kept_candidate;

/* A shape kept for the file (from a live or a freed communicator): its decision, or
 * (partial) how far its exploration went. */
typedef struct learned {
    int coll, P, bucket, kernel; /* kernel: index in the registry's table */
    int params[A2A_PARAM_COUNT];
    int candidates;
    long long explore_calls;
    double median, library_median;
    int partial;           /* 1: still exploring; the rest below */
    int round, current, block, probe;
    long long calls;
    kept_candidate cand[MAX_CANDIDATES];
} learned;

typedef struct retired {
    int world_rank;
    learned what;
    struct retired *next;
} retired;

static comm_state *states;      /* the lists: changed only under `lists` (a program may call */
static retired *retired_list;   /* collectives on different communicators from two threads) */
static pthread_mutex_t lists = PTHREAD_MUTEX_INITIALIZER;
static int state_keyval = MPI_KEYVAL_INVALID;

/* ---- settings ------------------------------------------------------------------------ */

/* Guarantees: see online.h. Reads only the environment. */
int a2a_online_configure(char *error, size_t len)
{
    const char *mode = getenv("A2A_TUNING");
    if (!mode || !*mode || strcmp(mode, "file") == 0)
        return 0;
    if (strcmp(mode, "online") != 0) {
        snprintf(error, len, "A2A_TUNING=%s: not 'online' or 'file'", mode);
        return -1;
    }
    const char *v = getenv("A2A_TUNING_EXPLORE");
    if (v && *v) {
        char *end;
        errno = 0;
        long n = strtol(v, &end, 10);
        if (*end || errno || n < MIN_EXPLORE || n > MAX_EXPLORE) {
            snprintf(error, len, "A2A_TUNING_EXPLORE=%s: not a whole number of calls from %d "
                     "to %d", v, MIN_EXPLORE, MAX_EXPLORE);
            return -1;
        }
        settings.explore = (int)n;
    }
    v = getenv("A2A_TUNING_CHECK");
    if (v && *v) {
        if (strcmp(v, "0") != 0 && strcmp(v, "1") != 0) {
            snprintf(error, len, "A2A_TUNING_CHECK=%s: not 0 or 1", v);
            return -1;
        }
        settings.check = v[0] == '1';
    }
    v = getenv("A2A_TUNING_OUT");
    settings.out = v && *v ? v : NULL;
    v = getenv("A2A_TUNING_TEST_CORRUPT");
    if (v && *v) {
        if (!a2a_find_kernel(A2A_FAMILY_UNIFORM, v) && !a2a_find_kernel(A2A_FAMILY_NONUNIFORM, v)) {
            snprintf(error, len, "A2A_TUNING_TEST_CORRUPT=%s: no such kernel", v);
            return -1;
        }
        settings.corrupt = v;
    }
    v = getenv("A2A_TUNING_TEST_NOMEM");
    if (v && *v) {
        for (int i = NOMEM_STATE; i <= NOMEM_GATHER; i++)
            if (strcmp(v, nomem_names[i]) == 0)
                settings.no_memory = i;
        if (!settings.no_memory) {
            snprintf(error, len, "A2A_TUNING_TEST_NOMEM=%s: not 'state', 'shape', 'attr' "
                     "or 'gather'", v);
            return -1;
        }
    }
    v = getenv("A2A_TUNING_TEST_WINDOW_SCALE");
    if (v && *v) {
        char *end, *end2;
        errno = 0;
        double f = strtod(v, &end), g = f;
        if (*end == ',')
            g = strtod(end + 1, &end2);
        else
            end2 = end;
        if (*end2 || errno || !(f > 0 && f <= 1000) || !(g > 0 && g <= 1000)) {
            snprintf(error, len, "A2A_TUNING_TEST_WINDOW_SCALE=%s: not a factor above 0 and "
                     "up to 1000 (or two: F,G)", v);
            return -1;
        }
        settings.window_scale = f;
        settings.window_scale_other = g;
    }
    settings.online = 1;
    return 1;
}

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

static void describe(const candidate *c, char *text, size_t len);
static int next_candidate(const shape *sh, int from);

/* Guarantees: the calls of round r of a candidate are its samples [*start, *start +
 * *len): round 0 its first CUT_CALLS (a warm-up and one sample), round 1 the rest of its
 * probe, round 2 the rest of its block (*len may be 0: a round with no calls). */
static void round_span(const shape *sh, int r, int *start, int *len)
{
    int bounds[ROUNDS + 1] = { 0, CUT_CALLS, sh->probe, sh->block };
    *start = bounds[r];
    *len = bounds[r + 1] - bounds[r];
}

/* Guarantees: how many of candidate i's samples (from the first) are kept for the file:
 * the spans of the rounds before the one under way (a candidate out after round r keeps
 * round r's; the round under way is made again, its reduction not made yet); 0 for one
 * not measured or dropped. */
static int reduced_samples(const shape *sh, int i)
{
    const candidate *c = &sh->cand[i];
    int start, len;
    if (!c->measured || c->dropped)
        return 0;
    if (c->cut)
        return CUT_CALLS;
    int done = sh->round - 1;
    if (done < 0) /* (a record resumed in round 0) its samples of round 0 */
        done = 0;
    round_span(sh, done, &start, &len);
    return start + len;
}

/* Guarantees: (a shape exploring) the record of how far its exploration went, for the
 * file: the round under way from its first candidate in the race (its calls so far are
 * not kept: whole rounds only); 0 when nothing was explored or measured. */
static int partial_of(const shape *sh, learned *out)
{
    int any = sh->explore_calls > 0, first = next_candidate(sh, -1);
    for (int i = 0; i < sh->ncand; i++)
        any |= sh->cand[i].measured || sh->cand[i].dropped;
    if (!any || first >= sh->ncand)
        return 0;
    memset(out, 0, sizeof *out);
    out->coll = sh->coll;
    out->P = sh->P;
    out->bucket = sh->bucket;
    out->candidates = sh->ncand;
    out->explore_calls = sh->explore_calls;
    out->partial = 1;
    out->round = sh->round;
    out->current = first;
    out->block = sh->block;
    out->probe = sh->probe;
    out->calls = sh->calls;
    for (int i = 0; i < sh->ncand; i++) {
        const candidate *c = &sh->cand[i];
        kept_candidate *k = &out->cand[i];
        describe(c, k->name, sizeof k->name);
        k->dropped = c->dropped;
        k->eliminated = c->eliminated;
        k->cut = c->cut;
        k->measured = c->measured;
        k->median = c->median;
        k->noise = c->noise;
        k->nsamples = reduced_samples(sh, i);
        memcpy(k->samples, sh->samples + (size_t)i * (size_t)sh->block,
               (size_t)k->nsamples * sizeof *k->samples);
    }
    return 1;
}

/* Guarantees: the shape as a record for the file: its winner (on trial, the winner that
 * drifted: the trial's window did not decide; close_trials judges one that ran a call past
 * its first), or how far its exploration went (partial_of); 0 if there is nothing to
 * keep. */
static int learned_of(const shape *sh, learned *out)
{
    if (sh->winner < 0)
        return sh->warmup_left == 0 && partial_of(sh, out);
    int count;
    const a2a_kernel *table = a2a_registry(&count);
    const candidate *w = &sh->cand[sh->trial ? sh->drift_winner : sh->winner];
    memset(out, 0, sizeof *out);
    out->coll = sh->coll;
    out->P = sh->P;
    out->bucket = sh->bucket;
    out->kernel = (int)(w->kernel - table);
    memcpy(out->params, w->params, sizeof out->params);
    out->candidates = sh->ncand;
    out->explore_calls = sh->explore_calls;
    out->median = w->median;
    out->library_median = sh->cand[0].median;
    return 1;
}

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
                if (cs->rank == 0 && (r = malloc(sizeof *r)) && learned_of(sh, &r->what)) {
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
static int fail_for_test(MPI_Comm comm, int what)
{
    static int state_fails;
    int rank, size;
    if (settings.no_memory != what)
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
    return keyval != MPI_KEYVAL_INVALID && !fail_for_test(comm, NOMEM_ATTR) &&
           MPI_Comm_set_attr(comm, keyval, NULL) == MPI_SUCCESS;
}

/* Guarantees: a new state of comm for this rank (its deferred-agreement state too), in
 * the list and released when comm is freed (attribute), not agreed on yet; NULL when out
 * of memory or when it could not be tied to comm's release (released_with). Local. */
static comm_state *new_state(MPI_Comm comm)
{
    comm_state *cs = fail_for_test(comm, NOMEM_STATE) ? NULL : calloc(1, sizeof *cs);
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
static comm_state *state_of(MPI_Comm comm)
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

/* Guarantees: this rank's state of comm when every rank has one (state_of agreed on it),
 * else NULL. Local: for the calls that only read or count. */
static comm_state *agreed_state(MPI_Comm comm)
{
    comm_state *cs = find_state(comm);
    return cs && cs->agreed ? cs : NULL;
}

/* Guarantees: the bucket of S: 0 for S = 0, else 1 + floor(log2 S). */
static int bucket_of(long long S)
{
    int b = 0;
    for (unsigned long long s = (unsigned long long)S; s; s >>= 1)
        b++;
    return b;
}

/* Guarantees: see online.h (bucket_of, for speculate.c's history). */
int a2a_online_bucket(long long S)
{
    return bucket_of(S);
}

/* Guarantees: the lowest and highest S of bucket b. */
static void bucket_range(int b, long long *lo, long long *hi)
{
    *lo = b == 0 ? 0 : 1LL << (b - 1);
    *hi = b == 0 ? 0 : (b >= 63 ? LLONG_MAX : (1LL << b) - 1);
}

/* Guarantees: 1 when the candidate record c (of an "online_partial" record) is still in
 * the race: its state is "measured" or "not measured", not dropped, cut or eliminated (a
 * record whose next candidate is out would run an out candidate's calls). */
static int in_race(const json_t *c)
{
    const char *state = json_string_value(json_object_get(c, "state"));
    return state && (strcmp(state, "measured") == 0 || strcmp(state, "not measured") == 0);
}

/* Guarantees: 1 when the JSON record of A2A_TUNING_FILE's "online_partial" list is of
 * the shape sh and of its exploration as this run would make it (the same candidates in
 * the same order, the same calls per candidate and probe, a round with calls to make, its
 * next candidate still in the race), with each candidate's state and samples well formed;
 * then sh continues from where the record stopped: each candidate's state, median, noise
 * and reduced samples, the round and the candidate whose calls come next. Else sh is left
 * as made. */
static int restore(shape *sh, const json_t *rec)
{
    long long lo, hi;
    bucket_range(sh->bucket, &lo, &hi);
    const char *coll = json_string_value(json_object_get(rec, "collective"));
    const json_t *cands = json_object_get(rec, "candidates");
    json_int_t round = json_integer_value(json_object_get(rec, "round"));
    json_int_t next = json_integer_value(json_object_get(rec, "next"));
    int start, len = 0;
    if (round >= 0 && round < ROUNDS) /* a round without calls never runs (end_round) */
        round_span(sh, (int)round, &start, &len);
    if (len <= 0 || !coll || strcmp(coll, coll_names[sh->coll]) != 0 ||
        json_integer_value(json_object_get(rec, "P")) != sh->P ||
        json_integer_value(json_array_get(json_object_get(rec, "S"), 0)) != lo ||
        json_integer_value(json_object_get(rec, "block")) != sh->block ||
        json_integer_value(json_object_get(rec, "probe")) != sh->probe ||
        json_integer_value(json_object_get(rec, "rounds")) != ROUNDS ||
        next < 0 || next >= sh->ncand ||
        json_array_size(cands) != (size_t)sh->ncand || !in_race(json_array_get(cands, next)))
        return 0;
    for (int i = 0; i < sh->ncand; i++) { /* check everything before changing anything */
        const json_t *c = json_array_get(cands, i);
        const char *name = json_string_value(json_object_get(c, "candidate"));
        const char *state = json_string_value(json_object_get(c, "state"));
        const json_t *samples = json_object_get(c, "samples_s");
        char mine[128];
        describe(&sh->cand[i], mine, sizeof mine);
        if (!name || strcmp(name, mine) != 0 || !state || !json_is_array(samples) ||
            json_array_size(samples) > (size_t)sh->block ||
            !json_is_number(json_object_get(c, "median_s")) ||
            !json_is_number(json_object_get(c, "noise_s")))
            return 0;
        for (size_t j = 0; j < json_array_size(samples); j++)
            if (!json_is_number(json_array_get(samples, j)))
                return 0;
    }
    for (int i = 0; i < sh->ncand; i++) {
        const json_t *c = json_array_get(cands, i), *samples = json_object_get(c, "samples_s");
        const char *state = json_string_value(json_object_get(c, "state"));
        candidate *k = &sh->cand[i];
        k->dropped = strcmp(state, "dropped") == 0;
        k->cut = strcmp(state, "cut") == 0;
        k->eliminated = k->cut || strcmp(state, "eliminated") == 0;
        k->measured = k->eliminated || strcmp(state, "measured") == 0;
        k->median = json_number_value(json_object_get(c, "median_s"));
        k->noise = json_number_value(json_object_get(c, "noise_s"));
        for (size_t j = 0; j < json_array_size(samples); j++)
            sh->samples[(size_t)i * (size_t)sh->block + j] = json_number_value(json_array_get(samples, j));
    }
    sh->round = (int)round;
    sh->current = (int)next;
    sh->explore_calls = json_integer_value(json_object_get(rec, "explore_calls"));
    return 1;
}

/* Guarantees: (a shape made, exploring) when A2A_TUNING_FILE's "online_partial" list has
 * a record of it that restore accepts, the exploration continues from there, said under
 * A2A_VERBOSE. The same on every rank: the file is. */
static void resume(const comm_state *cs, shape *sh)
{
    const json_t *list = a2a_tuned_file_partial();
    for (size_t i = 0; i < json_array_size(list); i++)
        if (restore(sh, json_array_get(list, i))) {
            int verbose = a2a_tuned_verbose(), measured = 0;
            for (int j = 0; j < sh->ncand; j++)
                measured += sh->cand[j].measured || sh->cand[j].dropped;
            if (verbose && (cs->rank == 0 || verbose > 1)) {
                long long lo, hi;
                bucket_range(sh->bucket, &lo, &hi);
                fprintf(stderr, "a2a: online %s P=%d S=%lld..%lld: exploring resumed from the "
                        "tuning file (round %d, %d of %d candidates measured, %lld calls "
                        "explored before) [world rank %d]\n", call_names[sh->coll], sh->P, lo,
                        hi, sh->round + 1, measured, sh->ncand, sh->explore_calls,
                        cs->world_rank);
            }
            return;
        }
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
    shape *sh = fail_for_test(cs->comm, NOMEM_SHAPE) ? NULL : calloc(1, sizeof *sh);
    if (!sh)
        return NULL;
    sh->coll = call->coll;
    sh->P = call->P;
    sh->bucket = b;
    long long lo, hi;
    bucket_range(b, &lo, &hi);
    candidate_list(sh, lo);
    int room = settings.explore / MIN_BLOCK; /* keep the first candidates that fit */
    if (sh->ncand > room)
        sh->ncand = room;
    sh->block = settings.explore / sh->ncand;
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
        resume(cs, sh);
    return sh;
}

/* Guarantees: under A2A_VERBOSE, rank 0 of the communicator (every rank at 2) says that
 * the shape of the call runs the MPI library because some rank had no memory for it. */
static void tell_no_memory(const comm_state *cs, const a2a_call *call)
{
    int verbose = a2a_tuned_verbose(), len = 0;
    char comm_name[MPI_MAX_OBJECT_NAME] = "";
    long long lo, hi;
    if (!verbose || (cs->rank != 0 && verbose < 2))
        return;
    bucket_range(bucket_of(call->S), &lo, &hi);
    MPI_Comm_get_name(cs->comm, comm_name, &len);
    fprintf(stderr, "a2a: online %s P=%d S=%lld..%lld -> MPI library from call 1 (a rank "
            "had no memory for the shape's state) [comm %s, world rank %d]\n",
            call_names[call->coll], call->P, lo, hi, len > 0 ? comm_name : "unnamed",
            cs->world_rank);
}

/* Guarantees: the call's shape on cs, made at its first call (new_shape) when every rank
 * of the communicator could make it (one MPI_Allreduce, at that call only); else, on
 * every rank alike, &no_memory: the shape's calls run the MPI library from then on. The
 * same on every rank: P, the bucket and the candidates depend only on values agreed
 * on. */
static shape *shape_of(comm_state *cs, const a2a_call *call)
{
    int b = bucket_of(call->S);
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
        sh = &no_memory;
        tell_no_memory(cs, call);
    } else {
        sh->reductions = 1;
    }
    *slot = sh;
    return sh;
}

/* ---- measurements and decisions ------------------------------------------------------ */

/* Guarantees: the median and interquartile range of x[0..n) (n >= 1), sorted into `sorted`
 * (quantiles of type 7, as the harness's summaries). */
static void median_noise(const double *x, int n, double *sorted, double *median, double *noise)
{
    for (int i = 0; i < n; i++) {
        int j = i;
        for (; j > 0 && sorted[j - 1] > x[i]; j--)
            sorted[j] = sorted[j - 1];
        sorted[j] = x[i];
    }
    *median = a2a_quantile_sorted(sorted, n, 0.5);
    *noise = a2a_quantile_sorted(sorted, n, 0.75) - a2a_quantile_sorted(sorted, n, 0.25);
}

/* Guarantees: 1 when two medians differ by no more than the smaller of their noises
 * (scripts/a2a_tools/analysis.py, within_noise: the rule of `a2a tune`). */
static int within_noise(double a, double a_noise, double b, double b_noise)
{
    return fabs(a - b) <= fmin(a_noise, b_noise);
}

/* Guarantees: tune.py's simplicity order: the MPI library's own choice, then its forced
 * algorithms, then kernels by number of parameters. */
static int simplicity(const candidate *c)
{
    if (c->kernel->is_baseline)
        return c->params[A2A_PARAM_VENDOR_ALGORITHM] ? 1 : 0;
    return 2 + c->kernel->nparams;
}

/* Guarantees: the winner among the measured candidates still in, by `a2a tune`'s rule
 * (the file's head); the MPI library (0) when nothing else was measured. */
static int decide_winner(const shape *sh)
{
    int fastest = -1;
    for (int i = 0; i < sh->ncand; i++) {
        const candidate *c = &sh->cand[i];
        if (c->measured && !c->dropped && !c->eliminated &&
            (fastest < 0 || c->median < sh->cand[fastest].median))
            fastest = i;
    }
    if (fastest < 0)
        return 0;
    const candidate *f = &sh->cand[fastest];
    int winner = fastest;
    for (int i = 0; i < sh->ncand; i++) {
        const candidate *c = &sh->cand[i], *w = &sh->cand[winner];
        if (i == fastest || !c->measured || c->dropped || c->eliminated ||
            !within_noise(f->median, f->noise, c->median, c->noise))
            continue;
        if (simplicity(c) < simplicity(w) || (simplicity(c) == simplicity(w) && c->median < w->median))
            winner = i;
    }
    return winner;
}

/* "tra radix=4": the candidate's kernel and the parameters it takes. */
static void describe(const candidate *c, char *text, size_t len)
{
    size_t used = (size_t)snprintf(text, len, "%s", c->kernel->is_baseline &&
                                   !c->params[A2A_PARAM_VENDOR_ALGORITHM] ? "MPI library" :
                                   c->kernel->name);
    for (int i = 0; i < c->kernel->nparams && used < len && !c->kernel->is_baseline; i++) {
        char value[32];
        a2a_param_value_text(c->kernel->params[i].param, c->params[c->kernel->params[i].param],
                             value, sizeof value);
        used += (size_t)snprintf(text + used, len - used, " %s=%s",
                                 a2a_param_name(c->kernel->params[i].param), value);
    }
}

/* Guarantees: under A2A_VERBOSE, rank 0 of the communicator (every rank at 2) logs the
 * decision of the shape: winner, the call it runs from, medians and what exploring cost. */
static void tell_decision(const comm_state *cs, const shape *sh)
{
    int verbose = a2a_tuned_verbose();
    if (!verbose || (cs->rank != 0 && verbose < 2))
        return;
    char name[128], comm_name[MPI_MAX_OBJECT_NAME] = "";
    int len = 0;
    long long lo, hi;
    const candidate *w = &sh->cand[sh->winner];
    describe(w, name, sizeof name);
    bucket_range(sh->bucket, &lo, &hi);
    MPI_Comm_get_name(cs->comm, comm_name, &len);
    fprintf(stderr, "a2a: online %s P=%d S=%lld..%lld -> %s from call %lld (median %.3g us, "
            "noise %.2g us; MPI library %.3g us; %d candidates, %lld calls exploring, %lld of "
            "them on a predicted S, costing %.3g us over the winner's time, %lld reductions) "
            "[comm %s, world rank %d]\n", call_names[sh->coll],
            sh->P, lo, hi, name, sh->decided_at, w->median * 1e6, w->noise * 1e6,
            sh->cand[0].median * 1e6, sh->ncand, sh->explore_calls, sh->predicted,
            (sh->explore_seconds - (double)sh->explore_calls * w->median) * 1e6,
            sh->reductions, len > 0 ? comm_name : "unnamed", cs->world_rank);
    if (cs->rank != 0)
        return;
    char line[1024];
    size_t used = (size_t)snprintf(line, sizeof line, "a2a: online   candidates:");
    for (int i = 0; i < sh->ncand && used < sizeof line; i++) {
        const candidate *c = &sh->cand[i];
        describe(c, name, sizeof name);
        if (c->measured && !c->dropped)
            used += (size_t)snprintf(line + used, sizeof line - used, "%s %s %.3g us (noise %.2g%s)",
                                     i ? ";" : "", name, c->median * 1e6, c->noise * 1e6,
                                     c->cut ? ", out after its first sample" :
                                     c->eliminated ? ", out after its probe" : "");
        else
            used += (size_t)snprintf(line + used, sizeof line - used, "%s %s %s", i ? ";" : "",
                                     name, c->dropped ? "dropped" : "not measured");
    }
    fprintf(stderr, "%s\n", line);
}

/* Guarantees: the next candidate to explore after `from` that is not dropped nor out,
 * or ncand. */
static int next_candidate(const shape *sh, int from)
{
    int i = from + 1;
    while (i < sh->ncand && (sh->cand[i].dropped || sh->cand[i].eliminated))
        i++;
    return i;
}

/* Guarantees: under A2A_VERBOSE, rank 0 of the communicator (every rank at 2) says what a
 * drift of shape sh led to: the printf format `what` and its arguments, after the name of
 * candidate `cand`. */
__attribute__((format(printf, 4, 5)))
static void tell_drift(const comm_state *cs, const shape *sh, int cand, const char *what, ...)
{
    int verbose = a2a_tuned_verbose();
    if (!verbose || (cs->rank != 0 && verbose < 2))
        return;
    char name[128], text[256];
    describe(&sh->cand[cand], name, sizeof name);
    va_list ap;
    va_start(ap, what);
    vsnprintf(text, sizeof text, what, ap);
    va_end(ap);
    fprintf(stderr, "a2a: online %s P=%d: %s %s at call %lld [world rank %d]\n",
            call_names[sh->coll], sh->P, name, text, sh->calls, cs->world_rank);
}

/* Guarantees: the exploration's end: the winner decided, to run from the next call, and
 * the reference its monitoring windows are judged against: its median, or, when this
 * exploration followed a drift and chose the winner that drifted again, the median and
 * noise of the window that drifted (the winner's time exploited: exploring calls agree on
 * S first, which lines the ranks up, so a kernel can time faster exploring than exploited;
 * that gap is no drift, and judged against the exploring median it would restart the same
 * exploration to the same end until MAX_RESTARTS). */
static void finish_exploring(const comm_state *cs, shape *sh)
{
    sh->winner = decide_winner(sh);
    const candidate *w = &sh->cand[sh->winner];
    sh->ref_median = w->median;
    sh->ref_noise = w->noise;
    if (sh->winner == sh->drift_winner && sh->drift_median > w->median) {
        sh->ref_median = sh->drift_median;
        sh->ref_noise = sh->drift_noise;
        tell_drift(cs, sh, sh->winner, "chosen again after it drifted; its windows are judged "
                   "against %.3g us (its time exploited) from now", sh->ref_median * 1e6);
    }
    sh->decided_at = sh->calls + 1;
    sh->pos = 0;
    sh->since_window = 0;
    sh->drifted = 0;
    tell_decision(cs, sh);
}

/* Guarantees: a round is over (every candidate in the race has its calls of it, reduced,
 * and its median and noise): but after the last, every candidate still in whose median
 * so far (round 0: its one sample) is beyond RACE_FACTOR times the best one's and beyond
 * the noise of the two is out (after round 0: cut); the next round with calls to make
 * begins with the first candidate left, no call of it made yet, or, with one left or
 * after the last round, the winner is decided. */
static void end_round(const comm_state *cs, shape *sh)
{
    int best = -1, left = 0, start, len;
    for (int i = 0; i < sh->ncand; i++) {
        const candidate *c = &sh->cand[i];
        if (c->measured && !c->dropped && !c->eliminated &&
            (best < 0 || c->median < sh->cand[best].median))
            best = i;
    }
    for (int i = 0; i < sh->ncand; i++) {
        candidate *c = &sh->cand[i], *b = &sh->cand[best < 0 ? 0 : best];
        if (c->dropped || !c->measured || c->eliminated)
            continue;
        c->eliminated = sh->round < ROUNDS - 1 && c->median > RACE_FACTOR * b->median &&
                        !within_noise(b->median, b->noise, c->median, c->noise);
        c->cut = c->eliminated && sh->round == 0;
        left += !c->eliminated;
    }
    len = 0;
    while (len == 0 && sh->round < ROUNDS - 1) /* the next round with calls to make */
        round_span(sh, ++sh->round, &start, &len);
    memset(sh->made, 0, sizeof sh->made);
    memset(sh->reduced, 0, sizeof sh->reduced);
    sh->current = next_candidate(sh, -1);
    if (left <= 1 || len == 0 || sh->current >= sh->ncand)
        finish_exploring(cs, sh);
}

/* Guarantees: the candidate after `from` that is in the race (not dropped nor out) and
 * short of the round's len calls, or ncand: whose calls come next in the round's pass. */
static int next_short(const shape *sh, int from, int len)
{
    int i = next_candidate(sh, from);
    while (i < sh->ncand && sh->made[i] >= len)
        i = next_candidate(sh, i);
    return i;
}

/* Guarantees: under A2A_VERBOSE, rank 0 of the communicator (every rank at 2) says that a
 * reduction found `calls - kept` of the `calls` alltoallv calls it checked in another
 * bucket than the shape's. */
static void tell_mispredicted(const comm_state *cs, const shape *sh, int calls, int kept)
{
    int verbose = a2a_tuned_verbose();
    if (!verbose || (cs->rank != 0 && verbose < 2))
        return;
    long long lo, hi;
    bucket_range(sh->bucket, &lo, &hi);
    char comm_name[MPI_MAX_OBJECT_NAME] = "";
    int name_len = 0;
    MPI_Comm_get_name(cs->comm, comm_name, &name_len);
    fprintf(stderr, "a2a: online MPI_Alltoallv P=%d S=%lld..%lld: S predicted wrong in the "
            "last %d calls (another S among them); %d of them kept, the others counted for "
            "their own S; S predicted from then on only from a period of the calls' S "
            "[comm %s, world rank %d]\n", sh->P, lo, hi, calls, kept,
            name_len > 0 ? comm_name : "unnamed", cs->world_rank);
}

/* Guarantees: the calls of the round under way not reduced yet (every candidate's, a
 * dropped one's too, in candidate order) are reduced by one MPI_Allreduce(MAX) on the
 * communicator over their times and, alltoallv, this rank's S of each: each call's time
 * is then the max over ranks and its S agreed; nothing is sent when there are none (the
 * calls made are agreed state: alike on every rank). A call of another bucket (it ran on
 * a predicted S) leaves its candidate's round: it is taken out of the shape's counts and
 * accounted to its own shape (a2a_online_replay, as a speculated call is), its entry in
 * the communicator's history takes its true bucket (a2a_speculation_correct; the
 * reduction counts one miss, a2a_speculation_refuted) and from then on the communicator
 * predicts S only from a period of the buckets (v_mispredicted). The calls of the shape
 * stay, in order, each candidate's first made[i] (all reduced), and their times join the
 * exploring cost. If the reduction fails, the calls are dropped (made again). The same on
 * every rank: it judges reduced values only. Returns the reduction's or the accounting's
 * first error. */
static int reduce_round(comm_state *cs, shape *sh)
{
    int start, len, n = 0, alltoallv = sh->coll == A2A_COLL_ALLTOALLV;
    round_span(sh, sh->round, &start, &len);
    for (int i = 0; i < sh->ncand; i++)
        n += sh->made[i] - sh->reduced[i];
    if (n == 0)
        return MPI_SUCCESS;
    double *buf = sh->scratch;
    for (int i = 0, k = 0; i < sh->ncand; i++)
        for (int j = sh->reduced[i]; j < sh->made[i]; j++, k++) {
            size_t at = (size_t)i * (size_t)sh->block;
            buf[k] = sh->samples[at + (size_t)(start + j)];
            buf[n + k] = sh->keys[at + (size_t)j];
        }
    int rc = MPI_Allreduce(MPI_IN_PLACE, buf, alltoallv ? 2 * n : n, MPI_DOUBLE, MPI_MAX,
                           cs->comm);
    sh->reductions++;
    sh->pending_predicted = 0;
    if (rc != MPI_SUCCESS) {
        memcpy(sh->made, sh->reduced, sizeof sh->made);
        return rc;
    }
    a2a_call other = { A2A_COLL_ALLTOALLV, cs->comm, sh->P, 0, { 0 }, { 0 } };
    int wrong = 0;
    for (int i = 0, k = 0; i < sh->ncand; i++) {
        size_t at = (size_t)i * (size_t)sh->block;
        int kept = sh->reduced[i];
        for (int j = sh->reduced[i]; j < sh->made[i]; j++, k++) {
            other.S = (long long)buf[n + k];
            if (alltoallv && bucket_of(other.S) != sh->bucket) {
                wrong++;
                sh->calls--;
                sh->explore_calls--;
                a2a_speculation_correct(cs->speculation, sh->entries[at + (size_t)j],
                                        bucket_of(other.S));
                int arc = a2a_online_replay(&other, buf[k], 0);
                rc = rc != MPI_SUCCESS ? rc : arc;
                continue;
            }
            sh->predicted += sh->entries[at + (size_t)j] >= 0;
            sh->explore_seconds += buf[k];
            sh->samples[at + (size_t)(start + kept++)] = buf[k];
        }
        sh->made[i] = sh->reduced[i] = kept;
    }
    if (wrong) {
        a2a_speculation_refuted(cs->speculation);
        cs->v_mispredicted = 1;
        tell_mispredicted(cs, sh, n, n - wrong);
    }
    return rc;
}

/* Guarantees: a pass of the round is over (each candidate in the race that was short of
 * the round's calls made up to them, or was dropped): one reduction checks its calls
 * (reduce_round); while a candidate in the race is still short (calls of another bucket
 * left the round, or the reduction failed), a further pass runs those candidates only, in
 * candidate order, for their missing calls; else each candidate in the race has its
 * median and noise from all its samples so far but the first (a warm-up), and the round
 * is judged (end_round). */
static int end_pass(comm_state *cs, shape *sh)
{
    int start, len;
    round_span(sh, sh->round, &start, &len);
    int rc = reduce_round(cs, sh);
    sh->current = next_short(sh, -1, len);
    if (sh->current < sh->ncand)
        return rc; /* the make-up pass */
    for (int i = 0; i < sh->ncand; i++) {
        candidate *c = &sh->cand[i];
        if (c->dropped || c->eliminated)
            continue;
        median_noise(sh->samples + (size_t)i * (size_t)sh->block + 1, start + len - 1,
                     sh->sorted, &c->median, &c->noise);
        c->measured = 1;
    }
    end_round(cs, sh);
    return rc;
}

/* Guarantees: the current candidate's calls of the pass are over (made up to the round's,
 * or it was dropped): in rounds 1 and 2 they are reduced now (reduce_round: the ranks in
 * step before the next candidate's first sample); the next short candidate's calls begin,
 * or, after the pass's last, the pass ends (end_pass: round 0's one reduction, or none
 * left to make). */
static int next_calls(comm_state *cs, shape *sh)
{
    int start, len, rc = MPI_SUCCESS;
    round_span(sh, sh->round, &start, &len);
    if (sh->round > 0)
        rc = reduce_round(cs, sh);
    sh->current = next_short(sh, sh->current, len);
    if (sh->current < sh->ncand)
        return rc;
    int prc = end_pass(cs, sh);
    return rc != MPI_SUCCESS ? rc : prc;
}

/* Guarantees: (the test hook A2A_TUNING_TEST_WINDOW_SCALE=F[,G] set) the time of a call
 * of candidate `cand` is a constant of the candidate, (cand + 1) ms, times F in a
 * monitoring window of the MPI library (candidate 0) and G (default F) in one of another
 * candidate: no noise, and a window as much slower as the factor says, on every machine.
 * Otherwise `seconds`, the call's measured time. */
static double test_time(int cand, double seconds, int in_window)
{
    if (settings.window_scale <= 0)
        return seconds;
    double t = 1e-3 * (cand + 1);
    if (!in_window)
        return t;
    return t * (cand == 0 ? settings.window_scale : settings.window_scale_other);
}

/* Guarantees: 1 when a time (median, noise) is slower than (ref, ref_noise) beyond the
 * noise of the two and by more than DRIFT_FLOOR of ref: what a monitoring window must be
 * to count as a drift, and a challenger to be tried (the tolerance of "the same choice"). */
static int clearly_slower(double median, double noise, double ref, double ref_noise)
{
    return median > ref * (1 + DRIFT_FLOOR) && !within_noise(ref, ref_noise, median, noise);
}

/* Guarantees: the candidate to try in place of the winner that drifted to (median,
 * noise): among the measured candidates but the winner, not dropped, the one of the
 * lowest median that the drifted time is clearly slower than (clearly_slower); -1 for
 * none. Its median was timed exploring; its first window checks it exploited. */
static int challenger(const shape *sh, double median, double noise)
{
    int best = -1;
    for (int i = 0; i < sh->ncand; i++) {
        const candidate *c = &sh->cand[i];
        if (i == sh->winner || !c->measured || c->dropped ||
            !clearly_slower(median, noise, c->median, c->noise))
            continue;
        if (best < 0 || c->median < sh->cand[best].median)
            best = i;
    }
    return best;
}

/* Guarantees: the shape explores again from its first round, every candidate not dropped
 * measured anew (the MPI library first: it is never dropped). */
static void explore_again(shape *sh)
{
    sh->winner = -1;
    sh->trial = 0;
    for (int i = 0; i < sh->ncand; i++)
        sh->cand[i].measured = sh->cand[i].eliminated = sh->cand[i].cut = 0;
    sh->round = 0;
    sh->current = 0;
    memset(sh->made, 0, sizeof sh->made);
    memset(sh->reduced, 0, sizeof sh->reduced);
}

/* Guarantees: a monitoring window of the winner is complete (or, a trial's, closed early
 * with at least one call past its first: close_trials): its sh->pos calls reduced like a
 * block, the first left out (a warm-up).
 * On trial (the winner runs in place of one that drifted): kept, judged from now against
 * this window, when the drifted time is clearly slower than it (clearly_slower); else the
 * winner that drifted runs again, judged from now against its drifted time (both were
 * timed exploited; exploring again would time them as the exploration that chose it
 * did). Otherwise two windows in a row clearly slower than the winner's
 * reference (finish_exploring: its median, or its time exploited) are a drift (at most
 * MAX_RESTARTS per shape): the challenger, if any, runs from the next call on trial, its
 * first window due at once; without one the shape explores again. Said under A2A_VERBOSE.
 * Why a challenger first: exploring alltoallv calls agree on S first, which lines the
 * ranks up, and a kernel that times fastest so can be slower exploited than another
 * (SimGrid, the transitive closure at P = 64: tuna radix 8 19.9 us exploring, 25.4 us
 * exploited; linear 23.0 us both ways); exploring again would time it so again. */
static int end_window(const comm_state *cs, shape *sh)
{
    int rc = MPI_Allreduce(MPI_IN_PLACE, sh->times, sh->pos, MPI_DOUBLE, MPI_MAX, cs->comm);
    if (rc != MPI_SUCCESS)
        return rc;
    double median, noise;
    median_noise(sh->times + 1, sh->pos - 1, sh->sorted, &median, &noise);
    sh->pos = 0;
    sh->since_window = 0;
    if (sh->trial) {
        sh->trial = 0;
        if (clearly_slower(sh->drift_median, sh->drift_noise, median, noise)) {
            sh->ref_median = median;
            sh->ref_noise = noise;
            tell_drift(cs, sh, sh->winner, "kept: %.3g us exploited against %.3g us",
                       median * 1e6, sh->drift_median * 1e6);
            tell_decision(cs, sh); /* the shape's decision now, as after an exploration */
            return MPI_SUCCESS;
        }
        tell_drift(cs, sh, sh->winner, "not faster exploited (%.3g us against %.3g us): the "
                   "winner that drifted runs again from the next call, judged against %.3g us",
                   median * 1e6, sh->drift_median * 1e6, sh->drift_median * 1e6);
        sh->winner = sh->drift_winner;
        sh->ref_median = sh->drift_median;
        sh->ref_noise = sh->drift_noise;
        sh->decided_at = sh->drift_decided_at; /* its decision stands: the trial's calls aside */
        return MPI_SUCCESS;
    }
    int slower = clearly_slower(median, noise, sh->ref_median, sh->ref_noise);
    sh->drifted = slower ? sh->drifted + 1 : 0;
    if (sh->drifted < DRIFT_WINDOWS || sh->restarts >= MAX_RESTARTS)
        return MPI_SUCCESS;
    int challenge = challenger(sh, median, noise);
    tell_drift(cs, sh, sh->winner, "drifted from %.3g us to %.3g us (beyond its noise and %.0f %%)",
               sh->ref_median * 1e6, median * 1e6, DRIFT_FLOOR * 100);
    sh->restarts++;
    sh->drifted = 0;
    sh->drift_winner = sh->winner;
    sh->drift_median = median;
    sh->drift_noise = noise;
    sh->drift_decided_at = sh->decided_at;
    if (challenge < 0) {
        tell_drift(cs, sh, sh->winner, "has no challenger: exploring again");
        explore_again(sh);
        return MPI_SUCCESS;
    }
    sh->winner = challenge;
    sh->trial = 1;
    sh->decided_at = sh->calls + 1;
    sh->since_window = (long long)MONITOR_GAP * sh->block; /* its first window now */
    tell_drift(cs, sh, challenge, "(%.3g us exploring) runs in its place from the next call, "
               "its first window deciding", sh->cand[challenge].median * 1e6);
    return MPI_SUCCESS;
}

/* Guarantees: 1 when the winner's next call is timed: a monitoring window is due (or
 * under way). */
static int window_due(const shape *sh)
{
    return sh->since_window >= (long long)MONITOR_GAP * sh->block;
}

/* Guarantees: (exploiting, a timed call) its time joins the window; the window's last
 * call judges it (end_window: one MPI_Allreduce on the communicator). */
static int window_sample(const comm_state *cs, shape *sh, double seconds)
{
    sh->times[sh->pos++] = test_time(sh->winner, seconds, 1);
    return sh->pos == sh->block ? end_window(cs, sh) : MPI_SUCCESS;
}

/* ---- one call ------------------------------------------------------------------------ */

/* Guarantees: [lo, hi) is the span of bytes of the receive buffer the call's receive
 * side covers (relative to its pointer); 0 when it covers nothing. */
static int receive_span(const a2a_call *call, MPI_Aint *lo, MPI_Aint *hi)
{
    MPI_Aint lb, extent, tlb, textent;
    MPI_Type_get_extent(call->recv.type, &lb, &extent);
    MPI_Type_get_true_extent(call->recv.type, &tlb, &textent);
    int any = 0;
    for (int i = 0; i < call->P; i++) {
        long long count = call->coll == A2A_COLL_ALLTOALL ? call->recv.count : call->recv.counts[i];
        long long first = call->coll == A2A_COLL_ALLTOALL ? (long long)i * count
                                                          : call->recv.displs[i];
        if (count <= 0)
            continue;
        MPI_Aint a = (MPI_Aint)first * extent + tlb;
        MPI_Aint b = (MPI_Aint)(first + count - 1) * extent + tlb + textent;
        if (!any || a < *lo)
            *lo = a;
        if (!any || b > *hi)
            *hi = b;
        any = 1;
    }
    return any;
}

/* Guarantees: (A2A_TUNING_TEST_CORRUPT names the kernel) the last rank of the
 * communicator flips the first byte it received from rank 0, when there is one: a
 * kernel made to give wrong bytes, for the tests of A2A_TUNING_CHECK. */
static void corrupt_for_test(const a2a_call *call, const comm_state *cs, const candidate *c)
{
    if (!settings.corrupt || strcmp(settings.corrupt, c->kernel->name) != 0 ||
        cs->rank != call->P - 1)
        return;
    MPI_Aint lb, extent, tlb, textent;
    MPI_Type_get_extent(call->recv.type, &lb, &extent);
    MPI_Type_get_true_extent(call->recv.type, &tlb, &textent);
    long long count = call->coll == A2A_COLL_ALLTOALL ? call->recv.count : call->recv.counts[0];
    long long first = call->coll == A2A_COLL_ALLTOALL ? 0 : call->recv.displs[0];
    if (count > 0 && textent > 0)
        ((unsigned char *)call->recv.buf)[first * extent + tlb] ^= 0xff;
}

/* Guarantees: (A2A_TUNING_CHECK=1, a candidate's first call) the receive buffer is
 * compared with the MPI library's result for the same call; if it differs on any rank
 * (one MPI_Allreduce), every rank takes the MPI library's bytes, the candidate is
 * dropped on every rank and rank 0 of the communicator says so on stderr. */
static int check_candidate(const a2a_call *call, const comm_state *cs, shape *sh, candidate *c)
{
    MPI_Aint lo = 0, hi = 0;
    int any = receive_span(call, &lo, &hi);
    MPI_Aint off = lo < 0 ? -lo : 0;
    unsigned char *copy = any ? malloc((size_t)(hi + off)) : NULL;
    int differs = any && !copy; /* no memory to check: treated as a difference */
    int rc = MPI_SUCCESS;
    unsigned char *mine = call->recv.buf, *base = copy ? copy + off : NULL;
    if (copy) {
        memcpy(base + lo, mine + lo, (size_t)(hi - lo)); /* holes of the type stay alike */
        rc = a2a_call_library(call, base);
        differs = rc != MPI_SUCCESS || memcmp(base + lo, mine + lo, (size_t)(hi - lo)) != 0;
    } else { /* nothing received, or no memory to compare: the library's bytes, in step */
        rc = a2a_call_library(call, call->recv.buf);
    }
    int rc2 = MPI_Allreduce(MPI_IN_PLACE, &differs, 1, MPI_INT, MPI_MAX, call->comm);
    if (differs && copy)
        memcpy(mine + lo, base + lo, (size_t)(hi - lo));
    free(copy);
    c->checked = 1;
    if (differs) {
        c->dropped = 1;
        if (cs->rank == 0) {
            char name[128];
            long long lo, hi; /* the shape's bucket: call->S is rank 0's own when predicted */
            describe(c, name, sizeof name);
            bucket_range(sh->bucket, &lo, &hi);
            fprintf(stderr, "a2a: A2A_TUNING_CHECK: %s gave other bytes than the MPI library at "
                    "%s P=%d S=%lld..%lld (call %lld); dropped\n", name, call_names[sh->coll],
                    sh->P, lo, hi, sh->calls);
        }
    }
    return rc != MPI_SUCCESS ? rc : rc2;
}

/* Guarantees: a call of shape sh past its warm-up: exploring, the current candidate runs,
 * timed, its time and S (call->S: agreed, or this rank's own when predicted: then `entry`
 * is its index in the communicator's history of calls, else -1) kept, not reduced; the
 * candidate's last call of the pass hands on to the next candidate (in rounds 1 and 2
 * after reducing its calls), and the pass's last call reduces the pass's calls not
 * reduced yet and goes on (end_pass). A refusal or a failed
 * check (A2A_TUNING_CHECK: one more reduction, at the candidate's first call) drops the
 * candidate on every rank at the same call: its calls so far are reduced with the others
 * (round 0) or by themselves, so that every call is counted for its own shape, and the next candidate's
 * calls begin. Exploiting: the winner runs, a window timed now and then (end_window). */
static int shape_call(comm_state *cs, shape *sh, const a2a_call *call, long long entry)
{
    int exploring = sh->winner < 0;
    int timed = exploring || window_due(sh);
    candidate *c = &sh->cand[exploring ? sh->current : sh->winner];
    int refused;
    double t0 = timed ? MPI_Wtime() : 0;
    int rc = a2a_call_kernel(call, c->kernel, c->params, &refused);
    double t = timed ? MPI_Wtime() - t0 : 0;
    if (!timed) {
        sh->since_window++;
        return rc;
    }
    if (exploring) {
        sh->explore_calls++;
        if (!refused && settings.check && !c->checked && sh->current > 0) {
            corrupt_for_test(call, cs, c);
            int crc = check_candidate(call, cs, sh, c);
            sh->reductions++;
            rc = rc != MPI_SUCCESS ? rc : crc;
        } else if (!refused) {
            corrupt_for_test(call, cs, c);
        }
        int start, len, j = sh->made[sh->current]++;
        round_span(sh, sh->round, &start, &len);
        size_t at = (size_t)sh->current * (size_t)sh->block;
        sh->samples[at + (size_t)(start + j)] = test_time(sh->current, t, 0);
        sh->keys[at + (size_t)j] = (double)call->S;
        sh->entries[at + (size_t)j] = entry;
        sh->pending_predicted += entry >= 0;
        if (refused) /* alike on every rank */
            c->dropped = 1;
        if (c->dropped || j + 1 == len) {
            int nrc = next_calls(cs, sh);
            rc = rc != MPI_SUCCESS ? rc : nrc;
        }
        return rc;
    }
    int rrc = window_sample(cs, sh, t);
    return rc != MPI_SUCCESS ? rc : rrc;
}

/* Guarantees: see online.h. The call's shape runs it (shape_call) after its warm-up; out
 * of memory: the MPI library. */
int a2a_online_call(const a2a_call *call)
{
    comm_state *cs = state_of(call->comm);
    shape *sh = cs ? shape_of(cs, call) : NULL;
    if (!has_state(sh))
        return a2a_call_library(call, call->recv.buf);
    if (call->coll == A2A_COLL_ALLTOALLV)
        cs->last_v = sh;
    sh->calls++;
    if (sh->warmup_left > 0) {
        sh->warmup_left--;
        return a2a_call_library(call, call->recv.buf);
    }
    return shape_call(cs, sh, call, -1);
}

/* Guarantees: see online.h. The bucket predicted is a function of the communicator's
 * history of alltoallv calls (speculate.c: the buckets of agreed S, the buckets predicted by
 * this same function, and the true buckets the reductions found for wrong ones), of
 * last_v (the shape of the last agreed call) and of v_mispredicted (set by a reduction):
 * all of it agreed state, so every rank predicts the same bucket at the same call, and
 * whether the call runs on it depends on that shape's state, agreed too. A shape in
 * warm-up or not made yet is not run on a prediction (the caller agrees on S), nor a
 * decided one predicted without a period (the last agreed shape's: 0, as before); a
 * decided one predicted from a period goes back to the caller (3), whose window checks
 * it. An exploring call is correct whatever its S: every candidate was checked valid at P
 * alone (online_candidates.c, add_candidate: a2a_params_valid takes no S), and a kernel's refusal
 * (MPI_ERR_COUNT) is alike on every rank and goes to the MPI library. Its history entry is
 * made before it runs, so that the reduction that gathers its time (round 0's, or its
 * candidate's in rounds 1 and 2) corrects it if it was wrong. */
int a2a_online_predicted_call(const a2a_call *call, int *rc, a2a_prediction *pred)
{
    comm_state *cs = agreed_state(call->comm);
    if (!cs)
        return 0;
    int b = a2a_speculation_bucket(cs->speculation, &pred->period), periodic = b >= 0;
    if (!periodic && !cs->v_mispredicted && has_state(cs->last_v)) { /* the last agreed shape */
        b = cs->last_v->bucket;
        pred->period = 1;
    }
    pred->bucket = b;
    shape *sh = b >= 0 ? cs->shapes[A2A_COLL_ALLTOALLV][b] : NULL;
    if (!has_state(sh) || sh->warmup_left > 0)
        return 0;
    if (sh->winner >= 0) { /* decided: its winner, checked in a window (periodic only) */
        a2a_choice_set(&pred->winner, sh->cand[sh->winner].kernel, sh->cand[sh->winner].params);
        return periodic ? 3 : 0;
    }
    static const a2a_choice exploring; /* unsettled: the choice is not known before */
    long long entry = a2a_speculation_known(cs->speculation);
    a2a_speculation_agreed(cs->speculation, &exploring, 0, b);
    sh->calls++;
    *rc = shape_call(cs, sh, call, entry);
    if (pred->period != 1 || sh->winner < 0 || sh->predicted + 1 < sh->explore_calls)
        return 1; /* (one agreed: the first) */
    a2a_choice_set(&pred->winner, sh->cand[sh->winner].kernel, sh->cand[sh->winner].params);
    return 2;
}

/* Guarantees: see online.h. */
a2a_speculation *a2a_online_speculation(MPI_Comm comm)
{
    comm_state *cs = settings.online ? state_of(comm) : NULL;
    return cs ? cs->speculation : NULL;
}

/* Guarantees: see online.h. */
int a2a_online_winner(const a2a_call *call, a2a_choice *out)
{
    comm_state *cs = agreed_state(call->comm);
    const shape *sh = cs ? cs->shapes[call->coll][bucket_of(call->S)] : NULL;
    if (sh == &no_memory) { /* the MPI library on every rank, for good */
        a2a_choice_set(out, NULL, NULL);
        return 1;
    }
    if (!sh || sh->winner < 0 || (sh->warmup_left > 0 && sh->winner != 0))
        return 0; /* a warm-up runs the MPI library: settled only when that is the winner */
    a2a_choice_set(out, sh->cand[sh->winner].kernel, sh->cand[sh->winner].params);
    return 1;
}

/* Guarantees: see online.h. Out of memory: the call is not counted. */
int a2a_online_replay(const a2a_call *call, double seconds, int ran_winner)
{
    comm_state *cs = agreed_state(call->comm);
    shape *sh = cs ? shape_of(cs, call) : NULL;
    if (!has_state(sh))
        return MPI_SUCCESS;
    sh->calls++;
    if (sh->warmup_left > 0) {
        sh->warmup_left--;
        return MPI_SUCCESS;
    }
    if (!ran_winner || sh->winner < 0)
        return MPI_SUCCESS;
    if (!window_due(sh)) {
        sh->since_window++;
        return MPI_SUCCESS;
    }
    return window_sample(cs, sh, seconds);
}

/* Guarantees: see online.h. Out of memory: the call is not counted. */
void a2a_online_note_rule(const a2a_call *call, const a2a_kernel *kernel, const int *params)
{
    comm_state *cs = state_of(call->comm);
    if (!cs)
        return;
    ruled **slot = &cs->ruled[call->coll][bucket_of(call->S)];
    if (!*slot && (*slot = calloc(1, sizeof **slot))) {
        (*slot)->kernel = kernel;
        (*slot)->P = call->P;
        memcpy((*slot)->params, params, sizeof (*slot)->params);
    }
    if (*slot)
        (*slot)->calls++;
}

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
        describe(&sh->cand[sh->winner], name, sizeof name);
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

/* Guarantees: see a2a_tuned.h. */
int A2A_Tuning_summary(MPI_Comm comm, char *text, size_t len)
{
    int shapes = 0, world_rank, P = 0;
    size_t used = 0;
    if (len)
        text[0] = '\0';
    if (!settings.online || comm == MPI_COMM_NULL)
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
            if (cs->shapes[c][b] == &no_memory && used < len) {
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
                describe(&rc, name, sizeof name);
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

/* ---- the file ------------------------------------------------------------------------ */

/* Guarantees: the shapes of the communicators (live and freed) of which this rank is rank
 * 0, as records for the file (learned_of), in a malloc'ed array, *n of them; NULL with
 * *n = 0 when there are none or no memory. */
static learned *my_decisions(int world_rank, int *n)
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
                    learned_of(cs->shapes[c][b], &out[*n]))
                    (*n)++;
    for (retired *r = retired_list; r; r = r->next)
        if (r->world_rank == world_rank)
            out[(*n)++] = r->what;
    pthread_mutex_unlock(&lists);
    return out;
}

/* Guarantees: the JSON rule of one decision: P and the bucket's S range, the kernel, the
 * parameters it takes, and (ignored by readers) what the online tuner measured. */
static json_t *rule_json(const learned *l)
{
    int count;
    const a2a_kernel *k = &a2a_registry(&count)[l->kernel];
    long long lo, hi;
    bucket_range(l->bucket, &lo, &hi);
    json_t *params = json_object();
    for (int i = 0; i < k->nparams; i++)
        json_object_set_new(params, a2a_param_name(k->params[i].param),
                            json_integer(l->params[k->params[i].param]));
    return json_pack("{s:[i,i], s:[I,I], s:s, s:o, s:{s:f, s:f, s:I, s:i}}", "P", l->P, l->P,
                     "S", (json_int_t)lo, (json_int_t)hi, "kernel", k->name, "params", params,
                     "online", "median_s", l->median, "mpi_library_s", l->library_median,
                     "explore_calls", (json_int_t)l->explore_calls, "candidates", l->candidates);
}

/* Guarantees: the JSON record of a shape still exploring (the "online_partial" list of
 * the file, see a2a_tuned.h): its collective, P, S range, how far it went, and each
 * candidate's state with its reduced samples. */
static json_t *partial_json(const learned *l)
{
    long long lo, hi;
    bucket_range(l->bucket, &lo, &hi);
    json_t *cands = json_array();
    for (int i = 0; i < l->candidates; i++) {
        const kept_candidate *k = &l->cand[i];
        json_t *samples = json_array();
        for (int j = 0; j < k->nsamples; j++)
            json_array_append_new(samples, json_real(k->samples[j]));
        const char *state = k->dropped ? "dropped" : k->cut ? "cut" : k->eliminated ? "eliminated"
                            : k->measured ? "measured" : "not measured";
        json_array_append_new(cands, json_pack("{s:s, s:s, s:f, s:f, s:o}", "candidate", k->name,
                                               "state", state, "median_s", k->median, "noise_s",
                                               k->noise, "samples_s", samples));
    }
    return json_pack("{s:s, s:i, s:[I,I], s:I, s:I, s:i, s:i, s:i, s:i, s:i, s:o}",
                     "collective", coll_names[l->coll], "P", l->P, "S", (json_int_t)lo,
                     (json_int_t)hi, "calls", (json_int_t)l->calls, "explore_calls",
                     (json_int_t)l->explore_calls, "rounds", ROUNDS, "round", l->round,
                     "next", l->current, "block", l->block, "probe", l->probe,
                     "candidates", cands);
}

/* Guarantees: 1 when records a and b are of one shape (collective, P, S bucket). */
static int same_shape(const learned *a, const learned *b)
{
    return a->coll == b->coll && a->P == b->P && a->bucket == b->bucket;
}

/* Guarantees: 1 when record i of all[0..n) goes into the file: a decision when it is the
 * first decision of its shape; a partial record when no record decided its shape and it is
 * the first partial one (communicators of one shape may have decided it or not). */
static int written(const learned *all, int n, int i)
{
    for (int j = 0; j < (all[i].partial ? n : i); j++)
        if (same_shape(&all[j], &all[i]) && (!all[j].partial || (all[i].partial && j < i)))
            return 0;
    return 1;
}

/* Guarantees: 1 when a partial record of A2A_TUNING_FILE (JSON) is of a shape that one of
 * all[0..n) records (decided or partial again in this run). */
static int superseded(const json_t *old, const learned *all, int n)
{
    const char *coll = json_string_value(json_object_get(old, "collective"));
    json_int_t P = json_integer_value(json_object_get(old, "P"));
    json_int_t lo = json_integer_value(json_array_get(json_object_get(old, "S"), 0));
    for (int i = 0; i < n; i++) {
        long long blo, bhi;
        bucket_range(all[i].bucket, &blo, &bhi);
        if (coll && strcmp(coll, coll_names[all[i].coll]) == 0 && P == all[i].P && lo == blo)
            return 1;
    }
    return 0;
}

/* Guarantees: A2A_TUNING_OUT holds, atomically (a temporary file renamed over it), the
 * rules of A2A_TUNING_FILE followed by the decisions given, first of each shape only;
 * then, under "online_partial", the shapes given still exploring and those of
 * A2A_TUNING_FILE's list that this run did not record; one line on stderr if it cannot
 * be written. */
static void write_file(const learned *all, int n)
{
    json_t *root = json_pack("{s:s, s:i, s:s, s:s}", "format", "a2a-tuning", "version", 1,
                             "mpi_library", A2A_VENDOR_LIBRARY, "generated_by",
                             "liba2a online tuning (A2A_TUNING=online)");
    json_t *partial = json_array();
    for (int c = 0; c < 2; c++) {
        json_t *file = a2a_tuned_file_rules(c);
        json_t *list = file ? json_deep_copy(file) : json_array();
        for (int i = 0; i < n; i++)
            if (all[i].coll == c && !all[i].partial && written(all, n, i))
                json_array_append_new(list, rule_json(&all[i]));
        json_object_set_new(root, coll_names[c], list);
    }
    for (int i = 0; i < n; i++)
        if (all[i].partial && written(all, n, i))
            json_array_append_new(partial, partial_json(&all[i]));
    const json_t *old = a2a_tuned_file_partial();
    for (size_t i = 0; i < json_array_size(old); i++)
        if (!superseded(json_array_get(old, i), all, n))
            json_array_append(partial, json_array_get(old, i));
    if (json_array_size(partial))
        json_object_set(root, "online_partial", partial);
    json_decref(partial);
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", settings.out, (long)getpid());
    if (json_dump_file(root, tmp, JSON_INDENT(1)) != 0 || rename(tmp, settings.out) != 0) {
        fprintf(stderr, "a2a: A2A_TUNING_OUT=%s: cannot write it (%s)\n", settings.out,
                strerror(errno));
        unlink(tmp);
    }
    json_decref(root);
}

/* Guarantees: the live communicator state of world_rank after `after` in the list (from
 * the first when after is NULL), or NULL. Meanwhile (SimGrid) only other ranks' states
 * join, move to the head or leave, so the walk of one rank goes on from its own state. */
static comm_state *next_state(const comm_state *after, int world_rank)
{
    pthread_mutex_lock(&lists);
    comm_state *cs = after ? after->next : states;
    while (cs && cs->world_rank != world_rank)
        cs = cs->next;
    pthread_mutex_unlock(&lists);
    return cs;
}

/* Guarantees: under A2A_VERBOSE, rank 0 of cs's communicator logs its summary, saying
 * `when` (the end of the run, or its MPI_Comm_free). */
static void tell_summary(const comm_state *cs, const char *when)
{
    char text[2048], comm_name[MPI_MAX_OBJECT_NAME] = "";
    int len = 0;
    if (!a2a_tuned_verbose() || cs->rank != 0 ||
        !A2A_Tuning_summary(cs->comm, text, sizeof text))
        return;
    MPI_Comm_get_name(cs->comm, comm_name, &len);
    fprintf(stderr, "a2a: online %s [comm %s, world rank %d]: %s\n", when,
            len > 0 ? comm_name : "unnamed", cs->world_rank, text);
}

/* Guarantees: (collective over cs->comm, at its end) the calls of the round under way
 * of every alltoallv shape with calls run on a predicted S not checked yet are reduced
 * now (reduce_round: one reduction a shape, all such calls of its round), so that each is
 * counted for its own shape: every such shape (several explore at once when the buckets
 * repeat with a period), in the order of their buckets; their pending counts are agreed
 * state, so every rank makes the same reductions in that order, and nothing is sent when
 * there are none. */
static int close_predictions(comm_state *cs)
{
    int rc = MPI_SUCCESS;
    for (int b = 0; b < BUCKETS; b++) {
        shape *sh = cs->shapes[A2A_COLL_ALLTOALLV][b];
        if (!has_state(sh) || !sh->pending_predicted)
            continue;
        int krc = reduce_round(cs, sh);
        rc = rc != MPI_SUCCESS ? rc : krc;
    }
    return rc;
}

/* Guarantees: (collective over cs->comm, at its end) every shape on trial whose window
 * ran a call past its first (its warm-up) is judged on the calls it ran (end_window: one
 * MPI_Allreduce each, in the shapes' order), so that the file keeps the trial's verdict;
 * a trial with no such call stays undecided (learned_of writes the winner that drifted).
 * The same on every rank: trials and their windows' lengths are agreed state. */
static int close_trials(const comm_state *cs)
{
    int rc = MPI_SUCCESS;
    for (int c = 0; c < 2; c++)
        for (int b = 0; b < BUCKETS; b++) {
            shape *sh = cs->shapes[c][b];
            if (has_state(sh) && sh->trial && sh->pos >= 2) {
                int trc = end_window(cs, sh);
                rc = rc != MPI_SUCCESS ? rc : trc;
            }
        }
    return rc;
}

/* Guarantees: (collective over cs's communicator) the alltoallv calls of its
 * deferred-agreement window not checked yet are checked and accounted to their shapes
 * (a2a_tuned_close_window, its line saying `checked`), and so are those run on a
 * predicted S (close_predictions); then the trials under way are judged on the calls they
 * ran (close_trials); under A2A_VERBOSE rank 0 then logs the summary, `when`. Every state
 * has its deferred-agreement state (new_state). Returns the first MPI error. */
static int close_communicator(comm_state *cs, const char *checked, const char *when)
{
    int rc = a2a_tuned_close_window(cs->comm, cs->speculation, checked);
    int prc = close_predictions(cs);
    int trc = close_trials(cs);
    tell_summary(cs, when);
    return rc != MPI_SUCCESS ? rc : prc != MPI_SUCCESS ? prc : trc;
}

/* Guarantees: (collective over each communicator of this rank still alive, as
 * A2A_Tuning_finalize is) the alltoallv calls of each one's deferred-agreement window
 * not checked yet are checked and accounted to their shapes (a2a_tuned_close_window), and
 * so are those run on a predicted S (close_predictions), so that every call is counted; the communicators in the order their states were agreed
 * on, newest first (state_of: the reverse order of the collectives that agreed, an order
 * a correct program allows on every rank, so no rank waits in another communicator's
 * check than the others). Under A2A_VERBOSE rank 0 of each then logs its summary.
 * Returns the first MPI error, or MPI_SUCCESS. */
static int close_windows(int world_rank)
{
    int rc = MPI_SUCCESS;
    for (comm_state *cs = next_state(NULL, world_rank); cs;
         cs = next_state(cs, world_rank)) {
        int crc = close_communicator(cs, "at the end", "at the end");
        rc = rc != MPI_SUCCESS ? rc : crc;
    }
    return rc;
}

/* Guarantees: see a2a_tuned.h. The state is agreed on alike on every rank (state_of), and
 * so is what its window holds; a state not agreed on never opened a window. */
int A2A_Comm_free(MPI_Comm *comm)
{
    int inter = 0, rc = MPI_SUCCESS;
    a2a_tuned_verbose(); /* reads the settings if no call did */
    if (settings.online && comm && *comm != MPI_COMM_NULL &&
        MPI_Comm_test_inter(*comm, &inter) == MPI_SUCCESS && !inter) {
        comm_state *cs = agreed_state(*comm);
        if (cs)
            rc = close_communicator(cs, "when the communicator was freed", "at MPI_Comm_free");
    }
    int frc = MPI_Comm_free(comm);
    return rc != MPI_SUCCESS ? rc : frc;
}

/* Guarantees: see a2a_tuned.h. */
int A2A_Tuning_finalize(void)
{
    a2a_tuned_verbose(); /* reads the settings if no call did */
    if (!settings.online)
        return MPI_SUCCESS;
    int world_rank, size, n, bytes;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int closed = close_windows(world_rank);
    if (!settings.out)
        return closed;
    learned *mine = my_decisions(world_rank, &n);
    if (n > INT_MAX / (int)sizeof(learned)) /* MPI_Gatherv counts bytes in an int */
        n = INT_MAX / (int)sizeof(learned);
    bytes = n * (int)sizeof(learned);
    /* rank 0 receives into what it allocates: it says whether it could (one MPI_Bcast
     * before each gather), so that no rank gathers into nothing and none waits alone */
    int *counts = NULL, *displs = NULL, total = 0;
    learned *all = NULL;
    int ready = 1;
    const char *why = "out of memory";
    if (world_rank == 0) {
        int fail = fail_for_test(MPI_COMM_SELF, NOMEM_GATHER); /* rank 0: SELF's last */
        counts = fail ? NULL : calloc((size_t)size, sizeof *counts);
        displs = fail ? NULL : calloc((size_t)size, sizeof *displs);
        ready = counts && displs;
    }
    int rc = MPI_Bcast(&ready, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS && ready)
        rc = MPI_Gather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rc == MPI_SUCCESS && ready) {
        if (world_rank == 0) {
            long long sum = 0; /* displacements are ints: at most INT_MAX bytes in all */
            for (int r = 0; r < size && sum <= INT_MAX; r++) {
                displs[r] = (int)sum;
                sum += counts[r];
            }
            total = sum <= INT_MAX ? (int)sum : 0;
            all = sum <= INT_MAX ? malloc(total > 0 ? (size_t)total : 1) : NULL;
            ready = all != NULL;
            if (sum > INT_MAX)
                why = "the decisions of all ranks exceed 2 GiB";
        }
        rc = MPI_Bcast(&ready, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    if (rc == MPI_SUCCESS && ready)
        rc = MPI_Gatherv(mine, bytes, MPI_BYTE, all, counts, displs, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (world_rank == 0) {
        if (rc == MPI_SUCCESS && ready)
            write_file(all, total / (int)sizeof(learned));
        else
            fprintf(stderr, "a2a: A2A_TUNING_OUT=%s: not written (%s)\n", settings.out,
                    rc == MPI_SUCCESS ? why : "gathering the decisions failed");
    }
    free(all);
    free(counts);
    free(displs);
    free(mine);
    return closed != MPI_SUCCESS ? closed : rc;
}
