/*
 * speculate.c — deferred agreement on S for MPI_Alltoallv under online tuning: the
 * dispatcher's choice for call n is predicted from the choices already agreed on, the
 * call runs without its MPI_Allreduce, and the prediction is checked afterwards, one
 * MPI_Allreduce for a window of calls.
 *
 * speculate.h is its interface. The dispatcher and the online tuner call it; it calls
 * neither: the choices and buckets come in as arguments, and a window's check judges its
 * calls through the function the dispatcher passes (a2a_speculation_judge).
 *
 * Why the ranks must agree. An alltoallv call's shape is keyed by S, the largest block of
 * any rank; each rank knows only its own blocks, so ranks whose local largest blocks fall
 * in different buckets would pick different kernels (a deadlock or wrong bytes). The
 * dispatcher therefore agrees on S with one MPI_Allreduce before each call: ~5 us of a
 * ~25 us call at P = 64, S = 16 B under SimGrid, ~9 us of ~19 us in the transitive
 * closure. What every rank needs, though, is the same kernel, not the same S.
 *
 * (While a shape explores, its calls do not agree either: online.c predicts the call's
 * shape from the period of the buckets of S in this history, a2a_speculation_bucket, and
 * checks it in the reduction that gathers the call's time (round 0's, one for all its
 * candidates' calls, or in rounds 1 and 2 its candidate's), a2a_online_predicted_call;
 * those calls join this history as unsettled, with the bucket predicted, which that
 * reduction corrects when it was wrong. One history serves both predictions because both
 * are of the same calls and must be the same on every rank: the choices' period needs
 * settled calls, the buckets' period any calls whose bucket is known or predicted.)
 *
 * Why deferring it is safe. Every rank keeps the same history: the dispatcher's choice
 * (kernel and parameters) for every call whose S is agreed on, computed from agreed S
 * only (a tuning file's rule, or the winner of a decided online shape). When the last
 * choices (max(ENTER_CALLS, 2 L) of them) were all settled (none exploring) and repeat
 * with a period L of at most MAX_PERIOD calls, every rank enters speculation at the same
 * call, with the same L.
 * There, call n runs the choice of call n - L (agreed, or itself predicted the same way):
 * a function of the shared history alone, so every rank runs the same kernel at every
 * call, and every kernel candidate returns MPI's bytes for any S (a refusal, MPI_ERR_COUNT,
 * is alike on every rank and goes to the MPI library). Each rank keeps its local S and
 * time of each call; the window's last call reduces them (MAX: the agreed S and the
 * max-over-ranks time of every call of the window), and every rank then compares each
 * call's true choice with the predicted one, in call order, from the same data: the same
 * verdict on every rank at the same call. A wrong prediction costs time only (the call
 * ran another correct kernel); it ends speculation from the next call, which agrees per
 * call again. So the choice never depends on a rank's local S, and no call ever waits for
 * an agreement while the history keeps its period. The calls of the window are then
 * accounted to their shapes (online.c counts them and feeds the winner's monitoring
 * windows with their times), late by at most a window; the window still open at the end
 * is checked by A2A_Tuning_finalize, or when the communicator is freed by A2A_Comm_free
 * (the dispatcher's close_window), so every call is accounted.
 *
 * The window. Its check costs more than one per-call agreement (2 x window integers):
 * under SimGrid at P = 64, S = 16 B (a 24.8 us alltoallv call) it added 0.70, 0.40, 0.26 us
 * a call with windows of 16, 32, 64 calls. But a new S (the application's next phase) runs
 * the old prediction until the window ends: those calls are lost to its exploration. So
 * the first window after entering is WINDOW_MIN calls, and each window of right
 * predictions doubles the next, up to WINDOW_MAX: the calls lost to a change are never
 * more than the calls speculated right before it, plus WINDOW_MIN.
 *
 * A lagged non-blocking MPI_Iallreduce (call n decided by the S agreed from call n - 1)
 * was not taken: it keys call n by the S of call n - 1, wrong whenever S changes from call
 * to call (the transitive closure's six calls a closure span five buckets), its wait still
 * sits in every call, and SMPI's non-blocking collectives would need checking first (its
 * Ibarrier completes early: kernels/common/mpi_compat.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "speculate.h"

#define WINDOW_MIN 8     /* speculated calls per agreement: the first window after entering */
#define WINDOW_MAX 64    /* and, doubled after each window of right predictions, at most this */
#define MAX_PERIOD 8     /* the longest repeating pattern of choices recognised */
#define ENTER_CALLS 8    /* settled choices in a row, periodic, before speculating (at */
                         /* least two periods) */
#define HISTORY 128      /* choices remembered (>= 3 MAX_PERIOD + WINDOW_MAX) */
#define BUCKET_MISSES 8  /* wrong buckets predicted, each within HISTORY calls of the one */
                         /* before, before the buckets' period is given up for good */

typedef struct entry {
    a2a_choice choice;
    int settled;
    int bucket;    /* the call's S bucket (a2a_bucket_of): agreed, or */
} entry;           /* predicted and not refuted yet */

struct a2a_speculation {
    entry hist[HISTORY];       /* ring: the choice of call k at hist[k % HISTORY] */
    long long calls;           /* alltoallv calls through the dispatcher on the comm */
    long long per_call;        /* of them, calls that agreed on S before running */
    long long known;           /* calls whose choice is in hist (agreed or predicted) */
    int bucket_misses;         /* buckets predicted wrong (found by reductions) in a row, */
    long long last_miss;       /* each within HISTORY calls of the last (its `known`) */
    int period;                /* 0: agreeing per call; else speculating with this period */
    int window;                /* calls of the current window */
    int pending;               /* speculated calls since the last window's agreement */
    int deferring;             /* a deferral was said (A2A_VERBOSE) and no check broke since */
    long long at[WINDOW_MAX];  /* the history entry of each of the window's calls (their */
    long long callno[WINDOW_MAX]; /* calls need not be consecutive), its call number and */
    a2a_choice ran[WINDOW_MAX];   /* the choice it ran (its entry may be overwritten first) */
    long long S[WINDOW_MAX];   /* this rank's S of the window's calls */
    long long ns[WINDOW_MAX];  /* this rank's time of each, in ns */
};

/* Guarantees: 1 when the two choices run the same code: the same kernel with the same
 * parameters, or both the MPI library. */
int a2a_choice_equal(const a2a_choice *a, const a2a_choice *b)
{
    return a->kernel == b->kernel && memcmp(a->params, b->params, sizeof a->params) == 0;
}

/* Guarantees: the choice of kernel k with params, the MPI library's own call (the
 * baseline without an algorithm number) written as kernel NULL and zero parameters. */
void a2a_choice_set(a2a_choice *c, const a2a_kernel *k, const int *params)
{
    memset(c, 0, sizeof *c);
    if (!k || (k->is_baseline && !params[A2A_PARAM_VENDOR_ALGORITHM]))
        return;
    c->kernel = k;
    memcpy(c->params, params, sizeof c->params);
}

/* Guarantees: a new state (agreeing per call), or NULL when out of memory. */
a2a_speculation *a2a_speculation_new(void)
{
    return calloc(1, sizeof(a2a_speculation));
}

/* Guarantees: frees sp (NULL allowed). */
void a2a_speculation_free(a2a_speculation *sp)
{
    free(sp);
}

/* Guarantees: 1 when one of the last HISTORY calls (the history's) is unsettled: a call of
 * a shape still exploring. */
static int exploring_in_history(const a2a_speculation *sp)
{
    for (long long j = sp->known > HISTORY ? sp->known - HISTORY : 0; j < sp->known; j++)
        if (!sp->hist[j % HISTORY].settled)
            return 1;
    return 0;
}

/* Guarantees: the smallest period L <= MAX_PERIOD with which the last n = max(ENTER_CALLS,
 * 2 L) choices and the L before them are all settled and each of the n equals the one L
 * calls before; 0 if none, or while the buckets' period is given up (note_bucket_miss) and
 * a call of a shape still exploring is in the history: the calls' true period is then
 * longer than MAX_PERIOD, and a run of at least ENTER_CALLS equal choices between its odd
 * calls would defer the agreement at every odd call, whose shape would never explore.
 * Once every shape of the history has decided, the choices' period is found again (an
 * application whose phases change now and then keeps its deferral). */
static int find_period(const a2a_speculation *sp)
{
    if (sp->bucket_misses >= BUCKET_MISSES && exploring_in_history(sp))
        return 0;
    for (int L = 1; L <= MAX_PERIOD; L++) {
        long long n = ENTER_CALLS > 2 * L ? ENTER_CALLS : 2 * L, k = sp->known - n;
        if (sp->known < n + L)
            return 0;
        int settled = 1;
        for (long long j = k - L; j < sp->known; j++)
            settled &= sp->hist[j % HISTORY].settled;
        if (!settled)
            return 0; /* the longer periods look further back */
        while (k < sp->known && a2a_choice_equal(&sp->hist[k % HISTORY].choice,
                                                 &sp->hist[(k - L) % HISTORY].choice))
            k++;
        if (k == sp->known)
            return L;
    }
    return 0;
}

/* Guarantees: counts a reduction that found buckets predicted wrong (one miss however many
 * of its calls were: the same on every rank at the same call), the count restarting when
 * the last was over HISTORY calls ago: BUCKET_MISSES of them so close together say that
 * the buckets' true period is longer than MAX_PERIOD (say 8 calls of one S, then one of
 * another: the odd call predicted as the others every time, so that its shape never
 * explores), and a2a_speculation_bucket predicts no more, nor find_period while a shape
 * explores; an application's new phase now and then does not add up. */
static void note_bucket_miss(a2a_speculation *sp)
{
    if (sp->known - sp->last_miss > HISTORY)
        sp->bucket_misses = 0;
    sp->bucket_misses++;
    sp->last_miss = sp->known;
}

/* Guarantees: the bucket predicted for the alltoallv call now beginning: that of the call
 * L calls before it, L the smallest period <= MAX_PERIOD with which the last max(ENTER_CALLS,
 * 2 L) buckets known (agreed, or predicted and not refuted yet) repeat (each equals the one
 * L calls before it); *period = L. -1 (and *period 0) when they repeat with none, or
 * BUCKET_MISSES predictions were wrong close together (note_bucket_miss).
 * Every rank gets the same at the same call: the history holds the buckets of agreed S, the
 * buckets predicted by this same rule, and corrections made from reduced S only. */
int a2a_speculation_bucket(const a2a_speculation *sp, int *period)
{
    for (int L = 1; L <= MAX_PERIOD && sp->bucket_misses < BUCKET_MISSES; L++) {
        long long n = ENTER_CALLS > 2 * L ? ENTER_CALLS : 2 * L, k = sp->known - n + L;
        if (sp->known < n)
            break;
        while (k < sp->known && sp->hist[k % HISTORY].bucket == sp->hist[(k - L) % HISTORY].bucket)
            k++;
        if (k == sp->known) {
            *period = L;
            return sp->hist[(sp->known - L) % HISTORY].bucket;
        }
    }
    *period = 0;
    return -1;
}

/* Guarantees: the index in the history the next call's entry gets (calls known so far). */
long long a2a_speculation_known(const a2a_speculation *sp)
{
    return sp->known;
}

/* Guarantees: (a predicted call found of another bucket by a reduction) the entry of call
 * `index` holds its true bucket, when it is still in the history (older ones are past every
 * period's look-back). The reduction counts its miss (a2a_speculation_refuted). */
void a2a_speculation_correct(a2a_speculation *sp, long long index, int bucket)
{
    if (index >= 0 && index < sp->known && index >= sp->known - HISTORY)
        sp->hist[index % HISTORY].bucket = bucket;
}

/* Guarantees: counts one miss (note_bucket_miss) for a reduction of an exploring shape's
 * calls that found some of them of another bucket: the calls it checked were all predicted
 * before it, from the same history, so they refute it once (as a check window's reduction
 * does, a2a_speculation_check). */
void a2a_speculation_refuted(a2a_speculation *sp)
{
    note_bucket_miss(sp);
}

/* Guarantees: 1 when the call now beginning runs on a prediction: *out is the choice of
 * the call `period` calls before (the same on every rank); 0 when the caller must agree
 * on S first. Counts the call. */
int a2a_speculation_predict(a2a_speculation *sp, a2a_choice *out, long long *call)
{
    *call = ++sp->calls;
    if (!sp->period)
        return 0;
    entry *e = &sp->hist[sp->known % HISTORY];
    *e = sp->hist[(sp->known - sp->period) % HISTORY];
    sp->known++;
    *out = e->choice;
    return 1;
}

/* Guarantees: the history's next entry (call `known`) holds choice, settled and bucket. */
static void push_entry(a2a_speculation *sp, const a2a_choice *choice, int settled, int bucket)
{
    entry *e = &sp->hist[sp->known % HISTORY];
    e->choice = *choice;
    e->settled = settled;
    e->bucket = bucket;
    sp->known++;
}

/* Guarantees: (agreeing per call) appends the call's choice, computed from the agreed S
 * after the call, and its bucket (or, settled 0, an exploring call's: predicted, appended
 * before the call runs); returns the period when speculation begins with the next call,
 * else 0. */
int a2a_speculation_agreed(a2a_speculation *sp, const a2a_choice *choice, int settled, int bucket)
{
    push_entry(sp, choice, settled, bucket);
    sp->period = find_period(sp);
    if (!sp->pending) /* a window may be open: calls of decided shapes predicted between */
        sp->window = WINDOW_MIN;
    return sp->period;
}

/* Guarantees: (agreeing per call, the buckets' period predicting a decided shape) appends
 * the call's predicted choice, settled, and its bucket, as a speculated call's entry: the
 * caller runs the choice and records the call in the window (a2a_speculation_record), whose
 * check judges it as it judges the calls speculated on the choices' period. */
void a2a_speculation_append(a2a_speculation *sp, const a2a_choice *choice, int bucket)
{
    push_entry(sp, choice, 1, bucket);
    if (!sp->pending && !sp->window)
        sp->window = WINDOW_MIN;
}

/* Guarantees: 1 once per deferral: the first call run on a prediction since the last check
 * that broke one (or since the start), for A2A_VERBOSE's line. */
int a2a_speculation_deferral_begins(a2a_speculation *sp)
{
    if (sp->deferring)
        return 0;
    sp->deferring = 1;
    return 1;
}

/* Guarantees: (agreeing per call, the call just made run on a predicted S checked right,
 * the last of an exploration all of whose calls were) speculation with period 1 begins
 * with the next call, predicting `choice` (the shape's winner): the history's last entry
 * stands for it, settled. An exploration predicted right call after call is a longer run
 * of one S than the ENTER_CALLS settled calls the agreed path waits for. */
void a2a_speculation_enter(a2a_speculation *sp, const a2a_choice *choice)
{
    entry *e = &sp->hist[(sp->known - 1) % HISTORY];
    e->choice = *choice;
    e->settled = 1;
    sp->period = 1;
    sp->deferring = 1;
    if (!sp->pending) /* else the open window goes on (calls of decided shapes in it) */
        sp->window = WINDOW_MIN;
}

/* Guarantees: (a speculated call) keeps this rank's S and time of the call; returns 1
 * when the window is full (the caller then calls a2a_speculation_check). */
int a2a_speculation_record(a2a_speculation *sp, long long S, double seconds)
{
    sp->at[sp->pending] = sp->known - 1;
    sp->callno[sp->pending] = sp->calls;
    sp->ran[sp->pending] = sp->hist[(sp->known - 1) % HISTORY].choice;
    sp->S[sp->pending] = S;
    sp->ns[sp->pending] = (long long)(seconds * 1e9);
    return ++sp->pending >= sp->window;
}

/* Guarantees: the call now beginning is counted as one that agreed on S before running
 * (the dispatcher's MPI_Allreduce), for A2A_Tuning_summary. */
void a2a_speculation_count_per_call(a2a_speculation *sp)
{
    sp->per_call++;
}

/* Guarantees: the alltoallv calls that agreed on S before running (0 for sp NULL); *calls
 * is all the alltoallv calls counted so far. */
long long a2a_speculation_per_call(const a2a_speculation *sp, long long *calls)
{
    *calls = sp ? sp->calls : 0;
    return sp ? sp->per_call : 0;
}

/* Guarantees: the calls run on a prediction whose window is not checked yet (they are
 * in no shape's count so far). */
int a2a_speculation_unchecked(const a2a_speculation *sp)
{
    return sp ? sp->pending : 0;
}

/* Guarantees: (the window is full, or closed early at the end of the run: every rank
 * has the same calls pending) one MPI_Allreduce(MAX) over the S and times of the window's
 * calls so far on comm; then, for each call i of them in call order, judge(i, agreed S,
 * max time in seconds, predicted choice, arg) says whether the dispatcher's choice for
 * that S is settled and the one predicted (judge accounts the call for its shape). The
 * first call judged otherwise ends speculation (the rest are still judged, for their
 * accounting); its history entry takes the true choice; a check that found calls of
 * another bucket than predicted counts one miss (note_bucket_miss). Returns the
 * reduction's error or MPI_SUCCESS; *ended_at is the call that broke the prediction, or 0. */
int a2a_speculation_check(a2a_speculation *sp, MPI_Comm comm, a2a_speculation_judge judge,
                          void *arg, long long *ended_at)
{
    const int w = sp->pending;
    long long buf[2 * WINDOW_MAX];
    memcpy(buf, sp->S, (size_t)w * sizeof *buf);
    memcpy(buf + w, sp->ns, (size_t)w * sizeof *buf);
    *ended_at = 0;
    int rc = MPI_Allreduce(MPI_IN_PLACE, buf, 2 * w, MPI_LONG_LONG, MPI_MAX, comm);
    if (rc != MPI_SUCCESS) { /* alike on every rank: agree per call again */
        sp->period = 0;
        sp->pending = 0;
        sp->deferring = 0;
        return rc;
    }
    int refuted = 0;
    for (int i = 0; i < w; i++) {
        entry past, *e = sp->at[i] >= sp->known - HISTORY ? &sp->hist[sp->at[i] % HISTORY] : &past;
        a2a_choice truth;
        int settled = 0;
        int bucket = a2a_bucket_of(buf[i]), predicted = e != &past ? e->bucket : bucket;
        e->bucket = bucket; /* a right choice may come from another bucket */
        if (!judge(buf[i], (double)buf[w + i] * 1e-9, &sp->ran[i], &truth, &settled, arg)) {
            refuted |= predicted != bucket;
            e->choice = truth;
            e->settled = settled;
            if (!*ended_at)
                *ended_at = sp->callno[i];
        }
    }
    if (refuted) /* once per check, however many of its calls: as an exploring reduction */
        note_bucket_miss(sp);
    sp->pending = 0;
    if (*ended_at) {
        sp->period = 0;
        sp->deferring = 0;
    } else if (sp->window < WINDOW_MAX)
        sp->window *= 2;
    return MPI_SUCCESS;
}
