/* ranks: 4 */
/* test_validation.c — the runner must catch broken kernels. Each deliberately broken
 * kernel below reproduces a class of bug (wrong byte, overrun into a gap, writes to the
 * send buffer, "visited" flags in the receive buffer, dropped all-zero messages, errors,
 * corruption only in later calls); the runner must record each as wrong or error, and a
 * correct kernel as ok. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runner.h"

static int call_count;

static int correct(const void *sb, const int *sc, const int *sd, MPI_Datatype st, void *rb,
                   const int *rc, const int *rd, MPI_Datatype rt, MPI_Comm c, const int *p,
                   a2a_stats *s)
{
    (void)p;
    return A2A_Alltoallv_spread_out(sb, sc, sd, st, rb, rc, rd, rt, c, s);
}

/* One byte of the last non-empty received block is off on the last rank. */
static int flips_a_byte(const void *sb, const int *sc, const int *sd, MPI_Datatype st, void *rb,
                        const int *rc, const int *rd, MPI_Datatype rt, MPI_Comm c, const int *p,
                        a2a_stats *s)
{
    int rank, size, err = correct(sb, sc, sd, st, rb, rc, rd, rt, c, p, s);
    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &size);
    for (int j = size - 1; j >= 0 && rank == size - 1; j--)
        if (rc[j] > 0) {
            ((unsigned char *)rb)[rd[j]] ^= 1;
            break;
        }
    return err;
}

/* Writes one byte just past the last received block (into the guard). */
static int overruns(const void *sb, const int *sc, const int *sd, MPI_Datatype st, void *rb,
                    const int *rc, const int *rd, MPI_Datatype rt, MPI_Comm c, const int *p,
                    a2a_stats *s)
{
    int size, err = correct(sb, sc, sd, st, rb, rc, rd, rt, c, p, s);
    MPI_Comm_size(c, &size);
    ((unsigned char *)rb)[rd[size - 1] + rc[size - 1]] = 0;
    return err;
}

/* Scribbles on its send buffer after sending. */
static int writes_send_buffer(const void *sb, const int *sc, const int *sd, MPI_Datatype st,
                              void *rb, const int *rc, const int *rd, MPI_Datatype rt, MPI_Comm c,
                              const int *p, a2a_stats *s)
{
    int size, err = correct(sb, sc, sd, st, rb, rc, rd, rt, c, p, s);
    MPI_Comm_size(c, &size);
    for (int j = 0; j < size; j++)
        if (sc[j] > 0) {
            ((unsigned char *)sb)[sd[j]] ^= 0xff;
            break;
        }
    return err;
}

/* Uses the receive buffer as "visited" flags: a block whose first byte is non-zero is
 * taken as already received. Works only on a zeroed receive buffer. */
static int visited_flags(const void *sb, const int *sc, const int *sd, MPI_Datatype st, void *rb,
                         const int *rc, const int *rd, MPI_Datatype rt, MPI_Comm c, const int *p,
                         a2a_stats *s)
{
    int size;
    MPI_Comm_size(c, &size);
    int total = rd[size - 1] + rc[size - 1];
    unsigned char *tmp = malloc((size_t)total + 1);
    int err = correct(sb, sc, sd, st, tmp, rc, rd, rt, c, p, s);
    for (int j = 0; j < size; j++)
        if (rc[j] > 0 && ((unsigned char *)rb)[rd[j]] == 0)
            memcpy((unsigned char *)rb + rd[j], tmp + rd[j], (size_t)rc[j]);
    free(tmp);
    return err;
}

/* Detects arrivals by non-zero content: all-zero blocks are never delivered. */
static int drops_zero_blocks(const void *sb, const int *sc, const int *sd, MPI_Datatype st,
                             void *rb, const int *rc, const int *rd, MPI_Datatype rt, MPI_Comm c,
                             const int *p, a2a_stats *s)
{
    int size;
    MPI_Comm_size(c, &size);
    int total = rd[size - 1] + rc[size - 1];
    unsigned char *tmp = malloc((size_t)total + 1);
    int err = correct(sb, sc, sd, st, tmp, rc, rd, rt, c, p, s);
    for (int j = 0; j < size; j++) {
        int nonzero = 0;
        for (int b = 0; b < rc[j]; b++)
            nonzero |= tmp[rd[j] + b];
        if (nonzero)
            memcpy((unsigned char *)rb + rd[j], tmp + rd[j], (size_t)rc[j]);
    }
    free(tmp);
    return err;
}

/* Fails with an MPI error code. */
static int returns_error(const void *sb, const int *sc, const int *sd, MPI_Datatype st, void *rb,
                         const int *rc, const int *rd, MPI_Datatype rt, MPI_Comm c, const int *p,
                         a2a_stats *s)
{
    (void)sb, (void)sc, (void)sd, (void)st, (void)rb, (void)rc, (void)rd, (void)rt, (void)c;
    (void)p, (void)s;
    return MPI_ERR_ARG;
}

/* Correct on the first call, wrong from the third on (state kept between calls). */
static int decays(const void *sb, const int *sc, const int *sd, MPI_Datatype st, void *rb,
                  const int *rc, const int *rd, MPI_Datatype rt, MPI_Comm c, const int *p,
                  a2a_stats *s)
{
    return ++call_count >= 3 ? flips_a_byte(sb, sc, sd, st, rb, rc, rd, rt, c, p, s)
                             : correct(sb, sc, sd, st, rb, rc, rd, rt, c, p, s);
}

/* Detects senders by non-zero values (the RMA trap): all-zero messages vanish. */
static int sdde_drops_zero_messages(int nnz, const int *dest, int sc, MPI_Datatype st,
                                    const void *sv, int *rnnz, int **src, int rc,
                                    MPI_Datatype rt, void **rv, MPI_Comm c, const int *p,
                                    a2a_stats *s)
{
    (void)p;
    int err = A2A_Alltoall_crs_reference(nnz, dest, sc, st, sv, rnnz, src, rc, rt, rv, c, s);
    int kept = 0;
    for (int i = 0; i < *rnnz; i++)
        if (((int *)*rv)[i] != 0) {
            (*src)[kept] = (*src)[i];
            ((int *)*rv)[kept++] = ((int *)*rv)[i];
        }
    *rnnz = kept;
    return err;
}

/* The stored name of a status, "(none)" for the sentinel STATUS_COUNT (never set). */
static const char *status_text(result_status status)
{
    return status == STATUS_COUNT ? "(none)" : db_status_name(status);
}

typedef struct expectation {
    const char *name;
    a2a_nonuniform_call call;
    wl_payload payload;
    result_status status;
    const char *message_part;
} expectation;

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const expectation cases[] = {
        { "correct", correct, WL_PAYLOAD_PATTERN, STATUS_OK, "" },
        { "correct_zero", correct, WL_PAYLOAD_ZERO, STATUS_OK, "" },
        { "flips_a_byte", flips_a_byte, WL_PAYLOAD_PATTERN, STATUS_WRONG, "block from rank" },
        { "overruns", overruns, WL_PAYLOAD_PATTERN, STATUS_WRONG, "outside every block" },
        { "writes_send_buffer", writes_send_buffer, WL_PAYLOAD_PATTERN, STATUS_WRONG, "send buffer" },
        { "visited_flags", visited_flags, WL_PAYLOAD_PATTERN, STATUS_WRONG, "block from rank" },
        { "drops_zero_blocks", drops_zero_blocks, WL_PAYLOAD_ZERO, STATUS_WRONG, "block from rank" },
        { "returns_error", returns_error, WL_PAYLOAD_PATTERN, STATUS_ERROR, "MPI error" },
        { "decays", decays, WL_PAYLOAD_PATTERN, STATUS_WRONG, "after the timed calls" },
    };
    int failures = 0, ncases = (int)(sizeof cases / sizeof cases[0]);
    double samples[8];
    for (int i = 0; i < ncases; i++) {
        a2a_kernel kernel = { cases[i].name, A2A_FAMILY_NONUNIFORM, "test", 0, 0, { { 0 } }, 0,
                              { .nonuniform = cases[i].call } };
        config c = { 0 };
        c.kernel = &kernel;
        c.P = size;
        c.Q = size;
        c.S = 300;
        c.dist = WL_DIST_UNIFORM;
        c.payload = cases[i].payload;
        c.gap = 1;
        c.iterations = 4;
        c.warmup = 1;
        c.seed = 11;
        call_count = 0;
        result_record r = { .status = STATUS_COUNT }; /* none: run_config must set it */
        run_config(&c, MPI_COMM_WORLD, &r, samples);
        if (rank == 0) {
            int ok = r.status == cases[i].status &&
                     strstr(r.message, cases[i].message_part) != NULL;
            if (!ok)
                failures++;
            printf("%s %s: %s %s\n", ok ? "ok  " : "FAIL", cases[i].name,
                   status_text(r.status), r.message);
        }
    }
    /* the sparse family: a kernel that loses all-zero messages must be caught */
    for (int zero = 0; zero < 2; zero++) {
        a2a_kernel kernel = { "sdde_drops_zero_messages", A2A_FAMILY_SDDE, "test", 0, 0,
                              { { 0 } }, 0, { .sdde = sdde_drops_zero_messages } };
        config c = { 0 };
        c.kernel = &kernel;
        c.P = size;
        c.Q = size;
        c.pattern = "stencil2d:8x8";
        c.payload = zero ? WL_PAYLOAD_ZERO : WL_PAYLOAD_PATTERN;
        c.iterations = 2;
        c.seed = 11;
        result_record r = { .status = STATUS_COUNT };
        run_config(&c, MPI_COMM_WORLD, &r, samples);
        result_status want = zero ? STATUS_WRONG : STATUS_OK;
        if (rank == 0) {
            int ok = r.status == want;
            failures += !ok;
            printf("%s sdde_drops_zero_messages (payload %s): %s %s\n", ok ? "ok  " : "FAIL",
                   zero ? "zero" : "pattern", status_text(r.status), r.message);
        }
        ncases++;
    }
    MPI_Bcast(&failures, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("test_validation: %d passed, %d failed\n", ncases - failures, failures);
    MPI_Finalize();
    return failures != 0;
}
