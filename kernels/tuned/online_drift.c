/*
 * online_drift.c — the online tuner's exploitation (A2A_TUNING=online; online.c describes
 * the tuner): a decided shape's monitoring windows, its drift, and the trial of a
 * challenger in the winner's place.
 *
 * Exploitation: the winner, untimed, except a window of n timed calls every 16 n calls
 * (one MPI_Allreduce per window): when two windows in a row are slower than the winner's
 * reference (its median, or its time exploited: finish_exploring) beyond the noise (same
 * rule) and by more than DRIFT_FLOOR, it has drifted (at most 3 times a shape): the
 * candidate of the lowest median it is so slower than runs on trial in its place, its
 * first window deciding (end_window; at the end of the run, a2a_online_close_trials);
 * with none the shape is explored again.
 */

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "online_internal.h"

#define DRIFT_WINDOWS 2       /* windows in a row beyond the noise before exploring again */
/* A window is slower only by more than this fraction of the winner's median, whatever the
 * noise: it is the tolerance of "the same choice" (issue 36: within 5 % of the best), so
 * exploring again cannot find a kernel better by less; with ~0 noise (SimGrid, a quiet
 * machine) the small systematic gap between exploring and exploiting calls stays below it. */
#define DRIFT_FLOOR 0.05
#define MAX_RESTARTS 3

/* Guarantees: under A2A_VERBOSE, rank 0 of the communicator (every rank at 2) says what a
 * drift of shape sh led to: the printf format `what` and its arguments, after the name of
 * candidate `cand`. */
void a2a_online_tell_drift(const comm_state *cs, const shape *sh, int cand, const char *what,
                           ...)
{
    int verbose = a2a_online_settings.verbose;
    if (!verbose || (cs->rank != 0 && verbose < 2))
        return;
    char name[128], text[256];
    a2a_online_describe(&sh->cand[cand], name, sizeof name);
    va_list ap;
    va_start(ap, what);
    vsnprintf(text, sizeof text, what, ap);
    va_end(ap);
    fprintf(stderr, "a2a: online %s P=%d: %s %s at call %lld [world rank %d]\n",
            call_names[sh->coll], sh->P, name, text, sh->calls, cs->world_rank);
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
 * with at least one call past its first: a2a_online_close_trials): its sh->pos calls
 * reduced like a block, the first left out (a warm-up).
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
    a2a_online_median_noise(sh->times + 1, sh->pos - 1, sh->sorted, &median, &noise);
    sh->pos = 0;
    sh->since_window = 0;
    if (sh->trial) {
        sh->trial = 0;
        if (clearly_slower(sh->drift_median, sh->drift_noise, median, noise)) {
            sh->ref_median = median;
            sh->ref_noise = noise;
            a2a_online_tell_drift(cs, sh, sh->winner, "kept: %.3g us exploited against %.3g us",
                       median * 1e6, sh->drift_median * 1e6);
            a2a_online_tell_decision(cs, sh); /* the shape's decision now, as after exploring */
            return MPI_SUCCESS;
        }
        a2a_online_tell_drift(cs, sh, sh->winner, "not faster exploited (%.3g us against %.3g "
                              "us): the winner that drifted runs again from the next call, "
                              "judged against %.3g us", median * 1e6, sh->drift_median * 1e6,
                              sh->drift_median * 1e6);
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
    a2a_online_tell_drift(cs, sh, sh->winner, "drifted from %.3g us to %.3g us (beyond its "
                          "noise and %.0f %%)", sh->ref_median * 1e6, median * 1e6,
                          DRIFT_FLOOR * 100);
    sh->restarts++;
    sh->drifted = 0;
    sh->drift_winner = sh->winner;
    sh->drift_median = median;
    sh->drift_noise = noise;
    sh->drift_decided_at = sh->decided_at;
    if (challenge < 0) {
        a2a_online_tell_drift(cs, sh, sh->winner, "has no challenger: exploring again");
        explore_again(sh);
        return MPI_SUCCESS;
    }
    sh->winner = challenge;
    sh->trial = 1;
    sh->decided_at = sh->calls + 1;
    sh->since_window = (long long)MONITOR_GAP * sh->block; /* its first window now */
    a2a_online_tell_drift(cs, sh, challenge, "(%.3g us exploring) runs in its place from the "
                          "next call, its first window deciding",
                          sh->cand[challenge].median * 1e6);
    return MPI_SUCCESS;
}

/* Guarantees: (exploiting, a timed call) its time joins the window; the window's last
 * call judges it (end_window: one MPI_Allreduce on the communicator). */
int a2a_online_window_sample(const comm_state *cs, shape *sh, double seconds)
{
    sh->times[sh->pos++] = test_time(sh->winner, seconds, 1);
    return sh->pos == sh->block ? end_window(cs, sh) : MPI_SUCCESS;
}

/* Guarantees: (collective over cs->comm, at its end) every shape on trial whose window
 * ran a call past its first (its warm-up) is judged on the calls it ran (end_window: one
 * MPI_Allreduce each, in the shapes' order), so that the file keeps the trial's verdict;
 * a trial with no such call stays undecided (a2a_online_learned_of writes the winner that
 * drifted). The same on every rank: trials and their windows' lengths are agreed state. */
int a2a_online_close_trials(const comm_state *cs)
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
