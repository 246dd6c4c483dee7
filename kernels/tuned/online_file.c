/*
 * online_file.c — the online tuner's tuning file (A2A_TUNING=online; online.c describes
 * the tuner): what a shape keeps for the file, resuming a shape an earlier run left
 * exploring (A2A_TUNING_FILE), and, at A2A_Tuning_finalize, gathering every rank's
 * decisions and writing them (A2A_TUNING_OUT).
 *
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "online_internal.h"

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
    int any = sh->explore_calls > 0, first = a2a_online_next_candidate(sh, -1);
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
        a2a_online_describe(c, k->name, sizeof k->name);
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
 * drifted: the trial's window did not decide; a2a_online_close_trials judges one that ran
 * a call past its first), or how far its exploration went (partial_of); 0 if there is
 * nothing to keep. */
int a2a_online_learned_of(const shape *sh, learned *out)
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
        a2a_online_describe(&sh->cand[i], mine, sizeof mine);
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
void a2a_online_resume(const comm_state *cs, shape *sh)
{
    const json_t *list = a2a_online_settings.ops.file_partial();
    for (size_t i = 0; i < json_array_size(list); i++)
        if (restore(sh, json_array_get(list, i))) {
            int verbose = a2a_online_settings.verbose, measured = 0;
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
        json_t *file = a2a_online_settings.ops.file_rules(c);
        json_t *list = file ? json_deep_copy(file) : json_array();
        for (int i = 0; i < n; i++)
            if (all[i].coll == c && !all[i].partial && written(all, n, i))
                json_array_append_new(list, rule_json(&all[i]));
        json_object_set_new(root, coll_names[c], list);
    }
    for (int i = 0; i < n; i++)
        if (all[i].partial && written(all, n, i))
            json_array_append_new(partial, partial_json(&all[i]));
    const json_t *old = a2a_online_settings.ops.file_partial();
    for (size_t i = 0; i < json_array_size(old); i++)
        if (!superseded(json_array_get(old, i), all, n))
            json_array_append(partial, json_array_get(old, i));
    if (json_array_size(partial))
        json_object_set(root, "online_partial", partial);
    json_decref(partial);
    const char *out = a2a_online_settings.out;
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", out, (long)getpid());
    if (json_dump_file(root, tmp, JSON_INDENT(1)) != 0 || rename(tmp, out) != 0) {
        fprintf(stderr, "a2a: A2A_TUNING_OUT=%s: cannot write it (%s)\n", out,
                strerror(errno));
        unlink(tmp);
    }
    json_decref(root);
}

/* Guarantees: (collective over MPI_COMM_WORLD, at A2A_Tuning_finalize, A2A_TUNING_OUT set)
 * the decisions of every rank (a2a_online_decisions) are gathered on rank 0, which writes
 * them (write_file) or says on stderr why not. Returns the first MPI error. */
int a2a_online_write_out(int world_rank)
{
    int size, n, bytes;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    learned *mine = a2a_online_decisions(world_rank, &n);
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
        /* rank 0 is MPI_COMM_SELF's last rank: the test hook fails it there */
        int fail = a2a_online_fail_for_test(MPI_COMM_SELF, NOMEM_GATHER);
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
            fprintf(stderr, "a2a: A2A_TUNING_OUT=%s: not written (%s)\n",
                    a2a_online_settings.out,
                    rc == MPI_SUCCESS ? why : "gathering the decisions failed");
    }
    free(all);
    free(counts);
    free(displs);
    free(mine);
    return rc;
}
