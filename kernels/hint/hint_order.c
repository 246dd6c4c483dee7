/* hint_order.c — HINT copy orders (row, column, Hilbert) and the per-communicator cache
 * of the hint kernel (see hint_order.h). */
#include <stdlib.h>
#include <string.h>

#include "a2a_hint.h"
#include "hint_order.h"
#include "nt_memcpy.h"

/* ---- the Hilbert curve ----------------------------------------------------------------
 * A state is one of the four symmetries of the square that map the basic pattern onto a
 * sub-square: bit 0 transposes (r, c) -> (c, r), bit 1 mirrors on the anti-diagonal
 * (r, c) -> (1-c, 1-r); both together turn by 180 degrees. The symmetries commute, so
 * composing two states is their exclusive or. The basic pattern visits the quadrants
 * top-left, bottom-left, bottom-right, top-right, with the sub-patterns transposed,
 * unchanged, unchanged, anti-mirrored. */
static const int quad_row[4] = { 0, 1, 1, 0 };
static const int quad_col[4] = { 0, 0, 1, 1 };
static const int quad_state[4] = { 1, 0, 0, 2 };
static const int position_of[2][2] = { { 0, 3 }, { 1, 2 } }; /* [row bit][col bit] */

/* Applies symmetry `state` to the quadrant bits (r, c). */
static void apply_state(int state, int *r, int *c)
{
    if (state & 1) {
        int t = *r;
        *r = *c;
        *c = t;
    }
    if (state & 2) {
        int t = *r;
        *r = 1 - *c;
        *c = 1 - t;
    }
}

/* Guarantees: a bijection of the side x side cells onto 0..side^2-1 along which
 * consecutive positions are neighbouring cells (the Hilbert curve described above). */
unsigned long long a2a_hilbert_index(unsigned long long side, unsigned long long row,
                                     unsigned long long col)
{
    unsigned long long d = 0;
    int state = 0;
    for (unsigned long long s = side / 2; s > 0; s /= 2) {
        int r = (row & s) != 0, c = (col & s) != 0;
        apply_state(state, &r, &c); /* every symmetry is its own inverse */
        int p = position_of[r][c];
        d = d * 4 + (unsigned long long)p;
        state ^= quad_state[p];
    }
    return d;
}

/* Guarantees: a2a_hilbert_index(side, *row, *col) == d for d < side^2. */
void a2a_hilbert_cell(unsigned long long side, unsigned long long d, unsigned long long *row,
                      unsigned long long *col)
{
    unsigned long long r0 = 0, c0 = 0;
    int state = 0;
    for (unsigned long long s = side / 2; s > 0; s /= 2) {
        int p = (int)((d / (s * s)) % 4);
        int r = quad_row[p], c = quad_col[p];
        apply_state(state, &r, &c);
        r0 += (unsigned long long)r * s;
        c0 += (unsigned long long)c * s;
        state ^= quad_state[p];
    }
    *row = r0;
    *col = c0;
}

/* A walk along the curve restricted to the rectangle [r0, r1) x [c0, c1): `skip` cells
 * of the rectangle are passed over, then the next `want` are written to out. */
typedef struct curve_walk {
    unsigned long long r0, r1, c0, c1, skip;
    int want, got;
    a2a_copy *out;
} curve_walk;

static unsigned long long overlap(unsigned long long lo, unsigned long long hi,
                                  unsigned long long a, unsigned long long b)
{
    unsigned long long from = lo > a ? lo : a, to = hi < b ? hi : b;
    return to > from ? to - from : 0;
}

/* Guarantees: visits the cells of the s x s square at (top, left) drawn in `state` in
 * curve order; whole squares outside the rectangle or inside the skipped part are passed
 * in one step, so a walk costs O(want * log side). */
static void walk_square(curve_walk *w, int state, unsigned long long top,
                        unsigned long long left, unsigned long long s)
{
    if (w->got == w->want)
        return;
    unsigned long long inside = overlap(top, top + s, w->r0, w->r1) *
                                overlap(left, left + s, w->c0, w->c1);
    if (inside == 0)
        return;
    if (w->skip >= inside) {
        w->skip -= inside;
        return;
    }
    if (s == 1) {
        w->out[w->got++] = (a2a_copy){ .src = (int)left, .dst = (int)top };
        return;
    }
    unsigned long long h = s / 2;
    for (int p = 0; p < 4; p++) {
        int r = quad_row[p], c = quad_col[p];
        apply_state(state, &r, &c);
        walk_square(w, state ^ quad_state[p], top + (unsigned long long)r * h,
                    left + (unsigned long long)c * h, h);
    }
}

/* Guarantees: A2A_ORDER_LAST static names, names[o - 1] for order o (see a2a_hint.h). */
const char *const *A2A_Hint_order_names(void)
{
    static const char *const names[A2A_ORDER_LAST] = { "row", "column", "hilbert", "tuned",
                                                       "auto" };
    return names;
}

/* Guarantees: see hint_order.h; every cell of the q x q matrix belongs to exactly one
 * rank's list, each list has q cells. */
int a2a_hint_order(int order, int q, int rank, a2a_copy *list)
{
    if (q < 1 || rank < 0 || rank >= q)
        return -1;
    if (order == A2A_ORDER_ROW || order == A2A_ORDER_COLUMN) {
        for (int i = 0; i < q; i++)
            list[i] = order == A2A_ORDER_ROW ? (a2a_copy){ .src = i, .dst = rank }
                                             : (a2a_copy){ .src = rank, .dst = i };
        return 0;
    }
    if (order != A2A_ORDER_HILBERT)
        return -1;
    unsigned long long side = 1, uq = (unsigned long long)q;
    while (side < uq)
        side *= 2;
    curve_walk w = { 0, uq, 0, uq, 0, q, 0, list };
    if (side == uq) { /* Algorithm 1: sub-grids of a rows x q/a columns, row-major */
        unsigned long long a = 1;
        while (a * a < uq)
            a *= 2;
        unsigned long long b = uq / a, per_row = uq / b;
        unsigned long long sr = (unsigned long long)rank / per_row, sc = (unsigned long long)rank % per_row;
        w.r0 = sr * a;
        w.r1 = w.r0 + a;
        w.c0 = sc * b;
        w.c1 = w.c0 + b;
    } else { /* run `rank` of q cells along the curve restricted to the matrix */
        w.skip = (unsigned long long)rank * uq;
    }
    walk_square(&w, 0, 0, 0, side);
    return w.got == q ? 0 : -1;
}

/* ---- the per-communicator cache ------------------------------------------------------ */

/* The attribute value: a holder whose list grows without setting the attribute again
 * (setting it would call the delete callback on the old value). */
typedef struct state_list {
    a2a_hint_state *head;
} state_list;

static int state_keyval = MPI_KEYVAL_INVALID;

static void free_state(a2a_hint_state *st)
{
    if (st->node_group != MPI_GROUP_NULL)
        MPI_Group_free(&st->node_group);
    if (st->node_comm != MPI_COMM_NULL)
        MPI_Comm_free(&st->node_comm);
    for (int o = 0; o < 3; o++)
        free(st->orders[o]);
    free(st->meta);
    free(st->gathered);
    free(st->peer_send);
    free(st->peer_recv);
    free(st);
}

/* Delete callback: frees every state of the communicator being freed. */
static int delete_states(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)extra;
    state_list *list = value;
    while (list->head) {
        a2a_hint_state *next = list->head->next;
        free_state(list->head);
        list->head = next;
    }
    free(list);
    return MPI_SUCCESS;
}

static state_list *find_list(MPI_Comm comm)
{
    if (state_keyval == MPI_KEYVAL_INVALID)
        return NULL;
    void *value = NULL;
    int flag = 0;
    if (MPI_Comm_get_attr(comm, state_keyval, &value, &flag) != MPI_SUCCESS || !flag)
        return NULL;
    return value;
}

/* Guarantees: the state created earlier for (comm, ppn), or NULL; no communication. */
a2a_hint_state *a2a_hint_state_find(MPI_Comm comm, int ppn)
{
    state_list *list = find_list(comm);
    for (a2a_hint_state *st = list ? list->head : NULL; st; st = st->next)
        if (st->ppn == ppn)
            return st;
    return NULL;
}

/* Guarantees: see hint_order.h. Every rank of comm creates its state in the same call,
 * so the collective steps match. */
int a2a_hint_state_get(MPI_Comm comm, int ppn, a2a_hint_state **out)
{
    a2a_hint_state *st = a2a_hint_state_find(comm, ppn);
    if (st) {
        *out = st;
        return MPI_SUCCESS;
    }
    int err, rank, size, Q, node, local;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if ((err = A2A_Node_layout(comm, ppn, &Q, &node, &local)) != MPI_SUCCESS)
        return err;
    st = calloc(1, sizeof *st);
    if (!st)
        return MPI_ERR_NO_MEM;
    st->ppn = ppn;
    st->P = size;
    st->Q = Q;
    st->N = size / Q;
    st->node = node;
    st->local = local;
    st->node_comm = MPI_COMM_NULL;
    st->node_group = MPI_GROUP_NULL;
    st->last_order = 0;
    if ((err = MPI_Comm_split(comm, node, local, &st->node_comm)) != MPI_SUCCESS) {
        free_state(st);
        return err;
    }
    MPI_Comm_group(st->node_comm, &st->node_group);
    unsigned long long t0 = (unsigned long long)(a2a_l2_cache_bytes() / (size_t)Q);
    if ((err = MPI_Bcast(&t0, 1, MPI_UNSIGNED_LONG_LONG, 0, st->node_comm)) != MPI_SUCCESS) {
        free_state(st);
        return err;
    }
    st->t0 = (size_t)t0;
    st->meta = calloc((size_t)Q * A2A_HINT_META, sizeof *st->meta);
    st->gathered = calloc((size_t)Q * A2A_HINT_META, sizeof *st->gathered);
    st->peer_send = calloc((size_t)Q, sizeof *st->peer_send);
    st->peer_recv = calloc((size_t)Q, sizeof *st->peer_recv);
    int ok = st->meta && st->gathered && st->peer_send && st->peer_recv;
    for (int o = 0; o < 3 && ok; o++) {
        st->orders[o] = malloc((size_t)Q * sizeof *st->orders[o]);
        ok = st->orders[o] && a2a_hint_order(A2A_ORDER_ROW + o, Q, local, st->orders[o]) == 0;
    }
    state_list *list = find_list(comm);
    int fresh = !list;
    if (fresh)
        list = calloc(1, sizeof *list);
    ok = ok && list;
    int all = 0; /* every rank must have its state, or none keeps one */
    if ((err = MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm)) != MPI_SUCCESS || !all) {
        if (fresh)
            free(list);
        free_state(st);
        return err != MPI_SUCCESS ? err : MPI_ERR_NO_MEM;
    }
    if (fresh) {
        if (state_keyval == MPI_KEYVAL_INVALID &&
            (err = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_states, &state_keyval,
                                          NULL)) != MPI_SUCCESS) {
            free(list);
            free_state(st);
            return err;
        }
        if ((err = MPI_Comm_set_attr(comm, state_keyval, list)) != MPI_SUCCESS) {
            free(list);
            free_state(st);
            return err;
        }
    }
    st->next = list->head;
    list->head = st;
    *out = st;
    return MPI_SUCCESS;
}

/* Guarantees: Q copies of this rank in `order` (computed when the state was made). */
const a2a_copy *a2a_hint_state_order(const a2a_hint_state *st, int order)
{
    if (order < A2A_ORDER_ROW || order > A2A_ORDER_HILBERT)
        return NULL;
    return st->orders[order - A2A_ORDER_ROW];
}
