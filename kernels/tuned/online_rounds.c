/*
 * online_rounds.c — the online tuner's exploration (A2A_TUNING=online; online.c describes
 * the tuner): the rounds of a shape's race among its candidates, the reductions that
 * gather their times (and check the S a call was predicted to have), and the decision.
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
 * The shape's warm-up (online_state.c, warmup_calls) is the MPI library's: its first
 * max(m - 2, 2) calls run the MPI library (the first calls of a run pay for connections
 * and first touches), the last two
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
 * (scripts/a2a_tools/tuner/tune.py, decide; the noise test is analysis.within_noise): the
 * fastest median wins if it beats every other candidate by more than the smaller
 * interquartile range of the two; otherwise the simplest candidate within that band (the
 * MPI library first, then fewer parameters). Every rank computes the same decision from
 * the same reduced samples at the same call.
 */

#include <stdio.h>
#include <string.h>
#include "online_internal.h"
#include "quantile.h"

#define RACE_FACTOR 1.5       /* a median this many times the best (round 0, 1): out */

/* Guarantees: the median and interquartile range of x[0..n) (n >= 1), sorted into `sorted`
 * (quantiles of type 7, as the harness's summaries). */
void a2a_online_median_noise(const double *x, int n, double *sorted, double *median,
                             double *noise)
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
void a2a_online_describe(const candidate *c, char *text, size_t len)
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
void a2a_online_tell_decision(const comm_state *cs, const shape *sh)
{
    int verbose = a2a_online_settings.verbose;
    if (!verbose || (cs->rank != 0 && verbose < 2))
        return;
    char name[128], comm_name[MPI_MAX_OBJECT_NAME] = "";
    int len = 0;
    long long lo, hi;
    const candidate *w = &sh->cand[sh->winner];
    a2a_online_describe(w, name, sizeof name);
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
        a2a_online_describe(c, name, sizeof name);
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
int a2a_online_next_candidate(const shape *sh, int from)
{
    int i = from + 1;
    while (i < sh->ncand && (sh->cand[i].dropped || sh->cand[i].eliminated))
        i++;
    return i;
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
        a2a_online_tell_drift(cs, sh, sh->winner, "chosen again after it drifted; its windows "
                              "are judged against %.3g us (its time exploited) from now",
                              sh->ref_median * 1e6);
    }
    sh->decided_at = sh->calls + 1;
    sh->pos = 0;
    sh->since_window = 0;
    sh->drifted = 0;
    a2a_online_tell_decision(cs, sh);
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
    sh->current = a2a_online_next_candidate(sh, -1);
    if (left <= 1 || len == 0 || sh->current >= sh->ncand)
        finish_exploring(cs, sh);
}

/* Guarantees: the candidate after `from` that is in the race (not dropped nor out) and
 * short of the round's len calls, or ncand: whose calls come next in the round's pass. */
static int next_short(const shape *sh, int from, int len)
{
    int i = a2a_online_next_candidate(sh, from);
    while (i < sh->ncand && sh->made[i] >= len)
        i = a2a_online_next_candidate(sh, i);
    return i;
}

/* Guarantees: under A2A_VERBOSE, rank 0 of the communicator (every rank at 2) says that a
 * reduction found `calls - kept` of the `calls` alltoallv calls it checked in another
 * bucket than the shape's. */
static void tell_mispredicted(const comm_state *cs, const shape *sh, int calls, int kept)
{
    int verbose = a2a_online_settings.verbose;
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
            if (alltoallv && a2a_bucket_of(other.S) != sh->bucket) {
                wrong++;
                sh->calls--;
                sh->explore_calls--;
                a2a_speculation_correct(cs->speculation, sh->entries[at + (size_t)j],
                                        a2a_bucket_of(other.S));
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
        a2a_online_median_noise(sh->samples + (size_t)i * (size_t)sh->block + 1, start + len - 1,
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
int a2a_online_next_calls(comm_state *cs, shape *sh)
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

/* Guarantees: (collective over cs->comm, at its end) the calls of the round under way
 * of every alltoallv shape with calls run on a predicted S not checked yet are reduced
 * now (reduce_round: one reduction a shape, all such calls of its round), so that each is
 * counted for its own shape: every such shape (several explore at once when the buckets
 * repeat with a period), in the order of their buckets; their pending counts are agreed
 * state, so every rank makes the same reductions in that order, and nothing is sent when
 * there are none. */
int a2a_online_close_predictions(comm_state *cs)
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
