/* trace_main.c — a2atrace: the exact message schedule of a liba2a kernel at any P, from
 * the kernel's own code run against the tracing MPI layer (trace_mpi.h), summarised per
 * epoch for the ranks of one node (the input of the model tier, scripts/a2a model-run).
 *
 *   a2atrace KERNEL P S --node-size Q [--radix R] [--radix2 R2] [--ppn N] [--block-count B]
 *            [--all-nodes] [--cpu-threshold SECONDS]
 *
 * Traces ranks 0..Q-1 (node 0 when the P ranks fill nodes of Q cores in order). Every
 * uniform kernel of liba2a is node-circulant: rank n*Q + j sends what rank j sends, to
 * the rank n*Q further on; --all-nodes traces every rank and checks that claim (exit 1
 * when it fails). Prints, one record a line:
 *   trace KERNEL P S Q EPOCHS
 *   stats RANK ROUNDS BLOCKS BYTES MESSAGES SENDS SEND_BYTES   per traced rank: its a2a_stats,
 *         then the sends to other ranks and their bytes as the tracing layer recorded them
 *   epoch E MAX_SENDS MAX_RECVS MAX_COPY_SECONDS                          per epoch
 *   send E LOCAL OFFSET BYTES COUNT   COUNT sends of epoch E from rank LOCAL of node 0 to
 *                                     rank LOCAL + OFFSET (mod P), of BYTES each; LOCAL is
 *                                     '*' when every rank of the node sends alike
 *   allreduce RANKS BYTES   an MPI_Allreduce over RANKS ranks of BYTES per rank that a
 *                           non-uniform kernel makes (its own collective, in call order)
 * Exit 0, 1 (a kernel failed or the symmetry check failed), 2 (bad input). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <math.h>

#include "a2a.h"
#include "trace_mpi.h"
#include "workload.h"

typedef struct kernel_params {
    int radix, radix2, ppn, block_count;
} kernel_params;

typedef int (*uniform_call)(const void *, int, void *, int, MPI_Comm, const kernel_params *,
                            a2a_stats *);

/* Guarantees: each call_* runs one kernel on MPI_BYTE blocks with its parameters. */
static int call_tra(const void *s, int n, void *r, int m, MPI_Comm c, const kernel_params *p,
                    a2a_stats *st)
{
    return A2A_Alltoall_tra(s, n, MPI_BYTE, r, m, MPI_BYTE, c, p->radix, st);
}
static int call_tra2(const void *s, int n, void *r, int m, MPI_Comm c, const kernel_params *p,
                     a2a_stats *st)
{
    return A2A_Alltoall_tra2(s, n, MPI_BYTE, r, m, MPI_BYTE, c, p->radix, p->radix2, p->ppn, st);
}
static int call_bruck(const void *s, int n, void *r, int m, MPI_Comm c, const kernel_params *p,
                      a2a_stats *st)
{
    (void)p;
    return A2A_Alltoall_bruck(s, n, MPI_BYTE, r, m, MPI_BYTE, c, st);
}
static int call_spread_out(const void *s, int n, void *r, int m, MPI_Comm c,
                           const kernel_params *p, a2a_stats *st)
{
    (void)p;
    return A2A_Alltoall_spread_out(s, n, MPI_BYTE, r, m, MPI_BYTE, c, st);
}
static int call_pairwise(const void *s, int n, void *r, int m, MPI_Comm c,
                         const kernel_params *p, a2a_stats *st)
{
    (void)p;
    return A2A_Alltoall_pairwise(s, n, MPI_BYTE, r, m, MPI_BYTE, c, st);
}
static int call_scattered(const void *s, int n, void *r, int m, MPI_Comm c,
                          const kernel_params *p, a2a_stats *st)
{
    return A2A_Alltoall_scattered(s, n, MPI_BYTE, r, m, MPI_BYTE, c, p->block_count, st);
}

/* The kernels the model traces: liba2a's uniform family, by their registry names. */
static const struct {
    const char *name;
    uniform_call call;
} KERNELS[] = {
    { "tra", call_tra },           { "tra2", call_tra2 },         { "bruck", call_bruck },
    { "spread_out", call_spread_out }, { "pairwise", call_pairwise }, { "scattered", call_scattered },
};

typedef int (*nonuniform_call)(const void *, const int *, const int *, void *, const int *,
                               const int *, MPI_Comm, const kernel_params *, a2a_stats *);

/* Guarantees: TuNA on MPI_BYTE blocks with its radix and block_count. */
static int call_tuna(const void *s, const int *sc, const int *sd, void *r, const int *rc,
                     const int *rd, MPI_Comm c, const kernel_params *p, a2a_stats *st)
{
    return A2A_Alltoallv_tuna(s, sc, sd, MPI_BYTE, r, rc, rd, MPI_BYTE, c, p->radix,
                              p->block_count, st);
}

/* Guarantees: staggered TuNA_l^g (intra-node TuNA at radix, then the inter-node exchange
 * of one block a message, block_count in flight) on MPI_BYTE blocks in nodes of ppn ranks
 * (0: the node the layer's MPI_Comm_split_type gives, --node-size). */
static int call_tuna_staggered(const void *s, const int *sc, const int *sd, void *r,
                               const int *rc, const int *rd, MPI_Comm c,
                               const kernel_params *p, a2a_stats *st)
{
    return A2A_Alltoallv_tuna_staggered(s, sc, sd, MPI_BYTE, r, rc, rd, MPI_BYTE, c,
                                        p->radix, p->block_count, p->ppn, st);
}

/* Guarantees: coalesced TuNA_l^g (as staggered, Q blocks an inter-node message,
 * block_count rounds in flight) on MPI_BYTE blocks in nodes of ppn ranks (0: as
 * staggered). */
static int call_tuna_coalesced(const void *s, const int *sc, const int *sd, void *r,
                               const int *rc, const int *rd, MPI_Comm c,
                               const kernel_params *p, a2a_stats *st)
{
    return A2A_Alltoallv_tuna_coalesced(s, sc, sd, MPI_BYTE, r, rc, rd, MPI_BYTE, c,
                                        p->radix, p->block_count, p->ppn, st);
}

/* Guarantees: two-phase Bruck (radix 2) on MPI_BYTE blocks. */
static int call_twophase_bruck(const void *s, const int *sc, const int *sd, void *r,
                               const int *rc, const int *rd, MPI_Comm c, const kernel_params *p,
                               a2a_stats *st)
{
    (void)p;
    return A2A_Alltoallv_twophase_bruck(s, sc, sd, MPI_BYTE, r, rc, rd, MPI_BYTE, c, st);
}

/* Guarantees: MPICH 4's MPI_Alltoallv (scattered in batches, empty blocks skipped) on
 * MPI_BYTE blocks. */
static int call_mpich_selection(const void *s, const int *sc, const int *sd, void *r,
                                const int *rc, const int *rd, MPI_Comm c,
                                const kernel_params *p, a2a_stats *st)
{
    (void)p;
    return A2A_Alltoallv_mpich_selection(s, sc, sd, MPI_BYTE, r, rc, rd, MPI_BYTE, c, st);
}

/* Guarantees: Open MPI 4.1's MPI_Alltoallv as coll/tuned's fixed decision selects it
 * (basic linear or pairwise, by P) on MPI_BYTE blocks. */
static int call_ompi_tuned_selection(const void *s, const int *sc, const int *sd, void *r,
                                     const int *rc, const int *rd, MPI_Comm c,
                                     const kernel_params *p, a2a_stats *st)
{
    (void)p;
    return A2A_Alltoallv_ompi_tuned_selection(s, sc, sd, MPI_BYTE, r, rc, rd, MPI_BYTE, c, st);
}

/* The non-uniform kernels the model traces, each on a traced world of all P ranks. */
static const struct {
    const char *name;
    nonuniform_call call;
} NONUNIFORM[] = { { "tuna", call_tuna },
                   { "tuna_staggered", call_tuna_staggered },
                   { "tuna_coalesced", call_tuna_coalesced },
                   { "twophase_bruck", call_twophase_bruck },
                   { "mpich_selection", call_mpich_selection },
                   { "ompi_tuned_selection", call_ompi_tuned_selection } };

/* One send of a node's rank, relative to it: epoch, the rank's place in its node, the
 * rank distance to the receiver (mod P), bytes. */
typedef struct flow {
    long long epoch, bytes;
    int local, offset;
} flow;

/* What one node's ranks do, relative to the node. */
typedef struct node_trace {
    long long epochs, flow_count;
    long long flow_room, sends_room, recvs_room, copy_room;
    flow *flows;                 /* sorted (once complete), one entry per send */
    long long *max_sends, *max_recvs;
    double *max_copy;
} node_trace;

/* Guarantees: qsort order of flows: epoch, local rank, offset, bytes. */
static int flow_order(const void *a, const void *b)
{
    const flow *x = a, *y = b;
    if (x->epoch != y->epoch)
        return x->epoch < y->epoch ? -1 : 1;
    if (x->local != y->local)
        return x->local < y->local ? -1 : 1;
    if (x->offset != y->offset)
        return x->offset < y->offset ? -1 : 1;
    return (x->bytes > y->bytes) - (x->bytes < y->bytes);
}

/* Guarantees: *grow has room for n elements of `size` bytes (0 on failure). */
static int reserve(void **grow, long long *room, long long n, size_t size)
{
    if (n <= *room)
        return 1;
    long long r = *room ? *room : 1024;
    while (r < n)
        r *= 2;
    void *p = realloc(*grow, (size_t)r * size);
    if (!p)
        return 0;
    *grow = p;
    *room = r;
    return 1;
}

/* Guarantees: the trace the layer holds (one rank's, `rank`) appended to *t, offsets
 * relative to the rank, epochs' maxima updated; *sends and *send_bytes its sends to other
 * ranks. Returns 0, or 1 when out of memory (said on stderr). */
static int absorb_rank(node_trace *t, int rank, int P, int Q, long long *sends,
                       long long *send_bytes)
{
    long long n, epochs = trace_epochs();
    const trace_message *m = trace_messages(&n);
    *sends = *send_bytes = 0;
    if (!reserve((void **)&t->flows, &t->flow_room, t->flow_count + n, sizeof(flow)) ||
        !reserve((void **)&t->max_sends, &t->sends_room, epochs, sizeof(long long)) ||
        !reserve((void **)&t->max_recvs, &t->recvs_room, epochs, sizeof(long long)) ||
        !reserve((void **)&t->max_copy, &t->copy_room, epochs, sizeof(double))) {
        fprintf(stderr, "a2atrace: out of memory\n");
        return 1;
    }
    for (long long e = t->epochs; e < epochs; e++) {
        t->max_sends[e] = t->max_recvs[e] = 0;
        t->max_copy[e] = 0;
    }
    if (epochs > t->epochs)
        t->epochs = epochs;
    long long i = 0;
    for (long long e = 0; e < epochs; e++) {
        long long s = 0, r = 0;
        for (; i < n && m[i].epoch == e; i++) {
            if (m[i].sent) {
                int offset = (m[i].peer - rank + P) % P;
                t->flows[t->flow_count++] = (flow){ e, m[i].bytes, rank % Q, offset };
                s++;
                if (m[i].peer != rank) { /* what a2a_stats counts: sends to others */
                    (*sends)++;
                    *send_bytes += m[i].bytes;
                }
            } else {
                r++;
            }
        }
        if (s > t->max_sends[e])
            t->max_sends[e] = s;
        if (r > t->max_recvs[e])
            t->max_recvs[e] = r;
        if (trace_copy_seconds(e) > t->max_copy[e])
            t->max_copy[e] = trace_copy_seconds(e);
    }
    return 0;
}

/* Guarantees: the trace of node `node` (ranks node*Q .. node*Q+Q-1) in *t, node offsets
 * relative to it; its ranks' stats lines printed when `print` is set. Returns 0, or 1 when
 * the kernel or an allocation failed (said on stderr). */
static int trace_node(uniform_call call, int P, int S, int Q, int node, const kernel_params *kp,
                      char *sbuf, char *rbuf, int print, node_trace *t)
{
    memset(t, 0, sizeof *t);
    for (int rank = node * Q; rank < node * Q + Q && rank < P; rank++) {
        MPI_Comm comm = trace_comm_create(P, rank, Q);
        if (comm == MPI_COMM_NULL) {
            fprintf(stderr, "a2atrace: no communicator slot left\n");
            return 1;
        }
        a2a_stats stats = { 0 };
        int err = call(sbuf, S, rbuf, S, comm, kp, &stats);
        MPI_Comm_free(&comm);
        if (err != MPI_SUCCESS) {
            fprintf(stderr, "a2atrace: the kernel failed on rank %d (MPI error %d)\n", rank, err);
            return 1;
        }
        long long sends, send_bytes;
        if (absorb_rank(t, rank, P, Q, &sends, &send_bytes))
            return 1;
        if (print)
            printf("stats %d %lld %lld %lld %lld %lld %lld %lld\n", rank, stats.rounds,
                   stats.blocks, stats.bytes, stats.messages, sends, send_bytes,
                   stats.meta_bytes);
    }
    qsort(t->flows, (size_t)t->flow_count, sizeof(flow), flow_order);
    return 0;
}

/* What every rank of a traced world runs: the workload's blocks of (seed, P, S, dist),
 * built once for all ranks, and the kernel's stats kept. Payload bytes are never read
 * and the copies never made (A2A_SIM_COPY_SKIP), so the layout of the blocks in the
 * buffers decides nothing a trace records: every rank's blocks all start at offset 0 of
 * one shared pair of buffers as large as the largest block (one array of zero
 * displacements, shared by all ranks), and only the counts are each rank's own. */
typedef struct world_job {
    nonuniform_call call;
    const kernel_params *kp;
    int P;
    int *send_counts, *recv_counts; /* row r: rank r's send and receive counts */
    int *zero_displs;               /* P zeros */
    char *sbuf, *rbuf;
    a2a_stats *stats;
} world_job;

/* Guarantees: the kernel on rank `rank`'s counts of the job's workload (all displacements
 * 0: see world_job); its stats in job->stats[rank]. An MPI error code. */
static int run_world_rank(MPI_Comm comm, int rank, void *arg)
{
    world_job *job = arg;
    size_t row = (size_t)rank * (size_t)job->P;
    return job->call(job->sbuf, job->send_counts + row, job->zero_displs, job->rbuf,
                     job->recv_counts + row, job->zero_displs, comm, job->kp,
                     &job->stats[rank]);
}

/* Guarantees: job->send_counts (rank r's blocks to each j in row r) and its transpose
 * job->recv_counts from the workload; 0, 1 when out of memory (said on stderr), or 2 when
 * a rank's blocks exceed what MPI's int displacements reach (bad input, said on stderr).
 * *largest the largest block. */
static int build_counts(world_job *job, const wl_spec *spec, long long *largest)
{
    int P = job->P;
    size_t cells = (size_t)P * (size_t)P;
    job->send_counts = malloc(cells * sizeof(int));
    job->recv_counts = malloc(cells * sizeof(int));
    long long *in = calloc((size_t)P, sizeof *in);
    if (!job->send_counts || !job->recv_counts || !in) {
        free(in);
        fprintf(stderr, "a2atrace: out of memory\n");
        return 1;
    }
    long long most_out = 0;
    *largest = 0;
    for (int r = 0; r < P; r++) {
        long long out = 0;
        int *row = job->send_counts + (size_t)r * P;
        for (int j = 0; j < P; j++) {
            long long b = wl_block_bytes(spec, r, j);
            row[j] = (int)b;
            out += b;
            in[j] += b;
            *largest = b > *largest ? b : *largest;
        }
        most_out = out > most_out ? out : most_out;
    }
    long long most_in = 0;
    for (int j = 0; j < P; j++)
        most_in = in[j] > most_in ? in[j] : most_in;
    free(in);
    if (most_out > 2147483647LL || most_in > 2147483647LL) {
        fprintf(stderr, "a2atrace: a rank's blocks exceed 2^31 bytes (MPI int displacements)\n");
        return 2;
    }
    enum { TILE = 64 }; /* the transpose tile by tile: both sides stay in cache */
    for (int r0 = 0; r0 < P; r0 += TILE)
        for (int j0 = 0; j0 < P; j0 += TILE)
            for (int r = r0; r < r0 + TILE && r < P; r++)
                for (int j = j0; j < j0 + TILE && j < P; j++)
                    job->recv_counts[(size_t)j * P + r] = job->send_counts[(size_t)r * P + j];
    return 0;
}

/* Guarantees: the traced world of a non-uniform kernel: every rank's stats line, node 0's
 * trace in *t. Returns 0, 1 (the kernel failed, a deadlock or out of memory; said on
 * stderr) or 2 (a workload the tracer cannot build: bad input). */
static int trace_world(nonuniform_call call, int P, long long S, int Q, const kernel_params *kp,
                       const char *dist, unsigned long long seed, node_trace *t)
{
    memset(t, 0, sizeof *t);
    int d = wl_dist_by_name(dist);
    if (d < 0 || d == WL_DIST_MATRIX || d == WL_DIST_GRAPH || d == WL_DIST_FFT) {
        fprintf(stderr, "a2atrace: --dist %s: not a seeded distribution of workloads/workload.h\n",
                dist);
        return 2;
    }
    wl_spec spec = { (wl_dist)d, WL_PAYLOAD_PATTERN, S, P, seed, { NAN, NAN, NAN, NULL } };
    spec.params = wl_params_effective(S, spec.params);
    world_job job = { call, kp, P, NULL, NULL, NULL, NULL, NULL, NULL };
    long long largest = 0;
    int rc = build_counts(&job, &spec, &largest);
    if (rc == 0) {
        job.zero_displs = calloc((size_t)P, sizeof *job.zero_displs);
        job.sbuf = malloc((size_t)(largest > 0 ? largest : 1));
        job.rbuf = malloc((size_t)(largest > 0 ? largest : 1));
        job.stats = calloc((size_t)P, sizeof *job.stats);
        rc = 1;
        if (!job.zero_displs || !job.sbuf || !job.rbuf || !job.stats) {
            fprintf(stderr, "a2atrace: out of memory\n");
        } else {
            int err = trace_world_run(P, Q, Q, run_world_rank, &job);
            if (err != MPI_SUCCESS)
                fprintf(stderr, "a2atrace: the traced world failed (MPI error %d%s)\n", err,
                        err == MPI_ERR_PENDING ? ": every rank waits" : "");
            else
                rc = 0;
        }
    }
    for (int rank = 0; rc == 0 && rank < P; rank++) {
        long long sends, send_bytes;
        if (rank < Q) {
            trace_world_select(rank);
            if (absorb_rank(t, rank, P, Q, &sends, &send_bytes))
                rc = 1;
        }
        trace_world_sends(rank, &sends, &send_bytes);
        const a2a_stats *st = &job.stats[rank];
        printf("stats %d %lld %lld %lld %lld %lld %lld %lld\n", rank, st->rounds, st->blocks,
               st->bytes, st->messages, sends, send_bytes, st->meta_bytes);
    }
    int reductions = 0;
    const long long *reduced = trace_world_reductions(&reductions);
    for (int i = 0; rc == 0 && i < reductions; i++)
        printf("allreduce %d %lld\n", P, reduced[i]);
    if (rc == 0)
        qsort(t->flows, (size_t)t->flow_count, sizeof(flow), flow_order);
    trace_world_free();
    free(job.send_counts);
    free(job.recv_counts);
    free(job.zero_displs);
    free(job.sbuf);
    free(job.rbuf);
    free(job.stats);
    return rc;
}

/* Guarantees: everything trace_node allocated in t is freed. */
static void node_trace_free(node_trace *t)
{
    free(t->flows);
    free(t->max_sends);
    free(t->max_recvs);
    free(t->max_copy);
}

/* Guarantees: 1 when a and b are the same relative schedule (copy costs may differ by
 * rounding only), else 0 with the first difference on stderr. */
static int same_schedule(const node_trace *a, const node_trace *b, int node)
{
    if (a->epochs != b->epochs || a->flow_count != b->flow_count) {
        fprintf(stderr, "a2atrace: node %d: %lld epochs, %lld sends; node 0: %lld, %lld\n", node,
                b->epochs, b->flow_count, a->epochs, a->flow_count);
        return 0;
    }
    for (long long i = 0; i < a->flow_count; i++)
        if (flow_order(&a->flows[i], &b->flows[i]) != 0) {
            fprintf(stderr, "a2atrace: node %d: send %lld differs from node 0's\n", node, i);
            return 0;
        }
    for (long long e = 0; e < a->epochs; e++)
        if (a->max_sends[e] != b->max_sends[e] || a->max_recvs[e] != b->max_recvs[e]) {
            fprintf(stderr, "a2atrace: node %d: epoch %lld's message counts differ from node "
                            "0's\n", node, e);
            return 0;
        }
    return 1;
}

/* Guarantees: node 0's summary on stdout (see the header comment). */
static void print_summary(const char *kernel, int P, int S, int Q, const node_trace *t)
{
    printf("trace %s %d %d %d %lld\n", kernel, P, S, Q, t->epochs);
    long long i = 0;
    for (long long e = 0; e < t->epochs; e++) {
        printf("epoch %lld %lld %lld %.6e\n", e, t->max_sends[e], t->max_recvs[e], t->max_copy[e]);
        long long end = i;
        while (end < t->flow_count && t->flows[end].epoch == e)
            end++;
        /* every rank of the node sending alike (sorted by local rank: Q equal runs)? */
        long long per = (end - i) / Q;
        int alike = per > 0 && per * Q == end - i;
        for (long long k = i + per; alike && k < end; k++)
            alike = t->flows[k].offset == t->flows[k - per].offset &&
                    t->flows[k].bytes == t->flows[k - per].bytes &&
                    t->flows[k].local == t->flows[k - per].local + 1;
        for (long long k = i; k < end && (!alike || k < i + per);) {
            long long j = k;
            while (j < end && flow_order(&t->flows[k], &t->flows[j]) == 0)
                j++;
            if (alike)
                printf("send %lld * %d %lld %lld\n", e, t->flows[k].offset, t->flows[k].bytes, j - k);
            else
                printf("send %lld %d %d %lld %lld\n", e, t->flows[k].local, t->flows[k].offset,
                       t->flows[k].bytes, j - k);
            k = j;
        }
        i = end;
    }
}

/* Guarantees: *value = the decimal integer text (whole), else 0. */
static int parse_int(const char *text, int *value)
{
    char *end;
    long v = strtol(text, &end, 10);
    if (*text == '\0' || *end != '\0' || v < -1 || v > 1 << 30)
        return 0;
    *value = (int)v;
    return 1;
}

/* Guarantees: the reason and the usage on stderr; returns 2 (bad input). */
static int usage(const char *why)
{
    fprintf(stderr, "a2atrace: %s\nusage: a2atrace KERNEL P S --node-size Q [--radix R] "
                    "[--radix2 R2] [--ppn N] [--block-count B] [--all-nodes] "
                    "[--dist NAME] [--seed N] [--cpu-threshold SECONDS]\n", why);
    return 2;
}

/* Guarantees: the summary of node 0 (see the header comment); exit 0, 1 or 2. */
int main(int argc, char **argv)
{
    if (argc < 4)
        return usage("KERNEL, P and S are required");
    uniform_call call = NULL;
    nonuniform_call world_call = NULL;
    for (size_t k = 0; k < sizeof KERNELS / sizeof KERNELS[0]; k++)
        if (strcmp(argv[1], KERNELS[k].name) == 0)
            call = KERNELS[k].call;
    for (size_t k = 0; k < sizeof NONUNIFORM / sizeof NONUNIFORM[0]; k++)
        if (strcmp(argv[1], NONUNIFORM[k].name) == 0)
            world_call = NONUNIFORM[k].call;
    if (!call && !world_call)
        return usage("unknown kernel (tra, tra2, bruck, spread_out, pairwise, scattered; "
                     "non-uniform: tuna, tuna_staggered, tuna_coalesced, twophase_bruck, "
                     "mpich_selection, ompi_tuned_selection)");
    int P, S, Q = 0, all_nodes = 0, seed = 1;
    const char *dist = "uniform";
    kernel_params kp = { 2, 2, 0, 1 };
    if (!parse_int(argv[2], &P) || P < 1 || !parse_int(argv[3], &S) || S < 0)
        return usage("P must be a positive integer and S a byte count");
    for (int i = 4; i < argc; i++) {
        int *slot = strcmp(argv[i], "--node-size") == 0     ? &Q
                    : strcmp(argv[i], "--radix") == 0       ? &kp.radix
                    : strcmp(argv[i], "--radix2") == 0      ? &kp.radix2
                    : strcmp(argv[i], "--ppn") == 0         ? &kp.ppn
                    : strcmp(argv[i], "--block-count") == 0 ? &kp.block_count
                    : strcmp(argv[i], "--seed") == 0        ? &seed
                                                            : NULL;
        if (strcmp(argv[i], "--all-nodes") == 0)
            all_nodes = 1;
        else if (strcmp(argv[i], "--cpu-threshold") == 0 && i + 1 < argc) {
            /* SimGrid's smpi/cpu-threshold: shorter copy charges are discarded */
            char *end;
            double seconds = strtod(argv[++i], &end);
            if (*argv[i] == '\0' || *end != '\0' || seconds != seconds)
                return usage("--cpu-threshold takes seconds");
            trace_cpu_threshold(seconds);
        }
        else if (strcmp(argv[i], "--dist") == 0 && i + 1 < argc)
            dist = argv[++i];
        else if (!slot || i + 1 == argc || !parse_int(argv[++i], slot))
            return usage("bad option or value");
    }
    if (Q < 1 || P % Q != 0)
        return usage("--node-size must divide P (whole nodes)");
    if (world_call && all_nodes)
        return usage("--all-nodes: a non-uniform kernel's nodes differ (their blocks do)");
    if (strcmp(argv[1], "tra2") == 0 && kp.ppn <= 0)
        kp.ppn = Q;
    /* copies are charged, never made: the schedules of these kernels do not depend on
     * the payload, and the buffers of P = 16,384 are never touched */
    setenv("A2A_SIM_COPY_SKIP", "1", 0);
    node_trace first;
    int rc;
    if (world_call) {
        rc = trace_world(world_call, P, S, Q, &kp, dist, (unsigned long long)seed, &first);
        if (rc == 0)
            print_summary(argv[1], P, S, Q, &first);
        node_trace_free(&first);
        return rc;
    }
    size_t bytes = (size_t)P * (size_t)S;
    char *sbuf = malloc(bytes ? bytes : 1), *rbuf = malloc(bytes ? bytes : 1);
    if (!sbuf || !rbuf)
        return usage("cannot allocate the buffers of P x S bytes");
    rc = trace_node(call, P, S, Q, 0, &kp, sbuf, rbuf, 1, &first);
    for (int node = 1; rc == 0 && all_nodes && node < P / Q; node++) {
        node_trace other;
        rc = trace_node(call, P, S, Q, node, &kp, sbuf, rbuf, 0, &other);
        if (rc == 0 && !same_schedule(&first, &other, node))
            rc = 1;
        node_trace_free(&other);
    }
    if (rc == 0) {
        print_summary(argv[1], P, S, Q, &first);
        if (all_nodes)
            printf("symmetric %d\n", P / Q);
    }
    node_trace_free(&first);
    free(sbuf);
    free(rbuf);
    return rc;
}
