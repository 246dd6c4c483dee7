/* hint_order.h — copy orders of HINT (paper Algorithms 1 and 2) and the per-communicator
 * cache of the hint kernel (internal to liba2a).
 *
 * The all-to-all among the Q ranks of a node is a Q x Q matrix of block copies, seen as the
 * receive matrix: row d is the receive buffer of rank d, column s holds the blocks rank s
 * sends; cell (d, s) is the copy of block d of s's send buffer into block s of d's receive
 * buffer. An order gives every rank Q cells (together every cell once) and the sequence in
 * which it copies them:
 *   row      rank r copies row r, s = 0..Q-1 (reads from every send buffer, writes its own
 *            receive buffer linearly);
 *   column   rank r copies column r, d = 0..Q-1 (reads its own send buffer linearly);
 *   hilbert  the cells walked along a Hilbert curve. Q a power of two: Algorithm 1: the
 *            matrix is split into sub-grids of a rows x Q/a columns, a the smallest power
 *            of two with a*a >= Q (= next power of two >= sqrt Q); rank r takes sub-grid r
 *            in row-major order of the sub-grids and copies its cells in the curve's order.
 *            Other Q (which the paper leaves open): the curve of the enclosing 2^k x 2^k
 *            lattice (2^k >= Q) restricted to the matrix, cut into Q consecutive runs of Q
 *            cells; rank r takes run r. Runs are compact because the curve is; no sub-grid
 *            of a x Q/a cells exists for Q prime, and this generalisation needs none.
 * The curve: the quadrants of a square are visited top-left, bottom-left, bottom-right,
 * top-right (rows grow downwards), the top-left one transposed, the top-right one mirrored
 * on the anti-diagonal, recursively: for Q = 4 this is exactly the paper's Figure 5(a).
 */
#ifndef A2A_HINT_ORDER_H
#define A2A_HINT_ORDER_H

#include <stddef.h>
#include <stdint.h>
#include "a2a.h"

/* One block copy between two ranks of a node (local ranks). */
typedef struct a2a_copy {
    int src; /* whose send buffer: column of the receive matrix */
    int dst; /* whose receive buffer: row of the receive matrix */
} a2a_copy;

/* Position of cell (row, col) along the Hilbert curve of a side x side lattice (side a
 * power of two); 0 for the top-left cell. */
unsigned long long a2a_hilbert_index(unsigned long long side, unsigned long long row,
                                     unsigned long long col);

/* The cell at position d of that curve (the inverse of a2a_hilbert_index). */
void a2a_hilbert_cell(unsigned long long side, unsigned long long d, unsigned long long *row,
                      unsigned long long *col);

/* Fills list[0..q) with rank's copies among q ranks in `order` (A2A_ORDER_ROW, _COLUMN or
 * _HILBERT), in copy sequence. Returns 0, or -1 for another order or rank outside 0..q-1. */
int a2a_hint_order(int order, int q, int rank, a2a_copy *list);

/* ---- the per-communicator cache ------------------------------------------------------ */

#define A2A_HINT_SLOTS 32 /* remembered (block size, buffers, arguments) combinations */
#define A2A_HINT_TRIES 3  /* measured calls per candidate (order or threshold) */
#define A2A_HINT_META 7   /* metadata fields per rank, see hint.c */

/* The online tuning of one combination of block size, buffers (all ranks' windows and
 * offsets) and arguments; identical on every rank of a node, because every decision comes
 * from values reduced over the node. */
typedef struct a2a_hint_slot {
    int used;
    unsigned long long last_use;   /* for least-recently-used replacement */
    size_t block_bytes;
    uint64_t buffers;              /* hash of the node's buffer metadata */
    int order_arg, threshold_arg;  /* the call's arguments */
    int calls;                     /* calls of this combination so far */
    int order;                     /* order in use (settled or under trial) */
    int order_settled;
    double order_time[3][A2A_HINT_TRIES]; /* auto: slowest rank's copy time per trial */
    size_t threshold;              /* threshold in use */
    int threshold_settled;
    int threshold_tries;           /* measured calls of the current candidate */
    double threshold_time[A2A_HINT_TRIES];
    size_t best_threshold;
    double best_time;              /* median of the best candidate so far (< 0: none) */
} a2a_hint_slot;

/* What the hint kernel keeps per (communicator, ppn). Created collectively on the first
 * call with that ppn, freed when the communicator is freed. */
typedef struct a2a_hint_state {
    int ppn;                       /* the argument this state is for */
    int P, Q, N, node, local;      /* size, ranks per node, nodes, this rank's node and index */
    MPI_Comm node_comm;            /* the Q ranks of this rank's node, in local-rank order */
    MPI_Group node_group;          /* its group */
    a2a_copy *orders[3];           /* this rank's copies per order (row, column, hilbert) */
    size_t t0;                     /* initial threshold: L2 bytes / Q (node rank 0's L2) */
    long long *meta;               /* the node's buffer metadata of the last call, Q * META */
    long long *gathered;           /* this call's metadata, Q * META */
    char **peer_send, **peer_recv; /* its buffers, translated into this process */
    int meta_valid;                /* meta/peer_* hold an accepted set */
    const void *own_send, *own_recv; /* this rank's buffers of the last call ... */
    size_t own_len;                /* ... their length ... */
    unsigned long long own_generation; /* ... and the window table they were found in */
    long long own_meta[A2A_HINT_META]; /* what this rank publishes for them */
    MPI_Win own_win[2];            /* their windows (send, receive) */
    int own_valid;
    a2a_hint_slot slots[A2A_HINT_SLOTS];
    unsigned long long clock;
    int last_order;                /* what the last call used (A2A_Hint_last_choice) */
    size_t last_threshold;
    struct a2a_hint_state *next;
} a2a_hint_state;

/* The state of (comm, ppn): found in comm's attribute, or created (collective over comm:
 * node layout, node communicator, initial threshold, the three copy lists; success is
 * agreed over comm). MPI error code; MPI_ERR_ARG when P % Q != 0 or the real nodes are not
 * blocks of consecutive ranks. */
int a2a_hint_state_get(MPI_Comm comm, int ppn, a2a_hint_state **out);

/* The state of (comm, ppn) if one exists (local, creates nothing), else NULL. */
a2a_hint_state *a2a_hint_state_find(MPI_Comm comm, int ppn);

/* This rank's copy list for `order` (1..3; NULL for others). The three lists are computed
 * when the state is made, once per communicator and ppn. */
const a2a_copy *a2a_hint_state_order(const a2a_hint_state *st, int order);

#endif
