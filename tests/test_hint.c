/* ranks: 16, mpich: 3 */
/*
 * test_hint.c — the HINT kernel (a2a_hint.h) against MPI_Alltoall.
 *
 *   mpirun -n N ./test_hint [max_P]                   the correctness matrix
 *   mpirun -n N ./test_hint --check-tuning FILE       the kernel obeys a tuning file
 *
 * Matrix: for every P in {1..9, 12, 16} up to max_P (default N; a sub-communicator of the
 * first P ranks, the others wait in a sleeping barrier) and S in {0, 1, 63, 4096, 1 MiB}
 * bytes per block, with send and receive buffers in one A2A_Hint_alloc window:
 *   - every order (row, column, hilbert, tuned, auto) with the runtime threshold search,
 *     and the fixed orders also with threshold 64 (nearly all non-temporal) and INT_MAX
 *     (all temporal); auto over its whole trial sequence (12 calls) where affordable; the
 *     runtime search over 20 calls at 4 KiB (and 1 MiB for P <= 4);
 *   - the multi-node extension: every virtual ppn dividing P (1 <= ppn < P) for S = 1 and
 *     4 KiB, and 64 KiB blocks at P = 8 with ppn 2 and 4;
 *   - MPI_INT blocks (count S/4);
 *   each call: the receive buffer is poisoned first and then equals MPI_Alltoall's byte
 *   for byte, the 64 bytes after it are untouched, the send buffer is unchanged, the call
 *   returns MPI_SUCCESS; stats: blocks summed over ranks = Q(Q-1) per node plus one per
 *   inter-node message, messages = P - Q per rank; tuned calls use the rule of the test's
 *   own tuning file (checked with A2A_Hint_last_choice), a settled auto call one of the
 *   three orders.
 * Errors (every rank gets MPI_ERR_ARG and no receive buffer is touched): private buffers,
 * one rank's private receive buffer, windows that do not hold the node (allocated over
 * MPI_COMM_SELF), order = tuned without A2A_HINT_TUNING_FILE or with a broken file, order
 * 0 and 6, threshold -1, ppn -1, ppn not dividing P; a good call still works afterwards.
 * One line per failure, a line per P, a summary; exit status 0 only if everything passed.
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep, setenv, mkstemp */
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "a2a.h"
#include "polite.h"
#include "test_common.h"

#define GUARD 64
#define MAX_S (1 << 20)

static int world_rank;
static long long checks, failures;

/* Counts a check on this rank; prints the first failures. */
static void check(int ok, const char *label, const char *what)
{
    checks++;
    if (ok)
        return;
    failures++;
    if (failures <= 12)
        printf("FAIL rank %d: %s: %s\n", world_rank, label, what);
}

static unsigned char payload(int src, int dst, size_t i)
{
    return (unsigned char)(src * 131 + dst * 17 + i * 7 + (i >> 9) + 1);
}

static unsigned char poison_byte(size_t i) { return (unsigned char)(0x5A ^ (i * 13)); }

/* One sub-communicator's buffers. */
typedef struct ctx {
    MPI_Comm comm;
    int P, rank;
    char *base;               /* the window segment */
    unsigned char *sbuf, *rbuf; /* inside it: P * MAX_S each (+ guard for rbuf) */
    unsigned char *pristine, *vendor;
    size_t S;
} ctx;

static void fill_send(ctx *x)
{
    for (int d = 0; d < x->P; d++)
        for (size_t i = 0; i < x->S; i++)
            x->sbuf[(size_t)d * x->S + i] = payload(x->rank, d, i);
    memcpy(x->pristine, x->sbuf, (size_t)x->P * x->S);
}

/* Fills buf[i] = poison_byte(i) (period 256: copied in 4 KiB pieces). */
static void poison(unsigned char *buf, size_t n)
{
    static unsigned char pattern[4096];
    if (pattern[0] != poison_byte(0) || pattern[1] != poison_byte(1))
        for (size_t i = 0; i < sizeof pattern; i++)
            pattern[i] = poison_byte(i);
    for (size_t at = 0; at < n; at += sizeof pattern)
        memcpy(buf + at, pattern, n - at < sizeof pattern ? n - at : sizeof pattern);
}

/* The vendor reference for the current S (checked against the payload itself). */
static void make_reference(ctx *x, const char *label)
{
    size_t n = (size_t)x->P * x->S;
    poison(x->vendor, n + GUARD);
    int err = MPI_Alltoall(x->sbuf, (int)x->S, MPI_BYTE, x->vendor, (int)x->S, MPI_BYTE, x->comm);
    int ok = err == MPI_SUCCESS;
    for (int s = 0; s < x->P && ok; s++)
        for (size_t i = 0; i < x->S && ok; i++)
            ok = x->vendor[(size_t)s * x->S + i] == payload(s, x->rank, i);
    check(ok, label, "MPI_Alltoall itself did not deliver the payload");
}

/* Sums v over the communicator. */
static long long sum_over(ctx *x, long long v)
{
    long long total = 0;
    MPI_Allreduce(&v, &total, 1, MPI_LONG_LONG, MPI_SUM, x->comm);
    return total;
}

/* Runs the kernel `calls` times with these arguments and checks each call. expected_order:
 * the order A2A_Hint_last_choice must report after the calls (0: any of 1..3, -1: none). */
static void run_case(ctx *x, const char *what, int order, int threshold, int ppn, int calls,
                     MPI_Datatype type, int expected_order)
{
    char label[200];
    snprintf(label, sizeof label, "P=%d S=%zu %s order=%d threshold=%d ppn=%d", x->P, x->S, what,
             order, threshold, ppn);
    int tsize;
    MPI_Type_size(type, &tsize);
    int count = (int)(x->S / (size_t)tsize);
    size_t n = (size_t)x->P * x->S;
    int Q = ppn > 0 ? ppn : x->P;
    for (int call = 0; call < calls; call++) {
        poison(x->rbuf, n + GUARD);
        a2a_stats st = { 0 };
        int err = A2A_Alltoall_hint(x->sbuf, count, type, x->rbuf, count, type, x->comm, order,
                                    threshold, ppn, &st);
        char what_failed[160];
        snprintf(what_failed, sizeof what_failed, "call %d returned %d", call, err);
        check(err == MPI_SUCCESS, label, what_failed);
        long long at = -1;
        if (n && memcmp(x->rbuf, x->vendor, n) != 0)
            for (size_t i = 0; i < n && at < 0; i++)
                if (x->rbuf[i] != x->vendor[i])
                    at = (long long)i;
        snprintf(what_failed, sizeof what_failed, "call %d: receive byte %lld (block from rank "
                 "%lld) differs from MPI_Alltoall's", call, at, x->S ? at / (long long)x->S : 0);
        check(at < 0, label, what_failed);
        int guard_ok = 1;
        for (size_t i = n; i < n + GUARD; i++)
            guard_ok &= x->rbuf[i] == poison_byte(i);
        check(guard_ok, label, "wrote past the receive buffer");
        check(memcmp(x->sbuf, x->pristine, n) == 0, label, "wrote to the send buffer");
        if (call == 0 && err == MPI_SUCCESS && x->S > 0) {
            long long blocks = sum_over(x, st.blocks), messages = st.messages;
            long long nodes = x->P / Q;
            long long want = nodes * Q * (long long)(Q - 1) + (long long)x->P * (x->P - Q);
            snprintf(what_failed, sizeof what_failed, "stats: %lld blocks over all ranks, "
                     "expected %lld; %lld messages, expected %d", blocks, want, messages,
                     x->P - Q);
            check(blocks == want && messages == x->P - Q, label, what_failed);
        }
    }
    if (expected_order >= 0 && x->S > 0 && calls > 0) {
        int used = 0;
        long long t = 0;
        int err = A2A_Hint_last_choice(x->comm, ppn, &used, &t);
        char text[120];
        snprintf(text, sizeof text, "last choice: order %d (err %d), expected %d", used, err,
                 expected_order);
        check(err == MPI_SUCCESS && (expected_order ? used == expected_order
                                                    : used >= 1 && used <= 3), label, text);
    }
}

/* A call that must fail with MPI_ERR_ARG on every rank without touching any receive buffer. */
static void expect_refusal(ctx *x, const char *what, const void *sbuf, void *rbuf, int order,
                           int threshold, int ppn)
{
    char label[200];
    snprintf(label, sizeof label, "P=%d S=%zu refusal: %s", x->P, x->S, what);
    size_t n = (size_t)x->P * x->S;
    poison(rbuf, n);
    int err = A2A_Alltoall_hint(sbuf, (int)x->S, MPI_BYTE, rbuf, (int)x->S, MPI_BYTE, x->comm,
                                order, threshold, ppn, NULL);
    char text[80];
    snprintf(text, sizeof text, "returned %d, expected MPI_ERR_ARG (%d)", err, MPI_ERR_ARG);
    check(err == MPI_ERR_ARG, label, text);
    int untouched = 1;
    for (size_t i = 0; i < n; i++)
        untouched &= ((unsigned char *)rbuf)[i] == poison_byte(i);
    check(untouched, label, "a receive buffer was written");
}

/* Writes the test's tuning file: for every P, S <= 63 column (runtime threshold), 64..65535
 * hilbert (all temporal), from 64 KiB on row (given by its number) with threshold 4096. */
static void write_tuning_file(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    fprintf(f, "{\"format\": \"a2atune-hint-tuning\", \"version\": 1, \"rules\": [\n");
    for (int P = 1; P <= 64; P++)
        fprintf(f, "%s {\"P\": %d, \"S_min\": 0, \"S_max\": 63, \"order\": \"column\", "
                "\"threshold\": 0},\n {\"P\": %d, \"S_min\": 64, \"S_max\": 65535, \"order\": "
                "\"hilbert\", \"threshold\": 2147483647},\n {\"P\": %d, \"S_min\": 65536, "
                "\"S_max\": null, \"order\": 1, \"threshold\": 4096}", P > 1 ? ",\n" : "", P, P, P);
    fprintf(f, "\n]}\n");
    fclose(f);
}

static int tuned_order_for(size_t S) { return S <= 63 ? 2 : S <= 65535 ? 3 : 1; }

/* Everything at one P. */
static void test_P(ctx *x, const char *tuning_path, const char *broken_path)
{
    static const size_t sizes[] = { 0, 1, 63, 4096, MAX_S };
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        x->S = sizes[k];
        fill_send(x);
        char label[64];
        snprintf(label, sizeof label, "P=%d S=%zu vendor", x->P, x->S);
        make_reference(x, label);
        int big = x->S >= MAX_S && x->P > 4;
        for (int order = 1; order <= 3; order++) {
            run_case(x, "fixed", order, 0, 0, 1, MPI_BYTE, x->P > 1 ? order : -1);
            run_case(x, "fixed", order, 64, 0, 1, MPI_BYTE, -1);
            run_case(x, "fixed", order, INT_MAX, 0, 1, MPI_BYTE, -1);
        }
        run_case(x, "tuned", 4, 0, 0, 1, MPI_BYTE, x->P > 1 ? tuned_order_for(x->S) : -1);
        run_case(x, "auto", 5, 0, 0, big ? 2 : 12, MPI_BYTE, big || x->P == 1 ? -1 : 0);
        if (x->S == 4096 || (x->S == MAX_S && x->P <= 4))
            run_case(x, "search", 2, 0, 0, 20, MPI_BYTE, x->P > 1 ? 2 : -1);
        if (x->S == 4096 || x->S == 1) {
            for (int q = 1; q < x->P; q++)
                if (x->P % q == 0)
                    for (int order = 1; order <= 3; order++)
                        run_case(x, "virtual nodes", order, 0, q, 1, MPI_BYTE, -1);
            if (x->S == 4096) {
                run_case(x, "int", 3, 0, 0, 1, MPI_INT, -1);
                if (x->P % 2 == 0)
                    run_case(x, "int, virtual nodes", 1, 128, 2, 1, MPI_INT, -1);
            }
        }
        if (x->S == 4096 && x->P > 1) {
            /* refusals: the receive buffers must stay poisoned everywhere */
            size_t n = (size_t)x->P * x->S;
            unsigned char *priv_s = malloc(n), *priv_r = malloc(n + GUARD);
            memcpy(priv_s, x->sbuf, n);
            expect_refusal(x, "private buffers", priv_s, priv_r, 1, 0, 0);
            expect_refusal(x, "one private receive buffer", x->sbuf,
                           x->rank == x->P - 1 ? priv_r : x->rbuf, 3, 0, 0);
            void *self_s = NULL, *self_r = NULL;
            A2A_Hint_alloc(MPI_COMM_SELF, (MPI_Aint)n, &self_s);
            A2A_Hint_alloc(MPI_COMM_SELF, (MPI_Aint)n, &self_r);
            memcpy(self_s, x->sbuf, n);
            expect_refusal(x, "windows of single ranks", self_s, self_r, 2, 0, 0);
            A2A_Hint_free(self_r);
            A2A_Hint_free(self_s);
            const char *saved = getenv("A2A_HINT_TUNING_FILE");
            char keep[512];
            snprintf(keep, sizeof keep, "%s", saved ? saved : "");
            /* the file is read when a combination of block size, buffers and arguments is
             * new: threshold 7 and 9 make new ones */
            unsetenv("A2A_HINT_TUNING_FILE");
            expect_refusal(x, "tuned without a file", x->sbuf, x->rbuf, 4, 7, 0);
            setenv("A2A_HINT_TUNING_FILE", broken_path, 1);
            expect_refusal(x, "tuned with a broken file", x->sbuf, x->rbuf, 4, 9, 0);
            setenv("A2A_HINT_TUNING_FILE", keep, 1);
            expect_refusal(x, "order 0", x->sbuf, x->rbuf, 0, 0, 0);
            expect_refusal(x, "order 6", x->sbuf, x->rbuf, 6, 0, 0);
            expect_refusal(x, "threshold -1", x->sbuf, x->rbuf, 1, -1, 0);
            expect_refusal(x, "ppn -1", x->sbuf, x->rbuf, 1, 0, -1);
            for (int q = 2; q < x->P; q++)
                if (x->P % q != 0) {
                    expect_refusal(x, "ppn not dividing P", x->sbuf, x->rbuf, 1, 0, q);
                    break;
                }
            free(priv_s);
            free(priv_r);
            run_case(x, "after the refusals", 4, 0, 0, 1, MPI_BYTE, tuned_order_for(x->S));
        }
        if (x->S == 4096 && x->P == 8) { /* larger inter-node messages */
            x->S = 65536;
            fill_send(x);
            make_reference(x, "P=8 S=65536 vendor");
            run_case(x, "virtual nodes", 3, 0, 2, 2, MPI_BYTE, -1);
            run_case(x, "virtual nodes", 2, 1024, 4, 2, MPI_BYTE, -1);
        }
    }
    (void)tuning_path;
}

/* --check-tuning: for every rule of the file (P <= world), the tuned kernel at S_min and
 * S_max (when finite, capped at 1 MiB) picks the rule's order (and its threshold when
 * fixed) and delivers MPI_Alltoall's result. */
static int check_tuning(const char *path, int world_size)
{
    json_error_t jerr;
    json_t *root = json_load_file(path, 0, &jerr);
    json_t *rules = root ? json_object_get(root, "rules") : NULL;
    if (!json_is_array(rules) || json_array_size(rules) == 0) {
        if (world_rank == 0)
            printf("FAIL %s: no rules (%s)\n", path, root ? "empty" : jerr.text);
        json_decref(root);
        return 1;
    }
    setenv("A2A_HINT_TUNING_FILE", path, 1);
    size_t i;
    json_t *rule;
    int tested = 0;
    json_array_foreach(rules, i, rule) {
        int P = (int)json_integer_value(json_object_get(rule, "P"));
        if (P < 2 || P > world_size)
            continue;
        long long lo = json_integer_value(json_object_get(rule, "S_min"));
        json_t *hi_v = json_object_get(rule, "S_max");
        long long hi = json_is_integer(hi_v) ? json_integer_value(hi_v) : lo;
        const char *name = json_string_value(json_object_get(rule, "order"));
        int order = !name ? 0 : !strcmp(name, "row") ? 1 : !strcmp(name, "column") ? 2
                                : !strcmp(name, "hilbert") ? 3 : 0;
        long long threshold = json_integer_value(json_object_get(rule, "threshold"));
        MPI_Comm comm = test_first_ranks(P, world_rank);
        if (comm == MPI_COMM_NULL)
            continue;
        ctx x = { .comm = comm, .P = P };
        MPI_Comm_rank(comm, &x.rank);
        long long sizes[2] = { lo, hi > MAX_S ? MAX_S : hi };
        size_t most = (size_t)(sizes[1] > sizes[0] ? sizes[1] : sizes[0]);
        A2A_Hint_alloc(comm, (MPI_Aint)(2 * P * most + GUARD), (void **)&x.base);
        x.sbuf = (unsigned char *)x.base;
        x.rbuf = x.sbuf + (size_t)P * most;
        x.pristine = malloc((size_t)P * most + 1);
        x.vendor = malloc((size_t)P * most + GUARD);
        for (int k = 0; k < 2; k++) {
            if (k == 1 && sizes[1] == sizes[0])
                break;
            x.S = (size_t)sizes[k];
            fill_send(&x);
            make_reference(&x, "check-tuning vendor");
            char what[120];
            snprintf(what, sizeof what, "rule %zu (%s, threshold %lld)", i, name ? name : "?",
                     threshold);
            run_case(&x, what, 4, 0, 0, 1, MPI_BYTE, x.S > 0 ? order : -1);
            int used = 0;
            long long t = 0;
            if (x.S > 0 && threshold > 0 &&
                A2A_Hint_last_choice(comm, 0, &used, &t) == MPI_SUCCESS) {
                long long want = threshold >= (long long)x.S ? -1 : threshold;
                char text[120];
                snprintf(text, sizeof text, "threshold used %lld, the rule gives %lld", t, want);
                check(t == want, what, text);
            }
            tested++;
        }
        A2A_Hint_free(x.base);
        free(x.pristine);
        free(x.vendor);
        test_done_ranks(&comm);
    }
    size_t nrules = json_array_size(rules);
    json_decref(root);
    long long failed = 0, all_checks = 0;
    MPI_Reduce(&failures, &failed, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&checks, &all_checks, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Bcast(&failed, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    MPI_Bcast(&tested, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (world_rank == 0)
        printf("test_hint --check-tuning %s: %d sizes of %zu rules, %lld checks, %lld failed\n",
               path, tested, nrules, all_checks, failed);
    return failed == 0 && tested > 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    int world_size = test_init(&argc, &argv, &world_rank);
    if (argc > 2 && strcmp(argv[1], "--check-tuning") == 0) {
        int rc = check_tuning(argv[2], world_size);
        MPI_Finalize();
        return rc;
    }
    int max_P = test_max_ranks(argc, argv, world_size);

    /* the test's own tuning file and a broken one, made by rank 0, used by all */
    char paths[2][64] = { "/tmp/a2a-hint-tuning.XXXXXX", "/tmp/a2a-hint-broken.XXXXXX" };
    if (world_rank == 0)
        for (int i = 0; i < 2; i++) {
            int fd = mkstemp(paths[i]);
            if (fd >= 0)
                close(fd);
        }
    MPI_Bcast(paths, sizeof paths, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (world_rank == 0) {
        write_tuning_file(paths[0]);
        FILE *f = fopen(paths[1], "w");
        if (f) {
            fputs("{\"format\": \"a2atune-hint-tuning\", \"version\": 1, \"rules\": [ {\"P\": 2,"
                  " \"S_min\": 0, \"order\": \"spiral\", \"threshold\": 0} ]}\n", f);
            fclose(f);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    setenv("A2A_HINT_TUNING_FILE", paths[0], 1);

    static const int Ps[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16 };
    double start = MPI_Wtime();
    for (size_t ip = 0; ip < sizeof Ps / sizeof Ps[0]; ip++) {
        int P = Ps[ip];
        if (P > max_P)
            break;
        MPI_Comm comm = test_first_ranks(P, world_rank);
        if (comm == MPI_COMM_NULL)
            continue;
        ctx x = { .comm = comm, .P = P };
        MPI_Comm_rank(comm, &x.rank);
        size_t span = (size_t)P * MAX_S;
        int err = A2A_Hint_alloc(comm, (MPI_Aint)(2 * span + GUARD), (void **)&x.base);
        check(err == MPI_SUCCESS && x.base, "A2A_Hint_alloc", "failed");
        x.sbuf = (unsigned char *)x.base;
        x.rbuf = x.sbuf + span;
        x.pristine = malloc(span);
        x.vendor = malloc(span + GUARD);
        if (err == MPI_SUCCESS && x.pristine && x.vendor)
            test_P(&x, paths[0], paths[1]);
        check(A2A_Hint_free(x.base) == MPI_SUCCESS, "A2A_Hint_free", "failed");
        check(A2A_Hint_free(x.base) == MPI_ERR_ARG, "A2A_Hint_free twice", "not refused");
        free(x.pristine);
        free(x.vendor);
        MPI_Comm_free(&comm);
        if (world_rank == 0) {
            printf("P=%d done (%lld checks on rank 0, %lld failed, %.1f s)\n", P, checks,
                   failures, MPI_Wtime() - start);
            fflush(stdout);
        }
        polite_barrier(MPI_COMM_WORLD);
    }
    /* the kernel on MPI_COMM_WORLD itself: its cached state goes with MPI_Finalize */
    {
        ctx x = { .comm = MPI_COMM_WORLD, .P = world_size, .rank = world_rank, .S = 64 };
        size_t span = (size_t)world_size * 64;
        A2A_Hint_alloc(MPI_COMM_WORLD, (MPI_Aint)(2 * span + GUARD), (void **)&x.base);
        x.sbuf = (unsigned char *)x.base;
        x.rbuf = x.sbuf + span;
        x.pristine = malloc(span);
        x.vendor = malloc(span + GUARD);
        fill_send(&x);
        make_reference(&x, "world vendor");
        run_case(&x, "world", 3, 0, 0, 2, MPI_BYTE, -1);
        A2A_Hint_free(x.base);
        free(x.pristine);
        free(x.vendor);
    }

    long long failed = 0, all_checks = 0;
    MPI_Reduce(&failures, &failed, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&checks, &all_checks, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Bcast(&failed, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    if (world_rank == 0) {
        printf("test_hint: %lld passed, %lld failed (P up to %d, %.1f s)\n", all_checks - failed,
               failed, max_P, MPI_Wtime() - start);
        unlink(paths[0]);
        unlink(paths[1]);
    }
    MPI_Finalize();
    return failed == 0 ? 0 : 1;
}
