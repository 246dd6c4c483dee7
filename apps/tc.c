/* tc.c — the distributed transitive closure (see tc.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "a2a.h"
#include "tc.h"
#include "tuple_set.h"

/* Guarantees: n bytes (at least 1) or the whole job ends: a rank that cannot hold its
 * part of the closure cannot continue alone. */
static void *must_alloc(void *p, size_t n, MPI_Comm comm)
{
    if (!p && n) {
        fprintf(stderr, "a2atune: transitive closure: out of memory (%zu bytes)\n", n);
        MPI_Abort(comm, 1);
    }
    return p;
}

/* Guarantees: see tc.h. */
int tc_local_build(const graph *g, int P, int rank, tc_local *out)
{
    memset(out, 0, sizeof *out);
    out->P = P;
    out->rank = rank;
    out->vertices = g->vertices;
    out->offset = calloc((size_t)g->vertices + 1, sizeof *out->offset);
    long long mine = 0, incoming = 0;
    for (long long e = 0; e < g->edges; e++) {
        mine += graph_owner(g->src[e], P) == rank;
        incoming += graph_owner(g->dst[e], P) == rank;
    }
    out->targets = malloc((size_t)(mine ? mine : 1) * sizeof *out->targets);
    out->initial = malloc((size_t)(incoming ? incoming : 1) * sizeof *out->initial);
    if (!out->offset || !out->targets || !out->initial) {
        tc_local_free(out);
        return -1;
    }
    for (long long e = 0; e < g->edges; e++)
        if (graph_owner(g->src[e], P) == rank)
            out->offset[g->src[e] + 1]++;
    for (uint32_t v = 0; v < g->vertices; v++)
        out->offset[v + 1] += out->offset[v];
    long long at = 0;
    for (long long e = 0; e < g->edges; e++) { /* edges are sorted: targets stay sorted */
        if (graph_owner(g->src[e], P) == rank)
            out->targets[at++] = g->dst[e];
        if (graph_owner(g->dst[e], P) == rank)
            out->initial[out->ninitial++] = graph_tuple(g->src[e], g->dst[e]);
    }
    return 0;
}

/* Guarantees: releases l's arrays; l is left empty. */
void tc_local_free(tc_local *l)
{
    free(l->offset);
    free(l->targets);
    free(l->initial);
    memset(l, 0, sizeof *l);
}

/* A growable array of tuples. */
typedef struct tuples {
    uint64_t *v;
    long long n, cap;
} tuples;

/* Guarantees: t appended to a (growing it; out of memory ends the job). */
static void tuples_push(tuples *a, uint64_t t, MPI_Comm comm)
{
    if (a->n == a->cap) {
        a->cap = a->cap ? 2 * a->cap : 1024;
        a->v = must_alloc(realloc(a->v, (size_t)a->cap * sizeof *a->v),
                          (size_t)a->cap * sizeof *a->v, comm);
    }
    a->v[a->n++] = t;
}

/* Guarantees: see tc.h. Every rank takes part in every iteration (the loop ends on a
 * global decision), so a rank with nothing to send still joins the exchange. */
int tc_run(const tc_local *local, MPI_Comm comm, const tc_options *opt, tc_outcome *out)
{
    memset(out, 0, sizeof *out);
    const int P = local->P;
    double t_start = MPI_Wtime();
    tuple_set closure, produced;
    tuple_set_init(&closure);
    tuple_set_init(&produced);
    tuples delta = { 0 }, generated = { 0 }, next = { 0 };
    int *scounts = must_alloc(calloc((size_t)P, sizeof(int)), (size_t)P * sizeof(int), comm);
    int *sdispls = must_alloc(calloc((size_t)P, sizeof(int)), (size_t)P * sizeof(int), comm);
    int *rcounts = must_alloc(calloc((size_t)P, sizeof(int)), (size_t)P * sizeof(int), comm);
    int *rdispls = must_alloc(calloc((size_t)P, sizeof(int)), (size_t)P * sizeof(int), comm);
    int *fill = must_alloc(calloc((size_t)P, sizeof(int)), (size_t)P * sizeof(int), comm);
    long long record_cap = 0;
    /* never NULL, even when nothing is sent: kernels may pass them to memcpy */
    long long scap = 1, rcap = 1;
    uint64_t *sbuf = must_alloc(malloc(sizeof *sbuf), sizeof *sbuf, comm);
    uint64_t *rbuf = must_alloc(malloc(sizeof *rbuf), sizeof *rbuf, comm);
    int rc = MPI_SUCCESS;

    for (long long i = 0; i < local->ninitial; i++) {
        if (tuple_set_insert(&closure, local->initial[i]) < 0)
            must_alloc(NULL, 1, comm);
        tuples_push(&delta, local->initial[i], comm);
    }
    for (;;) {
        /* join Δ with the edges, deduplicating what this rank produces */
        tuple_set_clear(&produced);
        generated.n = 0;
        memset(scounts, 0, (size_t)P * sizeof *scounts);
        for (long long i = 0; i < delta.n; i++) {
            uint32_t a = graph_tuple_first(delta.v[i]), b = graph_tuple_second(delta.v[i]);
            for (long long k = local->offset[b]; k < local->offset[b + 1]; k++) {
                uint32_t c = local->targets[k];
                uint64_t t = graph_tuple(a, c);
                int fresh = tuple_set_insert(&produced, t);
                if (fresh < 0)
                    must_alloc(NULL, 1, comm);
                if (fresh) {
                    tuples_push(&generated, t, comm);
                    scounts[graph_owner(c, P)]++;
                }
            }
        }
        /* pack by owner and shuffle */
        long long at = 0;
        for (int j = 0; j < P; j++) {
            sdispls[j] = (int)at;
            fill[j] = (int)at;
            at += scounts[j];
            if (scounts[j] > out->max_block)
                out->max_block = scounts[j];
            if (j != local->rank)
                out->tuples_moved += scounts[j];
        }
        out->tuples_sent += at;
        if (at > scap) {
            scap = at;
            free(sbuf);
            sbuf = must_alloc(malloc((size_t)scap * sizeof *sbuf), (size_t)scap * sizeof *sbuf, comm);
        }
        for (long long i = 0; i < generated.n; i++)
            sbuf[fill[graph_owner(graph_tuple_second(generated.v[i]), P)]++] = generated.v[i];
        if (opt->record) {
            if (out->iterations == record_cap) {
                record_cap = record_cap ? 2 * record_cap : 16;
                size_t bytes = (size_t)record_cap * (size_t)P * sizeof *out->sendcounts;
                out->sendcounts = must_alloc(realloc(out->sendcounts, bytes), bytes, comm);
            }
            for (int j = 0; j < P; j++)
                out->sendcounts[(size_t)out->iterations * (size_t)P + (size_t)j] = scounts[j];
        }
        double t0 = MPI_Wtime();
        MPI_Alltoall(scounts, 1, MPI_INT, rcounts, 1, MPI_INT, comm);
        out->counts_s += MPI_Wtime() - t0;
        long long rtotal = 0;
        for (int j = 0; j < P; j++) {
            rdispls[j] = (int)rtotal;
            rtotal += rcounts[j];
        }
        if (rtotal > rcap) {
            rcap = rtotal;
            free(rbuf);
            rbuf = must_alloc(malloc((size_t)rcap * sizeof *rbuf), (size_t)rcap * sizeof *rbuf, comm);
        }
        t0 = MPI_Wtime();
        int call = opt->kernel ? opt->kernel->call.nonuniform(sbuf, scounts, sdispls, MPI_UINT64_T,
                                                              rbuf, rcounts, rdispls, MPI_UINT64_T,
                                                              comm, opt->params, NULL)
                               : A2A_Alltoallv(sbuf, scounts, sdispls, MPI_UINT64_T, rbuf, rcounts,
                                               rdispls, MPI_UINT64_T, comm);
        out->comm_s += MPI_Wtime() - t0;
        out->iterations++;
        /* keep what is new: the next Δ */
        next.n = 0;
        if (call == MPI_SUCCESS)
            for (long long i = 0; i < rtotal; i++) {
                int fresh = tuple_set_insert(&closure, rbuf[i]);
                if (fresh < 0)
                    must_alloc(NULL, 1, comm);
                if (fresh)
                    tuples_push(&next, rbuf[i], comm);
            }
        tuples swap = delta;
        delta = next;
        next = swap;
        long long mine[2] = { delta.n, call != MPI_SUCCESS }, all[2];
        MPI_Allreduce(mine, all, 2, MPI_LONG_LONG, MPI_SUM, comm);
        if (all[1]) {
            rc = call != MPI_SUCCESS ? call : MPI_ERR_OTHER;
            break;
        }
        if (all[0] == 0)
            break;
    }
    out->total_s = MPI_Wtime() - t_start;

    /* the fingerprint of T, outside the timing */
    long long mine = (long long)closure.count;
    uint64_t h[2] = { 0, 0 };
    for (size_t i = 0; i < closure.capacity; i++)
        if (closure.slots[i] != UINT64_MAX) {
            h[0] += tc_hash_term(closure.slots[i], 0);
            h[1] += tc_hash_term(closure.slots[i], 1);
        }
    MPI_Allreduce(&mine, &out->paths, 1, MPI_LONG_LONG, MPI_SUM, comm);
    MPI_Allreduce(h, out->hash, 2, MPI_UINT64_T, MPI_SUM, comm);

    tuple_set_free(&closure);
    tuple_set_free(&produced);
    free(delta.v);
    free(generated.v);
    free(next.v);
    free(scounts);
    free(sdispls);
    free(rcounts);
    free(rdispls);
    free(fill);
    free(sbuf);
    free(rbuf);
    return rc;
}
