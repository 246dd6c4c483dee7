/* unit_hint_order.c — HINT copy orders and the Hilbert curve (kernels/hint/hint_order.c),
 * no MPI.
 *
 *   - the curve: a2a_hilbert_cell inverts a2a_hilbert_index on every cell of lattices of
 *     side 1..128, and consecutive positions are neighbouring cells (a Hilbert curve);
 *     side 4 is exactly the paper's Figure 5(a);
 *   - the orders, for every q in 1..70 and 96, 100, 127, 128, 255, 256: every rank gets q
 *     copies, together every (source, destination) cell exactly once; row and column are
 *     rank r's row / column in ascending order; hilbert: for powers of two each rank's
 *     cells fill the sub-grid of Algorithm 1 (a rows x q/a columns, a the smallest power of
 *     two with a*a >= q, row-major by rank) in increasing curve position; for other q the
 *     lists in rank order are the curve of the enclosing power-of-two lattice restricted
 *     to the matrix; Figure 5(a)'s per-rank lists for q = 4;
 *   - invalid arguments are refused.
 * One line per failure, a summary; exit status 0 only if every check passed. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "a2a_hint.h"
#include "hint_order.h"
#include "unit_check.h"

static long long passed, failed;

/* Counts one check; prints the formatted failure line (the first 30 of them). */
static void expect(int ok, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    count_check_v(&passed, &failed, 30, ok, fmt, ap);
    va_end(ap);
}

static void check_curve(unsigned long long side)
{
    unsigned long long cells = side * side, pr = 0, pc = 0;
    int bijective = 1, adjacent = 1;
    for (unsigned long long d = 0; d < cells; d++) {
        unsigned long long r, c;
        a2a_hilbert_cell(side, d, &r, &c);
        if (r >= side || c >= side || a2a_hilbert_index(side, r, c) != d)
            bijective = 0;
        if (d > 0) {
            unsigned long long dr = r > pr ? r - pr : pr - r, dc = c > pc ? c - pc : pc - c;
            if (dr + dc != 1)
                adjacent = 0;
        }
        pr = r;
        pc = c;
    }
    expect(bijective, "side %d: cell(index(cell)) is not the identity", (int)side);
    expect(adjacent, "side %d: consecutive curve positions are not neighbours", (int)side);
}

/* Figure 5(a): the Hilbert sequence numbers (1-based) of the 4 x 4 receive matrix. */
static void check_figure_5a(void)
{
    static const int fig[4][4] = { { 1, 2, 15, 16 }, { 4, 3, 14, 13 }, { 5, 8, 9, 12 },
                                   { 6, 7, 10, 11 } };
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++)
            expect((int)a2a_hilbert_index(4, (unsigned)r, (unsigned)c) + 1 == fig[r][c],
                   "Figure 5(a): cell (%d, %d) should be %d", r, c, fig[r][c]);
    /* each rank's sub-grid sorted by sequence number, as (row = dst, col = src): rank 0
     * (1,0,0) (2,0,1) (3,1,1) (4,1,0); rank 1 13 (1,3), 14 (1,2), 15 (0,2), 16 (0,3); ... */
    static const int want[4][4][2] = { { { 0, 0 }, { 0, 1 }, { 1, 1 }, { 1, 0 } },
                                       { { 1, 3 }, { 1, 2 }, { 0, 2 }, { 0, 3 } },
                                       { { 2, 0 }, { 3, 0 }, { 3, 1 }, { 2, 1 } },
                                       { { 2, 2 }, { 3, 2 }, { 3, 3 }, { 2, 3 } } };
    a2a_copy list[4];
    for (int rank = 0; rank < 4; rank++) {
        a2a_hint_order(A2A_ORDER_HILBERT, 4, rank, list);
        for (int i = 0; i < 4; i++) {
            const int *w = want[rank][i];
            expect(list[i].dst == w[0] && list[i].src == w[1],
                   "Figure 5(a): rank %d copy %d is not (row %d, ...)", rank, i, w[0]);
        }
    }
}

static int is_power_of_two(int q) { return q > 0 && (q & (q - 1)) == 0; }

static void check_orders(int q)
{
    a2a_copy *list = malloc((size_t)q * sizeof *list);
    char *seen = malloc((size_t)q * (size_t)q);
    unsigned long long side = 1;
    while (side < (unsigned long long)q)
        side *= 2;
    for (int order = A2A_ORDER_ROW; order <= A2A_ORDER_HILBERT; order++) {
        memset(seen, 0, (size_t)q * (size_t)q);
        int ok_cover = 1, ok_shape = 1;
        unsigned long long prev_run_end = 0; /* non-powers of two: curve continuity over ranks */
        for (int rank = 0; rank < q; rank++) {
            if (a2a_hint_order(order, q, rank, list) != 0) {
                expect(0, "q=%d order %d rank %d: refused", q, order, rank);
                continue;
            }
            unsigned long long last = 0;
            for (int i = 0; i < q; i++) {
                int s = list[i].src, d = list[i].dst;
                if (s < 0 || s >= q || d < 0 || d >= q || seen[(size_t)d * q + s]++) {
                    ok_cover = 0;
                    continue;
                }
                if (order == A2A_ORDER_ROW && !(d == rank && s == i))
                    ok_shape = 0;
                if (order == A2A_ORDER_COLUMN && !(s == rank && d == i))
                    ok_shape = 0;
                if (order == A2A_ORDER_HILBERT) {
                    unsigned long long h = a2a_hilbert_index(side, (unsigned long long)d,
                                                             (unsigned long long)s);
                    if (i > 0 && h <= last)
                        ok_shape = 0; /* increasing along the curve */
                    if (i == 0 && !is_power_of_two(q) && rank > 0 && h <= prev_run_end)
                        ok_shape = 0; /* runs follow each other along the curve */
                    last = h;
                    if (is_power_of_two(q)) {
                        int a = 1;
                        while (a * a < q)
                            a *= 2;
                        int b = q / a, per_row = q / b;
                        int r0 = rank / per_row * a, c0 = rank % per_row * b;
                        if (d < r0 || d >= r0 + a || s < c0 || s >= c0 + b)
                            ok_shape = 0;
                    }
                }
            }
            prev_run_end = last;
        }
        for (int i = 0; i < q * q; i++)
            if (seen[i] != 1)
                ok_cover = 0;
        expect(ok_cover, "q=%d order %d: the lists do not cover every cell exactly once", q,
               order);
        expect(ok_shape, "q=%d order %d: the lists do not have the order's shape", q, order);
    }
    /* non-powers of two: the concatenated runs are exactly the restricted curve */
    if (!is_power_of_two(q)) {
        int ok = 1;
        unsigned long long d = 0;
        for (int rank = 0; rank < q && ok; rank++) {
            a2a_hint_order(A2A_ORDER_HILBERT, q, rank, list);
            for (int i = 0; i < q && ok; i++) {
                unsigned long long r, c;
                do
                    a2a_hilbert_cell(side, d++, &r, &c);
                while (r >= (unsigned long long)q || c >= (unsigned long long)q);
                ok = list[i].dst == (int)r && list[i].src == (int)c;
            }
        }
        expect(ok, "q=%d: hilbert runs are not the curve restricted to the matrix", q);
    }
    free(list);
    free(seen);
}

int main(void)
{
    for (unsigned long long side = 1; side <= 128; side *= 2)
        check_curve(side);
    check_figure_5a();
    for (int q = 1; q <= 70; q++)
        check_orders(q);
    static const int more[] = { 96, 100, 127, 128, 255, 256 };
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++)
        check_orders(more[i]);
    a2a_copy list[4];
    expect(a2a_hint_order(A2A_ORDER_TUNED, 4, 0, list) == -1, "order tuned is not refused");
    expect(a2a_hint_order(A2A_ORDER_ROW, 4, 4, list) == -1, "rank 4 of 4 is not refused");
    expect(a2a_hint_order(A2A_ORDER_ROW, 0, 0, list) == -1, "q = 0 is not refused");
    printf("unit_hint_order: %lld passed, %lld failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
