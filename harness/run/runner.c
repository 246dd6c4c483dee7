/* runner.c — validating and timing one configuration (see runner.h): one path for every
 * family, over the family's operations table (family.h). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "family.h"
#include "polite.h"
#include "runner.h"

/* One configuration on this rank: its table, its built workload, its communicator. */
typedef struct run {
    const config *c;
    const family_ops *ops;
    family_load load;
    MPI_Comm comm;
    int rank;
    int rc; /* counted and calibration calls: the code of the last failing call */
} run;

/* One kernel call, the previous call's result released first (stats may be NULL). */
static int call_once(run *r, a2a_stats *stats)
{
    if (r->ops->discard)
        r->ops->discard(r->load.state);
    return r->ops->call(r->c, r->load.state, r->comm, stats);
}

/* A kernel call as count_calls and choose_iterations want it: a failure kept in r->rc. */
static int call_counted(void *arg)
{
    run *r = arg;
    int rc = call_once(r, NULL);
    if (rc != MPI_SUCCESS)
        r->rc = rc;
    return rc;
}

/* iterations = auto: warm-up calls in doubling batches until at least c->warmup calls and a
 * tenth of c->time_budget have passed on the slowest rank's clock, then as many timed calls
 * as the budget holds at the last batch's time per call, within SWEEP_AUTO_MIN_ITERATIONS ..
 * SWEEP_AUTO_MAX_ITERATIONS. Every rank of comm returns the same count and *warmup_done;
 * 0 when a call failed on some rank (the failing call's code is in its argument's rc). */
static int choose_iterations(const config *c, MPI_Comm comm, int (*call)(void *), void *arg,
                             int *warmup_done)
{
    double spent = 0, per_call = 0;
    int done = 0;
    for (long batch = 1;; batch *= 2) {
        MPI_Barrier(comm);
        double t0 = MPI_Wtime();
        int failed = 0;
        for (long i = 0; i < batch && !failed; i++)
            failed = call(arg) != MPI_SUCCESS;
        double mine[2] = { MPI_Wtime() - t0, failed }, most[2];
        MPI_Allreduce(mine, most, 2, MPI_DOUBLE, MPI_MAX, comm);
        done += (int)batch;
        spent += most[0];
        per_call = most[0] / (double)batch;
        if (most[1] != 0) {
            *warmup_done = done;
            return 0;
        }
        if (done >= c->warmup && spent >= c->time_budget / 10)
            break;
    }
    *warmup_done = done;
    double n = per_call > 0 ? c->time_budget / per_call : SWEEP_AUTO_MAX_ITERATIONS;
    if (n < SWEEP_AUTO_MIN_ITERATIONS)
        n = SWEEP_AUTO_MIN_ITERATIONS;
    if (n > SWEEP_AUTO_MAX_ITERATIONS)
        n = SWEEP_AUTO_MAX_ITERATIONS;
    return (int)n;
}

/* The stored status of a CHECK_* outcome. */
static result_status status_of(int check)
{
    return check == CHECK_OK ? STATUS_OK : check == CHECK_WRONG ? STATUS_WRONG : STATUS_ERROR;
}

/* The first call, validated: the reference and then the kernel (stats counted), this
 * rank's buffers compared; with unvalidated payloads one kernel call whose own count of
 * the bytes it sent is checked against the bytes each rank owes (out->unvalidated = 1).
 * A failing rank still joins every call so that peers are not left hanging. Returns the
 * status agreed over the communicator. */
static int validate(run *r, a2a_stats *stats, result_record *out, char *msg, size_t len)
{
    const config *c = r->c;
    if (r->load.unvalidated) {
        int rc = call_once(r, stats), check = CHECK_OK;
        if (rc != MPI_SUCCESS) {
            family_mpi_error(rc, c->kernel->name, msg, len);
            check = CHECK_ERROR;
        } else {
            check = family_sent_check(stats->bytes, r->load.sent, r->rank, msg, len);
        }
        int status = family_agree(check, msg, len, r->comm);
        out->unvalidated = 1;
        if (status == CHECK_OK)
            snprintf(msg, len, "not validated: simulated above the validation limit, "
                     "%s (bytes sent checked against the data)", r->load.unvalidated_why);
        return status;
    }
    int status = CHECK_OK;
    int rc = r->ops->call_reference(c, r->load.state, r->comm);
    if (rc != MPI_SUCCESS) {
        family_mpi_error(rc, r->ops->reference, msg, len);
        status = CHECK_ERROR;
    }
    rc = call_once(r, stats);
    if (rc != MPI_SUCCESS && status == CHECK_OK) {
        family_mpi_error(rc, c->kernel->name, msg, len);
        status = CHECK_ERROR;
    }
    if (status == CHECK_OK)
        status = r->ops->check(c, r->load.state, r->rank, 0, 1, msg, len);
    return family_agree(status, msg, len, r->comm);
}

/* The per-rank maximum of each counter of the first call, on rank 0 in *out. */
static void stats_max(const a2a_stats *mine, a2a_stats *out, MPI_Comm comm)
{
    long long v[8] = { mine->rounds, mine->rounds_local, mine->rounds_global, mine->blocks,
                       mine->bytes, mine->meta_bytes, mine->messages, mine->temp_bytes };
    long long m[8];
    polite_allreduce(v, m, 8, MPI_LONG_LONG, MPI_MAX, comm);
    *out = (a2a_stats){ m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7] };
}

/* Sums the bytes between ranks and the bytes arriving (own blocks included) of every rank
 * into out->bytes_moved and out->bytes_copied on rank 0. */
static void record_traffic(const run *r, result_record *out)
{
    long long mine[2] = { r->load.sent, r->load.arrived }, total[2];
    polite_allreduce(mine, total, 2, MPI_LONG_LONG, MPI_SUM, r->comm);
    if (r->rank == 0) {
        out->bytes_moved = total[0];
        out->bytes_copied = total[1];
    }
}

/* The warm-up calls (iterations = auto: the calibration, which chooses the count), stored
 * in out->iterations and out->warmup; returns the iterations to time, *rc the first
 * failing call's code (MPI_SUCCESS if none). With a fixed count above the validation limit
 * the first call (validate: the kernel alone, its bytes counted) is the first of the
 * `warmup` calls: one call fewer, the same number of exchanges before the timed ones. */
static int warm_up(run *r, result_record *out, int *rc)
{
    const config *c = r->c;
    int iterations = c->iterations, warmup = c->warmup;
    *rc = MPI_SUCCESS;
    if (iterations == SWEEP_ITERATIONS_AUTO) {
        r->rc = MPI_SUCCESS;
        iterations = choose_iterations(c, r->comm, call_counted, r, &warmup);
        *rc = r->rc;
    } else {
        int counted_first = r->load.unvalidated && warmup > 0;
        for (int i = counted_first; i < warmup && *rc == MPI_SUCCESS; i++)
            *rc = call_once(r, NULL);
    }
    out->iterations = iterations;
    out->warmup = warmup;
    return iterations;
}

/* The timed calls after a validated first call: warm-up, `iterations` timed calls (barrier,
 * MPI_Wtime around the call, max over ranks into samples on rank 0), the counted calls,
 * then the result checked again; on rank 0 out gets the summary, or the failure. */
static void measure(run *r, result_record *out, double *samples)
{
    const config *c = r->c;
    char msg[512] = "";
    int rc;
    int iterations = warm_up(r, out, &rc);
    for (int i = 0; i < iterations && rc == MPI_SUCCESS; i++) {
        if (r->ops->discard)
            r->ops->discard(r->load.state);
        MPI_Barrier(r->comm);
        double t0 = MPI_Wtime();
        rc = r->ops->call(c, r->load.state, r->comm, NULL);
        double elapsed = MPI_Wtime() - t0, slowest = 0;
        MPI_Reduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, r->comm);
        if (r->rank == 0)
            samples[i] = slowest;
    }
    if (rc == MPI_SUCCESS && c->counters) {
        /* counted in separate calls after the timed ones: counting never perturbs timing */
        r->rc = MPI_SUCCESS;
        count_calls(c->counters, iterations, call_counted, r, r->comm, &out->counted);
        rc = r->rc;
    }
    int status = CHECK_OK;
    if (rc != MPI_SUCCESS) {
        family_mpi_error(rc, c->kernel->name, msg, sizeof msg);
        status = CHECK_ERROR;
    } else if (!r->load.unvalidated) {
        long long calls = 1 + out->warmup + iterations + (c->counters ? iterations : 0);
        status = r->ops->check(c, r->load.state, r->rank, 1, calls, msg, sizeof msg);
        if (status != CHECK_OK) {
            char first[sizeof msg];
            memcpy(first, msg, sizeof first);
            snprintf(msg, sizeof msg, "after the timed calls: %.480s", first);
        }
    }
    status = family_agree(status, msg, sizeof msg, r->comm);
    if (r->rank == 0) {
        if (status == CHECK_OK) {
            out->summary = summarize_samples(samples, iterations);
        } else {
            out->status = status_of(status);
            snprintf(out->message, sizeof out->message, "%s", msg);
        }
    }
}

/* Appends to the row's message (rank 0) which algorithm a vendor-selection kernel chose
 * at this P and S (a2a_kernel_choice); other kernels leave it as it is. */
static void note_choice(const config *c, result_record *out)
{
    char choice[160];
    if (!a2a_kernel_choice(c->kernel, c->P, c->S, choice, sizeof choice))
        return;
    size_t used = strlen(out->message);
    snprintf(out->message + used, sizeof out->message - used, "%s%s", used ? "; " : "", choice);
}

#ifdef A2A_SIMGRID
/* The test hook of the simulation build's crash path (tests/parts/simgrid.sh): with
 * A2A_SIM_TEST_CRASH=KERNEL:S in the environment, rank 0 of every configuration of that
 * kernel and block size S receives SIGSEGV before it builds its workload. */
static void crash_if_asked(const config *c, int rank)
{
    const char *asked = getenv("A2A_SIM_TEST_CRASH");
    const char *colon = asked ? strchr(asked, ':') : NULL;
    if (rank != 0 || !colon || strlen(c->kernel->name) != (size_t)(colon - asked) ||
        strncmp(asked, c->kernel->name, (size_t)(colon - asked)) != 0 ||
        strtoll(colon + 1, NULL, 10) != c->S)
        return;
    raise(SIGSEGV);
}
#endif

/* Guarantees: see runner.h. */
void run_config(const config *c, MPI_Comm comm, result_record *out, double *samples)
{
    run r = { c, family_ops_of(c), { 0 }, comm, 0, MPI_SUCCESS };
    MPI_Comm_rank(comm, &r.rank);
#ifdef A2A_SIMGRID
    crash_if_asked(c, r.rank);
#endif
    char msg[512] = "";
    int status = r.ops->build(c, comm, &r.load, msg, sizeof msg);
    a2a_stats stats = { 0 };
    if (status == CHECK_OK)
        status = validate(&r, &stats, out, msg, sizeof msg);
    if (r.rank == 0) {
        out->status = status_of(status);
        snprintf(out->message, sizeof out->message, "%s", msg);
        if (status == CHECK_OK)
            note_choice(c, out);
    }
    if (status != CHECK_ERROR) {
        stats_max(&stats, &out->stats, comm);
        record_traffic(&r, out);
    }
    if (status == CHECK_OK && c->iterations != 0) /* iterations = 0: validate only */
        measure(&r, out, samples);
    r.ops->free(r.load.state);
}
