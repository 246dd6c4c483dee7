/*
 * online.c — online tuning (A2A_TUNING=online): the dispatcher learns, during the
 * application's own calls, the fastest kernel for each call shape, and writes what it
 * learned as a tuning file at the end (A2A_Tuning_finalize; see a2a_tuned.h). This file
 * owns the tuner's settings, the entry points the dispatcher calls (online.h), one call's
 * path from its shape to the candidate that runs it, and the closing of a communicator
 * (A2A_Comm_free) and of the run.
 *
 * Shape: per communicator, alltoall or alltoallv, and the bucket of S by powers of two
 * (S = 0; 1; 2..3; 4..7; ...), S being the bytes of one block (alltoall) or the largest
 * block of any rank (alltoallv: the summary of the counts that the dispatcher agrees on,
 * with one MPI_Allreduce per call or, while its choices repeat, a window of calls later:
 * speculate.c; such calls reach this file after the window, a2a_online_replay; or, while
 * the shape predicted from the period of the calls' buckets, or else the last agreed one,
 * explores, by the reduction that gathers the call's time (round 0's, or its candidate's
 * in rounds 1 and 2): a2a_online_predicted_call, reduce_round in online_rounds.c). P is
 * the communicator's. In-place calls never reach this file (the MPI library runs them, as
 * in file mode).
 *
 * The tuner's other files, each describing its part at its head: online_state.c (the
 * states of communicators and shapes, their memory, a shape's candidates), online_rounds.c
 * (exploration: rounds, their reductions, the decision), online_drift.c (exploitation:
 * monitoring windows, drift, trials), online_file.c (the tuning file: resuming a shape
 * from it, writing it at the end), online_candidates.c (the candidates' rule);
 * online_internal.h is what they share. The dispatcher hands the tuner what it calls
 * through (a2a_online_ops, at a2a_online_configure): no online file calls dispatch.c.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "online_internal.h"

#define DEFAULT_EXPLORE 120   /* calls a shape explores (A2A_TUNING_EXPLORE; see a2a_tuned.h) */
#define MIN_EXPLORE 6
#define MAX_EXPLORE 1000000

/* ---- settings ------------------------------------------------------------------------ */

online_settings a2a_online_settings = { .explore = DEFAULT_EXPLORE };
static const char *const nomem_names[] = { "", "state", "shape", "attr", "gather" };

/* Guarantees: see online.h. Reads only the environment. */
int a2a_online_configure(const a2a_online_ops *ops, int verbose, char *error, size_t len)
{
    a2a_online_settings.ops = *ops;
    a2a_online_settings.verbose = verbose;
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
        a2a_online_settings.explore = (int)n;
    }
    v = getenv("A2A_TUNING_CHECK");
    if (v && *v) {
        if (strcmp(v, "0") != 0 && strcmp(v, "1") != 0) {
            snprintf(error, len, "A2A_TUNING_CHECK=%s: not 0 or 1", v);
            return -1;
        }
        a2a_online_settings.check = v[0] == '1';
    }
    v = getenv("A2A_TUNING_OUT");
    a2a_online_settings.out = v && *v ? v : NULL;
    v = getenv("A2A_TUNING_TEST_CORRUPT");
    if (v && *v) {
        if (!a2a_find_kernel(A2A_FAMILY_UNIFORM, v) && !a2a_find_kernel(A2A_FAMILY_NONUNIFORM, v)) {
            snprintf(error, len, "A2A_TUNING_TEST_CORRUPT=%s: no such kernel", v);
            return -1;
        }
        a2a_online_settings.corrupt = v;
    }
    v = getenv("A2A_TUNING_TEST_NOMEM");
    if (v && *v) {
        for (int i = NOMEM_STATE; i <= NOMEM_GATHER; i++)
            if (strcmp(v, nomem_names[i]) == 0)
                a2a_online_settings.no_memory = i;
        if (!a2a_online_settings.no_memory) {
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
        a2a_online_settings.window_scale = f;
        a2a_online_settings.window_scale_other = g;
    }
    a2a_online_settings.online = 1;
    return 1;
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
    const char *corrupt = a2a_online_settings.corrupt;
    if (!corrupt || strcmp(corrupt, c->kernel->name) != 0 || cs->rank != call->P - 1)
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
        rc = a2a_online_settings.ops.call_library(call, base);
        differs = rc != MPI_SUCCESS || memcmp(base + lo, mine + lo, (size_t)(hi - lo)) != 0;
    } else { /* nothing received, or no memory to compare: the library's bytes, in step */
        rc = a2a_online_settings.ops.call_library(call, call->recv.buf);
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
            a2a_online_describe(c, name, sizeof name);
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
    int rc = a2a_online_settings.ops.call_kernel(call, c->kernel, c->params, &refused);
    double t = timed ? MPI_Wtime() - t0 : 0;
    if (!timed) {
        sh->since_window++;
        return rc;
    }
    if (exploring) {
        sh->explore_calls++;
        if (!refused && a2a_online_settings.check && !c->checked && sh->current > 0) {
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
            int nrc = a2a_online_next_calls(cs, sh);
            rc = rc != MPI_SUCCESS ? rc : nrc;
        }
        return rc;
    }
    int rrc = a2a_online_window_sample(cs, sh, t);
    return rc != MPI_SUCCESS ? rc : rrc;
}

/* Guarantees: see online.h. The call's shape runs it (shape_call) after its warm-up; out
 * of memory: the MPI library. */
int a2a_online_call(const a2a_call *call)
{
    comm_state *cs = a2a_online_state_of(call->comm);
    shape *sh = cs ? a2a_online_shape_of(cs, call) : NULL;
    if (!has_state(sh))
        return a2a_online_settings.ops.call_library(call, call->recv.buf);
    if (call->coll == A2A_COLL_ALLTOALLV)
        cs->last_v = sh;
    sh->calls++;
    if (sh->warmup_left > 0) {
        sh->warmup_left--;
        return a2a_online_settings.ops.call_library(call, call->recv.buf);
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
    comm_state *cs = a2a_online_agreed_state(call->comm);
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
    comm_state *cs = a2a_online_settings.online ? a2a_online_state_of(comm) : NULL;
    return cs ? cs->speculation : NULL;
}

/* Guarantees: see online.h. */
int a2a_online_winner(const a2a_call *call, a2a_choice *out)
{
    comm_state *cs = a2a_online_agreed_state(call->comm);
    const shape *sh = cs ? cs->shapes[call->coll][a2a_bucket_of(call->S)] : NULL;
    if (sh == &a2a_online_no_memory) { /* the MPI library on every rank, for good */
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
    comm_state *cs = a2a_online_agreed_state(call->comm);
    shape *sh = cs ? a2a_online_shape_of(cs, call) : NULL;
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
    return a2a_online_window_sample(cs, sh, seconds);
}

/* Guarantees: see online.h. Out of memory: the call is not counted. */
void a2a_online_note_rule(const a2a_call *call, const a2a_kernel *kernel, const int *params)
{
    comm_state *cs = a2a_online_state_of(call->comm);
    if (!cs)
        return;
    ruled **slot = &cs->ruled[call->coll][a2a_bucket_of(call->S)];
    if (!*slot && (*slot = calloc(1, sizeof **slot))) {
        (*slot)->kernel = kernel;
        (*slot)->P = call->P;
        memcpy((*slot)->params, params, sizeof (*slot)->params);
    }
    if (*slot)
        (*slot)->calls++;
}

/* ---- closing ------------------------------------------------------------------------ */

/* Guarantees: under A2A_VERBOSE, rank 0 of cs's communicator logs its summary, saying
 * `when` (the end of the run, or its MPI_Comm_free). */
static void tell_summary(const comm_state *cs, const char *when)
{
    char text[2048], comm_name[MPI_MAX_OBJECT_NAME] = "";
    int len = 0;
    if (!a2a_online_settings.verbose || cs->rank != 0 ||
        !a2a_online_summary(cs->comm, text, sizeof text))
        return;
    MPI_Comm_get_name(cs->comm, comm_name, &len);
    fprintf(stderr, "a2a: online %s [comm %s, world rank %d]: %s\n", when,
            len > 0 ? comm_name : "unnamed", cs->world_rank, text);
}

/* Guarantees: (collective over cs's communicator) the alltoallv calls of its
 * deferred-agreement window not checked yet are checked and accounted to their shapes
 * (the dispatcher's close_window, a2a_online_ops, its line saying `checked`), and so are
 * those run on a predicted S (a2a_online_close_predictions); then the trials under way are
 * judged on the calls they ran (a2a_online_close_trials); under A2A_VERBOSE rank 0 then
 * logs the summary, `when`. Every state has its deferred-agreement state (new_state).
 * Returns the first MPI error. */
static int close_communicator(comm_state *cs, const char *checked, const char *when)
{
    int rc = a2a_online_settings.ops.close_window(cs->comm, cs->speculation, checked);
    int prc = a2a_online_close_predictions(cs);
    int trc = a2a_online_close_trials(cs);
    tell_summary(cs, when);
    return rc != MPI_SUCCESS ? rc : prc != MPI_SUCCESS ? prc : trc;
}

/* Guarantees: (collective over each communicator of this rank still alive, as
 * A2A_Tuning_finalize is) the alltoallv calls of each one's deferred-agreement window
 * not checked yet are checked and accounted to their shapes (close_communicator), and so
 * are those run on a predicted S (a2a_online_close_predictions), so that every call is
 * counted; the communicators in the order their states were agreed on, newest first
 * (a2a_online_state_of: the reverse order of the collectives that agreed, an order a
 * correct program allows on every rank, so no rank waits in another communicator's check
 * than the others). Under A2A_VERBOSE rank 0 of each then logs its summary.
 * Returns the first MPI error, or MPI_SUCCESS. */
static int close_windows(int world_rank)
{
    int rc = MPI_SUCCESS;
    for (comm_state *cs = a2a_online_next_state(NULL, world_rank); cs;
         cs = a2a_online_next_state(cs, world_rank)) {
        int crc = close_communicator(cs, "at the end", "at the end");
        rc = rc != MPI_SUCCESS ? rc : crc;
    }
    return rc;
}

/* Guarantees: see online.h. The state is agreed on alike on every rank
 * (a2a_online_state_of), and so is what its window holds; a state not agreed on never
 * opened a window. */
int a2a_online_before_comm_free(MPI_Comm *comm)
{
    int inter = 0;
    if (!a2a_online_settings.online || !comm || *comm == MPI_COMM_NULL ||
        MPI_Comm_test_inter(*comm, &inter) != MPI_SUCCESS || inter)
        return MPI_SUCCESS;
    comm_state *cs = a2a_online_agreed_state(*comm);
    if (!cs)
        return MPI_SUCCESS;
    return close_communicator(cs, "when the communicator was freed", "at MPI_Comm_free");
}

/* Guarantees: see online.h: every communicator of this rank is closed (close_windows),
 * then, under A2A_TUNING_OUT, what every rank learned is written (a2a_online_write_out).
 * Returns the first MPI error. */
int a2a_online_finalize(void)
{
    if (!a2a_online_settings.online)
        return MPI_SUCCESS;
    int world_rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    int closed = close_windows(world_rank);
    if (!a2a_online_settings.out)
        return closed;
    int rc = a2a_online_write_out(world_rank);
    return closed != MPI_SUCCESS ? closed : rc;
}
