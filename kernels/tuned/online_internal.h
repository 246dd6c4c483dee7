/*
 * online_internal.h — what the files of the online tuner share, and nothing else includes
 * (the dispatcher sees online.h): the limits of an exploration, the settings, the state of
 * a communicator and of its shapes, a shape as the file keeps it, the small helpers every
 * step uses, and the functions one of its files calls in another:
 *   online.c         settings, the entry points of online.h, one call, closing
 *   online_state.c   the communicators' and shapes' states, their memory, the summary
 *   online_rounds.c  exploration: rounds, their reductions, the decision
 *   online_drift.c   exploitation: monitoring windows, drift, trials
 *   online_file.c    the tuning file: what a shape keeps, resuming, writing at the end
 */
#ifndef A2A_ONLINE_INTERNAL_H
#define A2A_ONLINE_INTERNAL_H

#include <limits.h>
#include <math.h>
#include "online.h"
#include "online_candidates.h"

#define MAX_BLOCK 64          /* calls per candidate, at most */
#define MAX_CANDIDATES A2A_ONLINE_MAX_CANDIDATES
#define CUT_CALLS 2           /* round 0's calls per candidate: a warm-up, a sample */
#define ROUNDS 3              /* first samples, rest of the probes, rest of the blocks */
#define MONITOR_GAP 16        /* exploitation: a timed window of n calls every 16 n calls */
#define BUCKETS 64            /* S = 0, then [2^(b-1), 2^b - 1] for b = 1..63 */

static const char *const call_names[2] = { "MPI_Alltoall", "MPI_Alltoallv" };
static const char *const coll_names[2] = { "alltoall", "alltoallv" };

/* The test hook A2A_TUNING_TEST_NOMEM: which allocation fails (online_state.c). */
enum { NOMEM_STATE = 1, NOMEM_SHAPE, NOMEM_ATTR, NOMEM_GATHER };

/* The settings (a2a_online_configure; read-only after it). */
typedef struct online_settings {
    int online;
    int explore;          /* A2A_TUNING_EXPLORE */
    int check;            /* A2A_TUNING_CHECK */
    const char *out;      /* A2A_TUNING_OUT, or NULL */
    const char *corrupt;  /* A2A_TUNING_TEST_CORRUPT: a kernel name, or NULL */
    int no_memory;        /* A2A_TUNING_TEST_NOMEM: 0 or one of the NOMEM_ values */
    double window_scale;  /* A2A_TUNING_TEST_WINDOW_SCALE: 0, or a factor (test_time) */
    double window_scale_other; /* its second factor: other candidates' windows */
    int verbose;          /* A2A_VERBOSE, as the dispatcher read it */
    a2a_online_ops ops;   /* what the tuner calls through (online.h) */
} online_settings;
extern online_settings a2a_online_settings;

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

/* A shape whose state some rank of the communicator could not allocate
 * (a2a_online_shape_of): every rank's slot of it points here and its calls run the MPI
 * library. Never written. */
extern shape a2a_online_no_memory;

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
    int agreed;                   /* every rank of comm has its state (a2a_online_state_of) */
    struct comm_state *next;
} comm_state;

/* One candidate of a shape still exploring, as the file keeps it (online_partial). */
typedef struct kept_candidate {
    char name[128];        /* a2a_online_describe: the kernel, its parameters */
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

/* ---- helpers of every step ----------------------------------------------------------- */

/* Guarantees: 1 when sh is a shape this process holds a state of (made, not
 * &a2a_online_no_memory). */
static inline int has_state(const shape *sh)
{
    return sh && sh != &a2a_online_no_memory;
}

/* Guarantees: the lowest and highest S of bucket b. */
static inline void bucket_range(int b, long long *lo, long long *hi)
{
    *lo = b == 0 ? 0 : 1LL << (b - 1);
    *hi = b == 0 ? 0 : (b >= 63 ? LLONG_MAX : (1LL << b) - 1);
}

/* Guarantees: the calls of round r of a candidate are its samples [*start, *start +
 * *len): round 0 its first CUT_CALLS (a warm-up and one sample), round 1 the rest of its
 * probe, round 2 the rest of its block (*len may be 0: a round with no calls). */
static inline void round_span(const shape *sh, int r, int *start, int *len)
{
    int bounds[ROUNDS + 1] = { 0, CUT_CALLS, sh->probe, sh->block };
    *start = bounds[r];
    *len = bounds[r + 1] - bounds[r];
}

/* Guarantees: 1 when two medians differ by no more than the smaller of their noises
 * (scripts/a2a_tools/figures/analysis.py, within_noise: the rule of `a2a tune`). */
static inline int within_noise(double a, double a_noise, double b, double b_noise)
{
    return fabs(a - b) <= fmin(a_noise, b_noise);
}

/* Guarantees: 1 when the winner's next call is timed: a monitoring window is due (or
 * under way). */
static inline int window_due(const shape *sh)
{
    return sh->since_window >= (long long)MONITOR_GAP * sh->block;
}

/* Guarantees: (the test hook A2A_TUNING_TEST_WINDOW_SCALE=F[,G] set) the time of a call
 * of candidate `cand` is a constant of the candidate, (cand + 1) ms, times F in a
 * monitoring window of the MPI library (candidate 0) and G (default F) in one of another
 * candidate: no noise, and a window as much slower as the factor says, on every machine.
 * Otherwise `seconds`, the call's measured time. */
static inline double test_time(int cand, double seconds, int in_window)
{
    if (a2a_online_settings.window_scale <= 0)
        return seconds;
    double t = 1e-3 * (cand + 1);
    if (!in_window)
        return t;
    return t * (cand == 0 ? a2a_online_settings.window_scale
                          : a2a_online_settings.window_scale_other);
}

/* ---- online_state.c ------------------------------------------------------------------ */

comm_state *a2a_online_state_of(MPI_Comm comm);
comm_state *a2a_online_agreed_state(MPI_Comm comm);
shape *a2a_online_shape_of(comm_state *cs, const a2a_call *call);
comm_state *a2a_online_next_state(const comm_state *after, int world_rank);
learned *a2a_online_decisions(int world_rank, int *n);
int a2a_online_fail_for_test(MPI_Comm comm, int what);

/* ---- online_rounds.c ----------------------------------------------------------------- */

void a2a_online_describe(const candidate *c, char *text, size_t len);
int a2a_online_next_candidate(const shape *sh, int from);
void a2a_online_median_noise(const double *x, int n, double *sorted, double *median,
                             double *noise);
void a2a_online_tell_decision(const comm_state *cs, const shape *sh);
int a2a_online_next_calls(comm_state *cs, shape *sh);
int a2a_online_close_predictions(comm_state *cs);

/* ---- online_drift.c ------------------------------------------------------------------ */

void a2a_online_tell_drift(const comm_state *cs, const shape *sh, int cand, const char *what,
                           ...) __attribute__((format(printf, 4, 5)));
int a2a_online_window_sample(const comm_state *cs, shape *sh, double seconds);
int a2a_online_close_trials(const comm_state *cs);

/* ---- online_file.c ------------------------------------------------------------------- */

int a2a_online_learned_of(const shape *sh, learned *out);
void a2a_online_resume(const comm_state *cs, shape *sh);
int a2a_online_write_out(int world_rank);

#endif
